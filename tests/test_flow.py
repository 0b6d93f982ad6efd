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
