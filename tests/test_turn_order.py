"""Turn order and repetition on small games written for the purpose: `repeat` with its
conditions, cap and `break`; `next_player` for extra turns and a winner who leads; and
what `active`, `turn`, `round`, `reset: turn` and `finish: round` mean then."""

from __future__ import annotations

import pytest
from test_cli import run

import rulekit
from rulekit.errors import GameFileError

# a push-your-luck turn: roll until you stop or roll a 1; a 6 gives an extra turn
PUSH = """
name: Push
players: {min: 2, max: 4}
vars:
  banked: {per: player, init: 0}
  gathered: {init: 0, reset: turn}
  rolls: {init: 0, reset: turn}
  rounds_seen: {per: player, init: 0}
components:
  die: {kind: dice, dice: {d: 6}}
flow:
  turn:
    - set: {active.rounds_seen: round}
    - repeat: {max: 3, until: "gathered >= 10"}
      do:
        - roll: die
        - add: {rolls: 1}
        - if: "die.d == 1"
          then: [{set: {gathered: 0}}, {break: true}]
          else: [{add: {gathered: die.d}}]
        - choose:
            options:
              - {label: stop, do: [{break: true}]}
              - {label: again}
    - add: {active.banked: gathered}
    - if: "die.d == 6"
      then: [{next_player: active}]
end:
  when: "max(p.banked for p in players) >= 30"
  finish: round
score: player.banked
"""


def load(tmp_path, text: str, name: str = "g.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return rulekit.load_game(path)


def script(st, *moves) -> None:
    """Scripted moves: a number is the die's face for the roll due, text a decision."""
    for move in moves:
        if isinstance(move, int):
            st.resolve_chance({"d": move})
        else:
            st.apply(move)


def test_repeat_goes_on_until_a_choice_stops_it(tmp_path):
    st = load(tmp_path, PUSH).new_game(players=2, seed=0)
    script(st, 3, "again", 4, "stop")
    assert st.view()["player_vars"][0]["banked"] == 7
    assert st.active_player == 1 and st.turn == 2 and st.is_chance


def test_break_on_a_bust_skips_the_rest_of_the_round(tmp_path):
    st = load(tmp_path, PUSH).new_game(players=2, seed=0)
    script(st, 5, "again", 1)  # a 1: the choice of this round is never asked
    assert st.view()["player_vars"][0]["banked"] == 0
    assert st.active_player == 1 and st.is_chance


def test_until_and_max_end_the_repeat_after_a_round(tmp_path):
    st = load(tmp_path, PUSH).new_game(players=2, seed=0)
    script(st, 5, "again", 5, "again")  # 10 gathered: `until` holds, no third roll
    assert st.view()["player_vars"][0]["banked"] == 10 and st.active_player == 1
    script(st, 2, "again", 2, "again", 2, "again")  # three rounds at most, however often
    assert st.view()["player_vars"][1]["banked"] == 6 and st.active_player == 0
    assert st.view()["vars"]["rolls"] == 0  # reset: turn


def test_an_extra_turn_is_a_new_turn_of_the_same_player_in_the_same_round(tmp_path):
    st = load(tmp_path, PUSH).new_game(players=2, seed=0)
    script(st, 6, "stop")  # a 6 last: player 0 plays again
    assert (st.active_player, st.turn, st.view()["vars"]["gathered"]) == (0, 2, 0)
    script(st, 2, "stop")
    assert (st.active_player, st.turn) == (1, 3)
    script(st, 3, "stop")
    assert (st.active_player, st.turn) == (0, 4)
    # `round` counted passes of the start player: player 0's extra turn was in round 1
    assert [p["rounds_seen"] for p in st.view()["player_vars"]] == [2, 1]


def test_finish_round_lets_the_round_end_after_an_extra_turn(tmp_path):
    st = load(tmp_path, PUSH).new_game(players=3, seed=0)
    script(st, 5, "again", 5, "again", 1, 1)  # round 1: player 0 banks 10, two busts
    assert st.active_player == 0
    script(st, 5, "again", 5, "again", 1, 1)  # round 2 alike: 20
    # round 3: player 0 reaches 30 with a 6 last, so the extra turn comes first; the round
    # still goes on to players 1 and 2 and then the game is over
    script(st, 4, "again", 6, "again")
    assert st.view()["player_vars"][0]["banked"] == 30 and not st.is_over
    assert st.active_player == 0
    script(st, 1, 1)
    assert st.active_player == 2
    script(st, 1)
    assert st.is_over and st.turn == 10 and st.scores() == [30, 0, 0]


LEAD = """
name: Lead
players: {min: 3, max: 3}
vars:
  wins: {per: player, init: 0}
  leads: {per: player, init: 0}
  last_round: {init: 0}
flow:
  turn:
    - add: {active.leads: 1}
    - set: {last_round: round}
    - choose:
        options:
          - for: "p in players"
            label: "lead {p.seat}"
            do: [{next_player: p}]
          - {label: "next", do: [{next_player: "(active.seat + 1) % player_count"}]}
end:
  when: "turn >= 7"
score: player.leads
"""


def test_next_player_lets_a_chosen_player_lead_and_rounds_follow_the_start_player(tmp_path):
    st = load(tmp_path, LEAD).new_game(players=3, seed=0)
    seen = []
    for label in ("lead 2", "lead 1", "next", "lead 1", "lead 1", "next"):
        seen.append((st.active_player, st.view()["vars"]["last_round"]))
        st.apply(label)
    # 0 -> 2 passes no start player; 2 -> 1 passes seat 0: round 2; 1 -> 2 (next);
    # 2 -> 1 passes seat 0 again: round 3; 1 -> 1 is an extra turn
    assert seen == [(0, 1), (2, 1), (1, 2), (2, 2), (1, 3), (1, 3)]
    assert st.is_over


def test_play_names_the_player_whose_turn_it_is(tmp_path):
    path = tmp_path / "lead.yaml"
    path.write_text(LEAD)
    result = run("play", str(path), "--bots", "random", "--players", "3", "--seed", "1",
                 "--no-color",
                 input="=lead 0\n=lead 0\n=lead 2\n")
    assert result.exit_code == 0, result.output
    heads = [line.split(":")[1].split("(")[0].strip() for line in result.output.splitlines()
             if line.startswith("--- turn ")]
    # the person leads twice more, then hands the lead to player 2
    assert heads[:4] == ["player 0", "player 0", "player 0", "player 2"]


@pytest.mark.parametrize("step, message", [
    ("- break: true", "`break` is not inside a `repeat`"),
    ("- repeat: {max: 3, forever: true}\n      do: [{say: x}]", "unknown key 'forever'"),
    ("- repeat: {until: '3'}\n      do: [{say: x}]", "bool"),
    ("- next_player: \"'left'\"", "`next_player` takes a player or a seat"),
])
def test_mistakes_in_the_new_steps_are_located(tmp_path, step, message):
    text = f"""name: Bad
players: {{min: 2, max: 2}}
flow:
  turn:
    {step}
end:
  when: "turn > 3"
score: 0
"""
    with pytest.raises(GameFileError) as err:
        load(tmp_path, text)
    assert message in str(err.value)
    assert "g.yaml:5:" in str(err.value)


def test_a_break_in_a_procedure_run_outside_a_repeat_stops_with_its_place(tmp_path):
    text = """name: Bad
players: {min: 2, max: 2}
flow:
  turn:
    - run: quit
  procedures:
    quit: [{say: bye}, {break: true}]
end:
  when: "turn > 3"
score: 0
"""
    with pytest.raises(rulekit.errors.FlowError, match=r"g\.yaml:7:.*outside a `repeat`"):
        load(tmp_path, text).new_game(players=2, seed=0)


ENDS_MIDWAY = """
name: Midway
players: {{min: 2, max: 2}}
vars:
  points: {{per: player, init: 0}}
flow:
  turn:
    - choose:
        options:
          - label: take
            do:
              - add: {{active.points: 10}}
              - add: {{active.points: 5}}
end:
  when: "max(p.points for p in players) >= 10"
  {check}
score: player.points
"""


@pytest.mark.parametrize("check, points", [("", 15), ("check: steps", 15),
                                           ("check: effects", 10)])
def test_the_end_may_be_checked_between_the_steps_of_an_action(tmp_path, check, points):
    st = load(tmp_path, ENDS_MIDWAY.format(check=check)).new_game(players=2, seed=0)
    st.apply("take")
    assert st.is_over and st.scores() == [points, 0]


@pytest.mark.parametrize("repeat, error, message", [
    # a loop that never stops by itself meets the game's step budget, at its own place
    ('{max: 1000000000}', rulekit.errors.EndlessFlowError,
     r"g\.yaml:\d+:\d+: the game did not end"),
    ('{until: "1 // (turn - 1) == 0"}', rulekit.errors.FlowError,
     r"g\.yaml:6:7: a step failed while the game ran: ZeroDivisionError"),
])
def test_a_runaway_or_broken_repeat_stops_with_its_place(tmp_path, repeat, error, message):
    text = f"""name: Loop
players: {{min: 1, max: 1}}
vars: {{n: {{init: 0}}}}
flow:
  turn:
    - repeat: {repeat}
      do: [{{add: {{n: 1}}}}]
end: {{when: "turn > 3"}}
score: n
"""
    with pytest.raises(error, match=message):
        load(tmp_path, text).new_game(players=1, seed=0)
