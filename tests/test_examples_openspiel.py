"""The example games against OpenSpiel, move by move: where OpenSpiel has the game, the YAML
file follows its rules, so both must offer the same actions (OpenSpiel's action strings are
the labels), pass the turn alike after the same moves and dice, and end with equal returns.

Both sides get the same scripted dice: a chance outcome drawn by the test's own seeded RNG is
imposed on the YAML game with `resolve_chance(outcome)` and applied to OpenSpiel as the
matching chance action.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rulekit

pyspiel = pytest.importorskip("pyspiel")

EXAMPLES = Path(__file__).resolve().parent.parent / "games" / "examples"


@functools.cache
def load(file: str, overrides: tuple) -> Any:
    return rulekit.load_game(str(EXAMPLES / file), overrides=dict(overrides))


def play_both(file: str, spiel_name: str, players: int, seed: int,
              outcome: Callable[[Any, str, list[int]], Any], overrides: dict | None = None,
              spiel_params: dict | None = None,
              same: Callable[[Any, Any], None] | None = None,
              dice_per_roll: int = 1) -> tuple[list, list]:
    """One random game played on both engines; every step is compared. Returns the YAML
    game's scores and OpenSpiel's returns.

    `outcome(state, text, spiel_actions)` turns OpenSpiel's chance actions (the last one's
    text) into the YAML game's chance outcome; `dice_per_roll` of them make one outcome.
    """
    game = load(file, tuple(sorted((overrides or {}).items())))
    spiel = pyspiel.load_game(spiel_name, {"players": players, **(spiel_params or {})})
    st = game.new_game(players=players, seed=seed)
    sp = spiel.new_initial_state()
    rng = random.Random(seed)
    moves = 0
    while not sp.is_terminal():
        assert not st.is_over, f"move {moves}: the YAML game ended first"
        if sp.is_chance_node():
            assert st.is_chance, f"move {moves}: OpenSpiel rolls, the YAML game does not"
            drawn = []
            for _ in range(dice_per_roll):  # OpenSpiel may roll die by die
                actions, probs = zip(*sp.chance_outcomes())
                drawn.append(rng.choices(actions, probs)[0])
                text = sp.action_to_string(pyspiel.PlayerId.CHANCE, drawn[-1])
                sp.apply_action(drawn[-1])
            st.resolve_chance(outcome(st, text, drawn))
        else:
            assert not st.is_chance, f"move {moves}: the YAML game rolls, OpenSpiel does not"
            seat = sp.current_player()
            assert st.current_player == seat, f"move {moves}"
            theirs = {sp.action_to_string(seat, a): a for a in sp.legal_actions()}
            ours = [a.label for a in st.legal_actions()]
            assert sorted(ours) == sorted(theirs), f"move {moves}: {ours} vs {sorted(theirs)}"
            label = rng.choice(sorted(theirs))
            st.apply(label)
            sp.apply_action(theirs[label])
        if same is not None:
            same(st, sp)
        moves += 1
    assert st.is_over, f"move {moves}: OpenSpiel ended, the YAML game goes on"
    return st.scores(), sp.returns()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pig_plays_as_openspiel_with_equal_returns(players: int) -> None:
    # a small target keeps the games short; both engines take it as a param
    for seed in range(12):
        ours, theirs = play_both("pig.yaml", "pig", players, seed,
                                 lambda st, text, a: {"d": a[0] + 1}, {"winscore": 20},
                                 {"winscore": 20})
        assert ours == theirs


def test_pig_horizon_ends_with_nobody_winning_as_in_openspiel() -> None:
    ours, theirs = play_both("pig.yaml", "pig", 3, 5, lambda st, text, a: {"d": a[0] + 1},
                             {"horizon": 7}, {"horizon": 7})
    assert ours == theirs == [0, 0, 0]


def test_pig_returns_are_fractions_for_more_than_two_players() -> None:
    game = rulekit.load_game(str(EXAMPLES / "pig.yaml"), overrides={"winscore": 5})
    st = game.new_game(players=4, seed=0)
    st.apply("roll")
    st.resolve_chance({"d": 6})
    st.apply("stop")
    assert st.is_over
    assert st.scores() == [1, -1 / 3, -1 / 3, -1 / 3]
    assert st.winners() == [0]


def yacht_roll(st: Any, text: str, a: list[int]) -> dict:
    """OpenSpiel's roll ("Roll: 3,5,1": the faces of the dice rolled, by position) as the
    YAML game's outcome: the dice the last decision named, or all five at a turn's start."""
    faces = [int(f) for f in text.split(": ")[1].split(",")]
    last = next((e["action"] for e in reversed(st.log) if "action" in e), "")
    positions = ([int(i) for i in last.split(": ")[1].split(",")]
                 if last.startswith("Reroll dice") else range(5))
    return {f"d{i}": f for i, f in zip(positions, faces)}


#: OpenSpiel's short names of the categories, in the order of the YAML game's variables
YACHT_SHEET = {"Ones": "ones", "Twos": "twos", "Threes": "threes", "Fours": "fours",
               "Fives": "fives", "Sixes": "sixes", "Chance": "chance", "4Kind": "four_kind",
               "Full": "full_house", "SmStr": "small_straight", "LgStr": "large_straight",
               "Yacht": "yacht"}


def same_yacht_sheets(st: Any, sp: Any) -> None:
    """Every category used so far holds the same points on both sides."""
    theirs: list[dict] = []
    for line in str(sp).splitlines():
        if line.startswith("Player "):
            theirs.append({})
        elif line.startswith("  ") and theirs:
            name, points = line.strip().split(": ")
            theirs[-1][YACHT_SHEET[name]] = int(points)
    ours = [{k: v for k, v in p.items() if k in YACHT_SHEET.values() and v >= 0}
            for p in st.view()["player_vars"]]
    assert ours == theirs


@pytest.mark.parametrize("players", [2, 3])
def test_yacht_plays_as_openspiel_with_equal_returns(players: int) -> None:
    for seed in range(3):
        ours, theirs = play_both("yacht.yaml", "yacht", players, seed, yacht_roll,
                                 same=same_yacht_sheets)
        assert ours == theirs


@pytest.mark.parametrize("faces", [[2, 3, 3, 2, 3], [4, 4, 4, 4, 4], [5, 1, 3, 2, 4],
                                   [6, 2, 3, 5, 4], [6, 6, 1, 6, 6], [1, 1, 1, 2, 6],
                                   [3, 3, 5, 5, 1]])
def test_yacht_scores_every_category_as_openspiel(faces: list[int]) -> None:
    game = load("yacht.yaml", ())
    spiel = pyspiel.load_game("yacht")
    roll = sum((f - 1) * 6 ** k for k, f in enumerate(faces))

    def kept() -> tuple[Any, Any]:
        st, sp = game.new_game(players=2, seed=0), spiel.new_initial_state()
        st.resolve_chance({f"d{i}": f for i, f in enumerate(faces)})
        sp.apply_action(roll)
        st.apply("Keep all (proceed to scoring)")
        sp.apply_action(0)  # OpenSpiel's "Keep all (proceed to scoring)"
        return st, sp

    st, sp = kept()
    scoring = {sp.action_to_string(a): a for a in sp.legal_actions()}
    assert sorted(a.label for a in st.legal_actions()) == sorted(scoring)
    assert len(scoring) == 12
    for label, action in scoring.items():
        st, sp = kept()
        st.apply(label)
        sp.apply_action(action)
        same_yacht_sheets(st, sp)


@pytest.mark.parametrize("numdice", [5, 2])
def test_liars_dice_plays_as_openspiel_with_equal_returns(numdice: int) -> None:
    # OpenSpiel rolls die by die, player 0's first; the YAML game rolls a player's cup at once
    for seed in range(15):
        ours, theirs = play_both("liars-dice.yaml", "liars_dice", 2, seed,
                                 lambda st, text, a: {f"d{i + 1}": x + 1 for i, x in enumerate(a)},
                                 {"numdice": numdice}, {"numdice": numdice},
                                 dice_per_roll=numdice)
        assert ours == theirs
