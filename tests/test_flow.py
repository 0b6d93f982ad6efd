"""The flow machine on small games written for the purpose: phases, rounds, the end."""

import random

import pytest

import rulekit

PHASED = """
name: Two phases
players: {min: 2, max: 3}
vars:
  gathered: {per: player, init: 0}
  spent: {per: player, init: 0}
flow:
  phases:
    - name: gather
      turn:
        - add: {active.gathered: 2}
      until: "turn >= 2 * player_count"   # two full rounds
    - name: spend
      turn:
        - choose:
            options:
              - for: "k in range(1, active.gathered - active.spent + 1)"
                label: "spend {k}"
                do:
                  - add: {active.spent: k}
            pass: pass
      until: "all(p.spent == p.gathered for p in players)"
score: "player.spent * 10 - player.gathered"
"""


def load(tmp_path, text, name="g.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return rulekit.load_game(path)


def test_phases_follow_each_other_and_the_last_one_ends_the_game(tmp_path):
    game = load(tmp_path, PHASED)
    s = game.new_game(players=2, seed=1)
    # two rounds of gathering happen by themselves; the spending phase asks
    assert s.turn == 5 and s.view()["phase"] == "spend"
    assert [p["gathered"] for p in s.view()["player_vars"]] == [4, 4]
    assert s.current_player == 0
    assert [a.label for a in s.legal_actions()] == ["spend 1", "spend 2", "spend 3",
                                                    "spend 4", "pass"]
    s.apply("spend 4")
    s.apply("spend 1")
    assert not s.is_over
    s.apply("pass")
    s.apply("spend 3")
    assert s.is_over and s.end_reason == "spend over"
    assert s.scores() == [36, 36]


def test_a_phase_without_until_before_others_is_unreachable(tmp_path):
    text = PHASED.replace('      until: "turn >= 2 * player_count"   # two full rounds\n', "")
    with pytest.raises(rulekit.GameFileError) as exc:
        load(tmp_path, text)
    (d,) = exc.value.diagnostics
    assert "gather" in d.message and "unreachable" in d.message and d.hint


def test_turn_and_phases_together_is_an_error(tmp_path):
    text = PHASED.replace("flow:\n", "flow:\n  turn: [{add: {active.spent: 1}}]\n")
    with pytest.raises(rulekit.GameFileError) as exc:
        load(tmp_path, text)
    assert any("either" in d.message for d in exc.value.diagnostics)


def test_round_counts_rounds_of_turns(tmp_path):
    text = PHASED.replace('"turn >= 2 * player_count"',
                          '"round >= 2 and active.seat == player_count - 1"')
    game = load(tmp_path, text)
    s = game.new_game(players=3, seed=1)
    assert s.turn == 7 and s.view()["phase"] == "spend"
    assert [p["gathered"] for p in s.view()["player_vars"]] == [4, 4, 4]


DEFINES = """
name: Defines
players: {min: 2, max: 2}
vars:
  x: {init: 1}
  seen: {init: 0}
  total: {per: player, init: 0}
define:
  double: "x * 2"
  quadruple: "double * 2"
  mine: {per: player, expr: "player.total + double"}
flow:
  turn:
    - add: {seen: "quadruple"}
    - add: {x: 1}
    - add: {seen: "quadruple * 100"}
    - add: {active.total: "active.mine"}
end:
  when: {done: "x >= 4"}
score: "player.total"
"""


def test_a_define_is_read_anew_after_every_change_it_depends_on(tmp_path):
    """Defines are computed once per change of the state, never served stale."""
    s = load(tmp_path, DEFINES).new_game(players=2, seed=0)
    assert s.is_over
    # turn 1: 4, x = 2, 800; turn 2: 8, x = 3, 1200; turn 3: 12, x = 4 ends the game
    assert s.view()["vars"] == {"x": 4, "seen": 4 + 800 + 8 + 1200 + 12}
    # player 0 (turn 1, x = 2): 0 + 4; player 1 (turn 2, x = 3): 0 + 6
    assert s.scores() == [4, 6]


# -- the turn, the round and who is active change as a turn begins: checks see it ----------

WAITING = """
name: Waiting
players: {min: 2, max: 3}
vars:
  moves: {init: 0}
  marks: {init: 0}
flow:
  turn:
    - "@FIRST@"
    - choose:
        options:
          - label: wait
            do: []
triggers:
  - when: "turn > marks"
    do: [add: {marks: 1}]
end:
  when: {long: "@END@"}
score: "0"
"""


def load_as(tmp_path, text, generated):
    """The game as generated code, or with every part as closures."""
    from rulekit.backends import codegen, flowgen, pysource

    old = codegen.ENABLED, pysource.FUNCTIONS, flowgen.ENABLED
    codegen.ENABLED = pysource.FUNCTIONS = flowgen.ENABLED = generated
    try:
        return load(tmp_path, text)
    finally:
        codegen.ENABLED, pysource.FUNCTIONS, flowgen.ENABLED = old


def waiting(tmp_path, first="{add: {moves: 1}}", end="turn > 3", trigger="turn > marks",
            generated=True):
    """A game whose only decision changes nothing; its turns begin with `first`."""
    text = WAITING.replace('"@FIRST@"', first).replace("@END@", end).replace(
        "turn > marks", trigger)
    return load_as(tmp_path, text, generated)


def played(game, players=2, playout=False):
    """A game played to its end: by `playout`, or by the API's first action each time."""
    s = game.new_game(players=players, seed=3)
    if playout:
        s.playout(random.Random(3))
    while not s.is_over:
        s.apply(s.legal_actions()[0])
    return s


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
@pytest.mark.parametrize("playout", [False, True], ids=["api", "playout"])
def test_an_end_on_the_turn_is_checked_as_the_turn_begins(tmp_path, generated, playout):
    """`turn > 3` ends the game as turn 4 begins, before its first step: three turns are
    played, whether or not a turn changes anything (a game of turns that change nothing
    once never ended), and a trigger on the turn fires as each turn begins."""
    for first in ("{add: {moves: 1}}", "{if: 'false', then: [add: {moves: 1}]}"):
        s = played(waiting(tmp_path, first, generated=generated), playout=playout)
        assert s.is_over and s.end_reason == "long" and s.turn == 4
        assert sum("action" in e for e in s.log) == 3
        assert s.view()["vars"] == {"moves": 3 if "if" not in first else 0, "marks": 4}


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_an_end_on_the_round_or_the_active_player_is_checked_as_the_turn_begins(
        tmp_path, generated):
    s = played(waiting(tmp_path, end="round > 2", generated=generated), players=3)
    assert s.round == 3 and s.turn == 7 and s.view()["vars"]["moves"] == 6
    s = played(waiting(tmp_path, end="turn > 2 and active.seat == 0", generated=generated),
               players=3)
    assert s.turn == 4 and s.active == 0 and s.view()["vars"]["moves"] == 3


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_a_failing_check_names_the_trigger_or_end_condition(tmp_path, generated):
    """A trigger or end condition that fails while the game runs is named with its place
    in the file, not the step before it (the checks run between steps, and as a turn
    begins, where there is no step)."""
    path = tmp_path / "g.yaml"
    game = waiting(tmp_path, end="100 // (3 - turn) < 0", generated=generated)
    s = game.new_game(players=2, seed=0)
    s.apply("wait")
    with pytest.raises(rulekit.FlowError) as info:
        s.apply("wait")  # turn 3 begins
    line = path.read_text().splitlines().index('  when: {long: "100 // (3 - turn) < 0"}') + 1
    assert str(info.value).startswith(f"{path}:{line}:")
    assert "the end condition 'long' failed while the game ran: ZeroDivisionError" in str(
        info.value)
    text = path.read_text().replace('"turn > marks"', '"marks // (turn - 2) >= 0"')
    path.write_text(text)
    s = load(tmp_path, text).new_game(players=2, seed=0)
    with pytest.raises(rulekit.FlowError) as info:
        s.apply("wait")  # turn 2 begins
    line = text.splitlines().index("  - when: \"marks // (turn - 2) >= 0\"") + 1
    assert str(info.value).startswith(f"{path}:{line}:")
    assert "a trigger failed while the game ran: ZeroDivisionError" in str(info.value)


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
def test_an_end_that_holds_from_the_start_ends_the_game_before_the_first_turn(
        tmp_path, generated):
    """Every check runs as the first turn begins, whatever it reads: a game whose end
    holds from the start is over before anything is played, even when no turn would
    change what the end reads."""
    s = played(waiting(tmp_path, "{if: 'false', then: [add: {moves: 1}]}", "moves >= 0",
                       trigger="false", generated=generated))
    assert s.is_over and s.end_reason == "long" and s.turn == 1
    assert not any("action" in e for e in s.log)


RESETS = """
name: Resets
players: {min: 2, max: 2}
vars:
  fresh: {per: player, init: true, reset: turn}
  flags: {init: 0}
flow:
  turn:
    - say: "flags {flags}"
    - choose:
        options:
          - label: wait
            do: [set: {active.fresh: false}]
triggers:
  - for: "p in players"
    when: "p.fresh"
    do: [set: {p.fresh: false}, add: {flags: 1}]
end:
  when: "flags >= 6"
score: "0"
"""


@pytest.mark.parametrize("generated", [True, False], ids=["generated", "closures"])
@pytest.mark.parametrize("playout", [False, True], ids=["api", "playout"])
def test_variables_a_turn_resets_are_checked_as_it_begins(tmp_path, generated, playout):
    """A turn's reset of `reset: turn` variables is a change the checks see before the
    turn's first step: the trigger on them fires as each turn begins, and the end it
    makes comes before the third turn's first step."""
    s = played(load_as(tmp_path, RESETS, generated), playout=playout)
    assert [e["say"] for e in s.log if "say" in e] == ["flags 2", "flags 4"]
    assert s.is_over and s.turn == 3 and s.view()["vars"]["flags"] == 6
