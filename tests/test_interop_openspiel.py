"""Every game file as an OpenSpiel game (rulekit.interop.openspiel), checked with
OpenSpiel's own tools, and OpenSpiel's MCTS as a rulekit bot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.mcts import MCTSBot, RandomRolloutEvaluator

import rulekit
import rulekit.interop.openspiel  # noqa: F401  (registers python_rulekit)
from rulekit.errors import GameFileError, RulekitError
from rulekit.interop import encoding
from tests.conftest import GAMES, ROOT
from tests.test_cli import run

#: the shipped games and variants, and the example games (games/examples/) where present
SHIPPED = sorted(p for p in [*GAMES.glob("*.yaml"), *GAMES.glob("examples/*.yaml")]
                 if ".tests." not in p.name)


def load(file: str, **params: object) -> pyspiel.Game:
    return pyspiel.load_game("python_rulekit", {"file": str(file), **params})


def chance(state: pyspiel.State, rng: np.random.RandomState) -> None:
    """Resolve a chance node with the probabilities it states."""
    ids, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(ids, p=probs)))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_openspiels_random_simulation_test_passes_on_every_shipped_game(path):
    game = load(path)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_a_state_serialized_comes_back_equal_even_halfway_through_a_roll():
    pyspiel.random_sim_test(load(GAMES / "domino-fives.yaml"), num_sims=1, serialize=True,
                            verbose=False)
    game = load(GAMES / "qwixx.yaml")
    state = game.new_initial_state()
    for action in (2, 3, 4, 5, 0, 1):  # the first roll
        state.apply_action(action)
    while not state.is_chance_node():  # the rest of the turn
        state.apply_action(state.legal_actions()[-1])
    state.apply_action(4)  # the next roll has begun: one die of six is known
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()
    assert copy.information_state_string(1) == state.information_state_string(1)
    for s in (state, copy):
        for action in (0, 1, 2, 3, 4):
            s.apply_action(action)
    assert str(copy) == str(state)
    assert copy.rulekit_state.view(0)["components"]["dice"] == \
        state.rulekit_state.view(0)["components"]["dice"]


def test_game_type_follows_the_file():
    levelx, domino, qwixx = load(GAMES / "levelx.yaml"), load(GAMES / "domino7.yaml"), \
        load(GAMES / "qwixx.yaml", players=3)
    info = pyspiel.GameType.Information
    assert levelx.get_type().information == info.PERFECT_INFORMATION
    assert domino.get_type().information == info.IMPERFECT_INFORMATION  # hidden hands
    # a `together` window: a seat decides without seeing what the others chose
    assert qwixx.get_type().information == info.IMPERFECT_INFORMATION
    assert qwixx.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert qwixx.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    # a file that declares zero_sum (and `validate --simulate` holds it to that)
    four = load(GAMES / "examples" / "connect-four.yaml")
    assert four.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert qwixx.num_players() == 3
    # the utility range is the file's score_bounds, with the params given
    assert (qwixx.min_utility(), qwixx.max_utility()) == (-20.0, 312.0)
    harsh = load(GAMES / "qwixx.yaml", params="{penalty_points: 10}")
    assert harsh.min_utility() == -40.0


def test_action_strings_are_the_labels_and_ids_are_fixed_by_the_game():
    game = load(GAMES / "qwixx.yaml")
    again = load(GAMES / "qwixx.yaml", players=4).new_initial_state()
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            chance(state, rng)
            continue
        legal = state.legal_actions()
        labels = {a.label for a in state.rulekit_state.legal_actions()}
        assert {state.action_to_string(state.current_player(), a) for a in legal} == labels
        # an id means one label in every state, whatever the number of players
        assert all(game.num_distinct_actions() > a >= 0 for a in legal)
        assert [state.action_to_string(a) for a in legal] == [
            again.action_to_string(0, a) for a in legal]
        state.apply_action(int(rng.choice(legal)))
        decisions += 1
    assert decisions > 10
    assert state.returns() == [float(s) for s in state.rulekit_state.scores()]
    # natural order: "red 2" comes before "red 10"
    labels = [state.action_to_string(0, a) for a in range(game.num_distinct_actions())]
    assert labels.index("red 2") < labels.index("red 10") < labels.index("red 12")


def test_the_same_file_gives_the_same_ids_in_another_process():
    script = textwrap.dedent(f"""
        import json, rulekit
        from rulekit.interop.encoding import encoding_of
        e = encoding_of(rulekit.load_game({str(GAMES / "domino-fives.yaml")!r}))
        print(json.dumps([e.labels, e.slot_names]))
    """)
    runs = []
    for hash_seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": hash_seed},
                             check=True)
        runs.append(json.loads(out.stdout))
    assert runs[0] == runs[1]
    assert "0|0 left" in runs[0][0] and "6|6 right" in runs[0][0]


def test_a_roll_is_offered_die_by_die_with_its_probabilities():
    game = load(GAMES / "qwixx.yaml")
    state = game.new_initial_state()
    faces = {"white1": 3, "white2": 4, "red": 6, "yellow": 1, "green": 2, "blue": 5}
    shown = []
    for face in faces.values():
        assert state.is_chance_node()
        assert state.chance_outcomes() == [(i, pytest.approx(1 / 6)) for i in range(6)]
        shown.append(state.action_to_string(pyspiel.PlayerId.CHANCE, face - 1))
        state.apply_action(face - 1)
    assert shown == [f"{die} {face}" for die, face in faces.items()]
    assert state.rulekit_state.view(0)["components"]["dice"] == faces
    # the observation tensor holds the faces, in the slots named after the dice
    names = encoding.encoding_of(state.rulekit_state.game).slot_names
    tensor = state.observation_tensor(1)
    assert {die: tensor[names.index(f"components.dice.{die}")] for die in faces} == faces
    assert not state.is_chance_node()
    # the white sum, 7, may be crossed by the first seat
    assert "red 7" in {state.action_to_string(a) for a in state.legal_actions()}


def test_a_deal_is_sampled_from_equally_likely_seeded_outcomes():
    game = load(GAMES / "domino-fives.yaml", samples=50)
    assert game.max_chance_outcomes() == 50
    first = game.new_initial_state()
    assert first.chance_outcomes() == [(i, pytest.approx(1 / 50)) for i in range(50)]
    hands = []
    for outcome in (7, 7, 8):
        state = game.new_initial_state()
        state.apply_action(outcome)
        hands.append(state.rulekit_state.view(0)["components"]["hand"]["hands"][0]["tiles"])
    assert hands[0] == hands[1]  # the same outcome id deals the same hands
    assert hands[0] != hands[2]


def test_an_observation_never_shows_what_its_seat_cannot_see():
    game = load(GAMES / "domino-fives.yaml")
    st = rulekit.load_game(GAMES / "domino-fives.yaml").new_game(2, seed=1)
    tiles = [[a, b] for a in range(7) for b in range(a, 7)]
    other = tiles[:]
    other[7], other[20] = other[20], other[7]  # seat 1's hand and the stock swap a tile
    states = []
    for deal in (tiles, other):
        s = st.clone()
        s.resolve_chance(deal)
        states.append(game.state_of(s))
    a, b = states
    assert a.observation_string(0) == b.observation_string(0)
    assert a.observation_tensor(0) == b.observation_tensor(0)
    assert a.information_state_string(0) == b.information_state_string(0)
    # seat 1 sees its own hand, which differs
    assert a.observation_string(1) != b.observation_string(1)
    assert a.observation_tensor(1) != b.observation_tensor(1)
    assert "tiles" not in json.dumps(json.loads(a.observation_string(0))
                                     ["components"]["hand"]["hands"][1])


def test_the_information_state_remembers_what_the_seat_saw_before():
    game = load(GAMES / "levelx.yaml")
    rng = np.random.RandomState(0)
    state = game.new_initial_state()
    moments, observations = set(), set()
    while len(moments) < 30:
        if state.is_chance_node():
            chance(state, rng)
            continue
        moments.add(state.information_state_string(0))
        observations.add(state.observation_string(0))
        state.apply_action(int(rng.choice(state.legal_actions())))
    # each decision is a new moment in the seat's memory, though what it sees may repeat
    assert len(moments) == 30
    assert all(m.split("\npast: ")[0] in observations for m in moments)


def test_openspiels_mcts_bot_plays_a_rulekit_game_to_the_end():
    game = load(GAMES / "domino-fives.yaml")
    numbers = np.random.RandomState(5)
    bot = MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=RandomRolloutEvaluator(
        1, numbers), random_state=numbers)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            chance(state, numbers)
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
    st = state.rulekit_state
    assert st.is_over and moves > 5
    assert state.returns() == [float(s) for s in st.scores()]


def test_bad_parameters_get_one_clear_message():
    with pytest.raises(RulekitError, match="needs the parameter 'file'"):
        pyspiel.load_game("python_rulekit", {})
    with pytest.raises(RulekitError, match="for 2 to 5 players, not 9"):
        load(GAMES / "qwixx.yaml", players=9)
    with pytest.raises(GameFileError, match="penalty_points.*below the minimum 0"):
        load(GAMES / "qwixx.yaml", params="{penalty_points: -3}")
    with pytest.raises(RulekitError, match="a YAML mapping"):
        load(GAMES / "qwixx.yaml", params="[1, 2]")
    with pytest.raises(GameFileError, match="YAML syntax"):
        load(GAMES / "qwixx.yaml", params="{a: [1")
    with pytest.raises(RulekitError, match="'samples' is a whole number"):
        load(GAMES / "qwixx.yaml", samples=0)
    # the params are read like a game file, with its guards: aliases that multiply
    bomb = ["a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]"] + [
        f"{x}: &{x} [{', '.join(['*' + y] * 9)}]" for y, x in zip("abcdefgh", "bcdefghi")]
    with pytest.raises(GameFileError, match="the parameter 'params'.*expands to more than"):
        load(GAMES / "qwixx.yaml", params="{" + ", ".join(bomb) + "}")


# a game whose labels are the faces of a 1000-sided die: new ones keep turning up
ENDLESS_LABELS = """\
name: Endless labels
players: {min: 2, max: 2}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d: 1000}}
flow:
  turn:
    - roll: dice
    - choose:
        options:
          - for: "k in [dice.d]"
            label: "{k}"
            do:
              - add: {player.points: 1}
end:
  when: "turn > 2"
score: "player.points"
"""


def test_a_game_whose_action_space_cannot_be_fixed_is_refused_with_a_message(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr(encoding, "MAX_GAMES", 60)  # the real limit, reached sooner
    path = tmp_path / "endless.yaml"
    path.write_text(ENDLESS_LABELS)
    with pytest.raises(RulekitError, match="cannot fix an action space: new action labels "
                                           "still turned up after 60 random games"):
        load(path)


def test_the_openspiel_mcts_bot_plays_from_the_command_line_and_is_reproducible():
    args = ("play", str(GAMES / "qwixx.yaml"), "--auto", "--bots", "openspiel-mcts:3,random",
            "--seed", "4")
    first, again = run(*args), run(*args)
    assert first.exit_code == 0, first.output
    assert "openspiel-mcts:3" in first.output and "winner" in first.output
    assert first.output == again.output
    bad = run("play", str(GAMES / "qwixx.yaml"), "--auto", "--bots", "openspiel-mcts:many")
    assert bad.exit_code == 2
    assert "openspiel-mcts takes a number of simulations" in bad.output
