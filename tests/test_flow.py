"""The flow machine on small games written for the purpose: phases, rounds, the end."""

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
