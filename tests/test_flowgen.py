"""The generated turns: a playout to the end plays the game the machine of frames plays,
with the same budgets, and fails where the machine fails, with the same message."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulekit
from rulekit.backends import flowgen
from rulekit.bots import RandomAgent
from rulekit.errors import FlowError
from rulekit.studies.play import _play as study_play

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for p in [*(ROOT / "games").glob("*.yaml"),
                           *(ROOT / "games" / "examples").glob("*.yaml")]
               if ".tests." not in p.name)
PLAYERS = {"qwixx": 3, "levelx": 2, "domino7": 4}


def load(path: Path, turns: bool) -> rulekit.Game:
    old = flowgen.ENABLED
    flowgen.ENABLED = turns
    try:
        return rulekit.load_game(path)
    finally:
        flowgen.ENABLED = old


def outcome(state: rulekit.State, made: int) -> tuple:
    """Everything a playout leaves that a caller or the next call could tell apart."""
    return (made, state.log, state.scores(), state.end_reason, state.turn, state.round,
            state.active, state.view(None), state._steps_left, state._work_left,
            state._log_chars)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_generated_turns_play_the_games_of_the_machine(path: Path) -> None:
    fast, slow = load(path, True), load(path, False)
    assert fast.turns is not None and slow.turns is None
    players = PLAYERS.get(path.stem.split("-")[0], fast.min_players)
    for seed in range(8):
        a, b = fast.new_game(players=players, seed=seed), slow.new_game(players=players,
                                                                          seed=seed)
        ra, rb = random.Random(seed), random.Random(seed)
        assert outcome(a, a.playout(ra)) == outcome(b, b.playout(rb)), seed
        assert ra.random() == rb.random()  # the same draws from the playout's RNG


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_playout_from_a_copy_in_mid_game_plays_the_same(path: Path) -> None:
    """A search plays out clones and determinized copies, often with a window of
    simultaneous decisions half decided: the generated turns take over at the next turn."""
    fast, slow = load(path, True), load(path, False)
    players = PLAYERS.get(path.stem.split("-")[0], fast.min_players)
    for seed in range(3):
        starts = []
        for game in (fast, slow):
            s = game.new_game(players=players, seed=seed)
            s.playout(random.Random(seed), decisions=seed + 4)
            starts.append(s)
        if starts[0].is_over:
            continue
        seat = starts[0].current_player or 0
        for copy in ([s.clone() for s in starts],
                     [s.determinize(seat, random.Random(seed)) for s in starts]):
            made = [s.playout(random.Random(seed + 1)) for s in copy]
            assert outcome(copy[0], made[0]) == outcome(copy[1], made[1]), seed


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "g.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def failure(path: Path, turns: bool) -> str:
    state = load(path, turns).new_game(players=2, seed=1)
    with pytest.raises(FlowError) as err:
        state.playout(random.Random(1))
    return str(err.value)


#: a turn's decision of the active player: take 1 or 2 (each adds 1 to n)
TAKE = """\
    - choose:
        who: active
        options:
          - for: "k in [1, 2]"
            label: "take {k}"
            do: [{add: {n: 1}}]
"""

HEAD = """\
name: T
players: {min: 2, max: 2}
vars:
  n: {init: 0}
"""

FAILING = {
    # an expression fails in the fourth turn, in a step and in an action's effects: the
    # message names the step
    "division in a step": HEAD + """\
flow:
  turn:
    - add: {n: 1}
    - if: "12 // (4 - n) > 100"
      then: [{say: "big"}]
    - choose:
        who: active
        options:
          - for: "k in [1, 2]"
            label: "take {k}"
            do: [{add: {n: 0}}]
end: {when: {done: "n > 100"}}
score: "0"
""",
    "division in an action": HEAD + """\
flow:
  turn:
    - add: {n: 1}
    - choose:
        who: active
        options:
          - for: "k in [1, 2]"
            label: "take {k}"
            do:
              - say: "took {k}"
              - add: {n: "12 // (4 - n) - 12 // (4 - n)"}
end: {when: {done: "n > 100"}}
score: "0"
""",
    # a procedure that runs itself: blocks nest too deep
    "recursion": HEAD + """\
flow:
  procedures:
    again:
      - choose:
          who: active
          options:
            - for: "k in [1, 2]"
              label: "take {k}"
              do: [{add: {n: 1}}]
      - run: again
  turn:
""" + TAKE + """\
    - if: "turn > 2"
      then: [{run: again}]
end: {when: {done: "n < 0"}}
score: "0"
""",
    # a game that never ends: the step budget
    "endless": HEAD + """\
flow:
  turn:
""" + TAKE + """\
end: {when: {done: "n < 0"}}
score: "0"
""",
    # `break` outside a `repeat`
    "break": HEAD + """\
flow:
  procedures:
    stop: [{break: true}]
  turn:
""" + TAKE + """\
    - if: "n > 5"
      then: [{run: stop}]
end: {when: {done: "n > 100"}}
score: "0"
""",
    # no legal option and no `none:`
    "no option": HEAD + """\
flow:
  turn:
    - choose:
        who: active
        options:
          - for: "k in [1, 2]"
            if: "n < 6"
            label: "take {k}"
            do: [{add: {n: 1}}]
end: {when: {done: "n > 100"}}
score: "0"
""",
}


@pytest.mark.parametrize("name", FAILING)
def test_a_failing_game_fails_alike_in_the_generated_turns(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, FAILING[name])
    message = failure(path, True)
    assert message == failure(path, False)
    assert "g.yaml:" in message


def test_a_repeat_with_a_break_plays_the_same(tmp_path: Path) -> None:
    """Roll until you stop or bust: `repeat` with `until`, `max` and a `break` in a
    procedure, a decision inside the loop and a chance step in it."""
    path = write(tmp_path, HEAD + """\
components:
  die: {kind: dice, dice: {d: 6}}
flow:
  procedures:
    bust: [{break: true}]
  turn:
    - repeat: {max: 6, until: "n > 40"}
      do:
        - roll: die
        - if: "die.d == 1"
          then: [{run: bust}]
        - choose:
            who: active
            options:
              - for: "k in [1, 2]"
                label: "take {k}"
                do: [{add: {n: "k * die.d"}}]
              - for: "k in [0]"
                label: "stop"
                do: [{run: bust}]
end: {when: {done: "n > 60"}}
score: "n"
""")
    fast, slow = load(path, True), load(path, False)
    for seed in range(10):
        a, b = fast.new_game(players=2, seed=seed), slow.new_game(players=2, seed=seed)
        assert outcome(a, a.playout(random.Random(seed))) == outcome(
            b, b.playout(random.Random(seed))), seed


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_playout_of_some_decisions_stops_where_the_machine_stops(path: Path) -> None:
    """A search's playouts stop after a few decisions: the generated turns play only the
    turns the playout cannot stop within, so it stops at the same pause (a decision or a
    chance step after its last decision) and the game goes on from there alike."""
    fast, slow = load(path, True), load(path, False)
    players = PLAYERS.get(path.stem.split("-")[0], fast.min_players)
    for seed in range(3):
        a, b = fast.new_game(players=players, seed=seed), slow.new_game(players=players,
                                                                          seed=seed)
        ra, rb = random.Random(seed), random.Random(seed)
        for cap in (1, 2, 3, 5, 8, 13, 21):
            assert outcome(a, a.playout(ra, cap)) == outcome(b, b.playout(rb, cap)), seed
            assert (a.is_chance, a.current_player) == (b.is_chance, b.current_player)
        assert outcome(a, a.playout(ra)) == outcome(b, b.playout(rb)), seed


def test_a_turn_is_bounded_by_the_decisions_it_can_ask() -> None:
    """Qwixx's turn asks every player once and the active player once more; Level X's
    one decision; a turn whose decisions come in a loop has no bound."""
    qwixx = rulekit.load_game(ROOT / "games" / "qwixx.yaml")
    assert qwixx.turn_bounds[3][0][0] == 4 and qwixx.turn_bounds[5][0][0] == 6
    assert qwixx.turn_bounds[3][0][-1] == 0
    assert rulekit.load_game(ROOT / "games" / "levelx.yaml").turn_bounds[2][0][0] == 1
    pig = rulekit.load_game(ROOT / "games" / "examples" / "pig.yaml")
    assert pig.turn_bounds[2][0][0] == flowgen.UNBOUNDED


class _ApiRandom(RandomAgent):
    """A random bot the study does not recognise: it plays through the API, a call per move."""


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_study_of_random_bots_plays_the_games_of_their_choose(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`simulate` with random bots only plays on the fast path of random play: the games,
    decisions and options counted are those of `rng.choice(legal_actions())` per move."""
    fast_path = []
    playout = rulekit.State._playout
    monkeypatch.setattr(rulekit.State, "_playout",
                        lambda st, *args, **kw: fast_path.append(1) or playout(st, *args, **kw))
    game = rulekit.load_game(path)
    players = PLAYERS.get(path.stem.split("-")[0], game.min_players)
    for seed in range(4):
        runs = []
        for bot in (RandomAgent, _ApiRandom):
            state = game.new_game(players=players, seed=seed)
            counts = study_play(state, [bot() for _ in range(players)], random.Random(seed))
            runs.append((counts, state.log, state.scores(), state.end_reason, state.turn))
        assert runs[0] == runs[1], seed
        assert runs[0][0][1] >= runs[0][0][0] > 0  # options summed, decisions
    assert len(fast_path) == 4  # the random bots' games, not the others'


# every part of the flow the shipped games leave out: phases that end, `together` whose
# choices run as frames (`check: effects`), a decision inside an action, `next_player`,
# `reset: turn`, a trigger, `finish: round`
MIXED = """\
name: Mixed
players: {min: 2, max: 4}
vars:
  points: {per: player, init: 0}
  gathered: {per: player, init: 0}
  moved: {init: 0, reset: turn}
  bonus: {init: 0}
components:
  die: {kind: dice, dice: {d: 6}}
flow:
  phases:
    - name: gather
      turn:
        - roll: die
        - together:
            who: everyone
            pass: rest
            options:
              - for: "k in [1, die.d]"
                label: "gather {k}"
                do:
                  - add: {player.gathered: k}
                  - add: {moved: 1}
      until: "turn >= 2 * player_count"
    - name: spend
      turn:
        - roll: die
        - choose:
            who: active
            options:
              - for: "k in range(1, min(active.gathered, 3) + 1)"
                label: "spend {k}"
                do:
                  - add: {active.gathered: "-k"}
                  - add: {active.points: "k * die.d"}
                  - choose:
                      who: active
                      options:
                        - label: "again"
                          do: [{next_player: active}]
                        - label: "pass on"
            none:
              - add: {active.points: 1}
        - if: "die.d == 6"
          then: [{next_player: "(active.seat + 2) % player_count"}]
triggers:
  - when: "sum(p.points for p in players) > 10 * (bonus + 1)"
    do: [{add: {bonus: 1}}]
end:
  when: "max(p.points for p in players) >= 40 or bonus >= 4"
  finish: round
  check: effects
score: player.points
"""


@pytest.mark.parametrize("players", [2, 3, 4])
def test_phases_windows_of_frames_nested_decisions_and_extra_turns_play_the_same(
        tmp_path: Path, players: int) -> None:
    path = write(tmp_path, MIXED)
    fast, slow = load(path, True), load(path, False)
    assert fast.turns is not None
    for seed in range(12):
        a, b = fast.new_game(players=players, seed=seed), slow.new_game(players=players,
                                                                          seed=seed)
        ra, rb = random.Random(seed), random.Random(seed)
        assert outcome(a, a.playout(ra, 9)) == outcome(b, b.playout(rb, 9)), seed
        assert outcome(a, a.playout(ra)) == outcome(b, b.playout(rb)), seed
        assert a.is_over and a.phase == 1


@pytest.mark.parametrize("name", ["PUSH", "LEAD"])
def test_the_turn_order_games_play_the_same(tmp_path: Path, name: str) -> None:
    """Push your luck with `repeat`, `break` and an extra turn on a 6; a winner who leads."""
    import test_turn_order

    path = write(tmp_path, getattr(test_turn_order, name))
    fast, slow = load(path, True), load(path, False)
    players = fast.max_players
    for seed in range(10):
        a, b = fast.new_game(players=players, seed=seed), slow.new_game(players=players,
                                                                          seed=seed)
        ra, rb = random.Random(seed), random.Random(seed)
        assert outcome(a, a.playout(ra)) == outcome(b, b.playout(rb)), seed


EMPTY_PROCEDURE = """\
name: Empty procedure
players: {min: 2, max: 2}
vars:
  n: {init: 0}
components:
  dice: {kind: dice, dice: {d1: 6}}
flow:
  procedures:
    outer:                   # runs a procedure not read yet: a `run:` step of its own
      - run: later
    later: []                # a placeholder: nothing to do yet
  turn:
    - roll: dice
    - run: outer
    - add: {n: "dice.d1"}
end:
  when: {done: "turn > 5"}
score: n
"""


def test_a_procedure_without_steps_runs_as_a_step_that_does_nothing(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text(EMPTY_PROCEDURE, encoding="utf-8")
    fast, slow = load(path, True), load(path, False)
    assert fast.turns is not None
    for seed in range(3):
        a, b = fast.new_game(players=2, seed=seed), slow.new_game(players=2, seed=seed)
        assert outcome(a, a.playout(random.Random(seed))) == outcome(
            b, b.playout(random.Random(seed)))
        rolls = [e["outcome"]["d1"] for e in a.log if e.get("chance") == "roll"]
        assert a.is_over and a.scores()[0] == sum(rolls[:5])  # one roll a turn, 5 turns
