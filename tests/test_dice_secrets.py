"""Dice beyond rolling all of them together, and secrets: keep some dice and re-roll the
rest, sides from a param, a die removed and returned, a player's own dice chosen by an
expression, dice and variables only their owner sees (in `view(seat)`, in `rulekit play`,
in a bot's look-ahead copy), and display lines for one player alone."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_cli import run

import rulekit
from rulekit.bots import GreedyAgent
from rulekit.errors import ChanceError, GameFileError

EXAMPLES = Path(__file__).resolve().parent.parent / "games" / "examples"
LIARS = EXAMPLES / "liars-dice.yaml"
YACHT = EXAMPLES / "yacht.yaml"

FIVE = {"d1": 2, "d2": 6, "d3": 3, "d4": 6, "d5": 1}
OTHER = {"d1": 4, "d2": 4, "d3": 5, "d4": 1, "d5": 2}


def liars(first: dict = FIVE, second: dict = OTHER, **params) -> rulekit.State:
    st = rulekit.load_game(LIARS, overrides=params).new_game(players=2, seed=3)
    st.resolve_chance(first)
    st.resolve_chance(second)
    return st


def test_only_the_named_dice_are_rolled_and_the_others_keep_their_faces():
    st = rulekit.load_game(YACHT).new_game(players=2, seed=0)
    st.resolve_chance({"d0": 1, "d1": 2, "d2": 3, "d3": 4, "d4": 5})
    st.apply("Reroll dice: 1,4")
    with pytest.raises(ChanceError, match="exactly d1, d4"):
        st.resolve_chance({"d0": 6, "d1": 6, "d2": 6, "d3": 6, "d4": 6})
    st.resolve_chance({"d1": 6, "d4": 6})
    assert st.view()["components"]["dice"] == {"d0": 1, "d1": 6, "d2": 3, "d3": 4, "d4": 6}
    st.apply("Reroll dice: 0,1,2,3,4")  # the third roll: all five again
    st.resolve_chance({"d0": 5, "d1": 5, "d2": 5, "d3": 5, "d4": 5})
    labels = [a.label for a in st.legal_actions()]
    assert len(labels) == 12 and "Score in Yacht" in labels  # three rolls: score now
    st.apply("Score in Yacht")
    assert st.view()["player_vars"][0]["yacht"] == 50


def test_sides_come_from_a_param():
    low = {"d1": 4, "d2": 4, "d3": 1, "d4": 2, "d5": 3}
    st = liars(low, low, dice_sides=4)
    labels = [a.label for a in st.legal_actions()]
    assert labels[:5] == ["1-1", "1-2", "1-3", "1-4", "2-1"] and len(labels) == 40
    game = rulekit.load_game(LIARS, overrides={"dice_sides": 4})
    with pytest.raises(ChanceError, match="d1 shows 1 to 4, not 5"):
        game.new_game(players=2, seed=0).resolve_chance({**FIVE, "d1": 5})


def test_fewer_dice_leave_the_game_and_a_removed_die_can_return(tmp_path):
    st = rulekit.load_game(LIARS, overrides={"numdice": 2}).new_game(players=2, seed=0)
    st.resolve_chance({"d1": 6, "d2": 6})
    st.resolve_chance({"d1": 2, "d2": 3})
    assert st.view()["components"]["cup"][0] == {"d1": 6, "d2": 6, "d3": None, "d4": None,
                                                 "d5": None, "count": 2}
    assert [a.label for a in st.legal_actions()][-1] == "4-6"  # four dice in all
    path = tmp_path / "back.yaml"
    path.write_text("""name: Back
players: {min: 1, max: 1}
components:
  dice: {kind: dice, dice: {a: 6, b: 6}}
flow:
  setup: [{remove_die: {dice: dice, die: "'b'"}}]
  turn:
    - roll: dice
    - if: "dice.a == 6"
      then: [{return_die: {dice: dice, die: "dice.removed[0]"}}]
end: {when: "len(dice.names) == 2 or turn >= 3"}
score: "sum(dice.faces)"
""")
    st = rulekit.load_game(path).new_game(players=1, seed=0)
    st.resolve_chance({"a": 3})  # b is out of the game: not rolled
    assert st.scores() == [3]  # and its face is not among the faces
    st.resolve_chance({"a": 6})  # a six brings b back
    assert st.is_over and st.view()["components"]["dice"] == {"a": 6, "b": 1}


def test_a_players_secret_dice_are_seen_by_that_player_alone():
    st = liars()
    mine, theirs = st.view(0)["components"]["cup"]
    assert mine == {**FIVE, "count": 5}
    assert theirs == {"d1": None, "d2": None, "d3": None, "d4": None, "d5": None, "count": 5}
    assert st.view(1)["components"]["cup"][1] == {**OTHER, "count": 5}
    assert st.view()["components"]["cup"][1] == {**OTHER, "count": 5}  # an observer
    # nothing of the other cup leaks into what seat 0 may read
    assert "4, 4, 5" not in json.dumps(st.view(0)) and "hidden" in st.render(0)


def test_a_bots_look_ahead_copy_rolls_the_other_cup_anew_and_keeps_its_own():
    st = liars()
    others = set()
    for k in range(20):
        copy = st.determinize(0, random.Random(k))
        assert copy.view()["components"]["cup"][0] == {**FIVE, "count": 5}
        others.add(json.dumps(copy.view()["components"]["cup"][1]))
        # the copy's log keeps no outcome of a secret roll
        assert all("outcome" not in e for e in copy.log if e.get("chance") == "roll")
    assert len(others) > 10
    # two positions seat 0 cannot tell apart give the greedy bot the same move
    twin = liars(second={"d1": 6, "d2": 6, "d3": 6, "d4": 6, "d5": 6})
    for state in (st, twin):
        state.apply("2-6")
        state.apply("3-6")
    moves = {GreedyAgent().choose(s, random.Random(1)).label for s in (st, twin)}
    assert len(moves) == 1


def test_play_never_shows_the_other_players_dice_before_the_end():
    result = run("play", str(LIARS), "--bots", "random", "--seed", "5", "--no-color",
                 input="=1-1\n=Liar\n")
    assert result.exit_code == 0, result.output
    before_end = result.output.split("calls liar")[0]
    assert "cup: 5 dice (hidden)" in before_end
    assert before_end.count("cup: d1") == before_end.count("your cup: d1") > 0
    assert "roll: done (hidden)" in before_end


SECRET = """
name: Secret goals
players: {min: 2, max: 2}
vars:
  goal: {per: player, init: 0, secret: true}
  shown: {per: player, init: 0}
flow:
  setup:
    - for: "p in players"
      do: [{set: {p.goal: "7 + 2 * p.seat"}}]
  turn:
    - add: {active.shown: 1}
end: {when: "turn > 2"}
score: "player.shown"
display:
  player: "moves: {player.shown}"
  private: "your goal: {player.goal}"
"""


def test_a_secret_variable_and_a_private_line_are_for_their_owner_alone(tmp_path):
    path = tmp_path / "secret.yaml"
    path.write_text(SECRET)
    st = rulekit.load_game(path).new_game(players=2, seed=0)
    assert [p["goal"] for p in st.view(0)["player_vars"]] == [7, None]
    assert [p["goal"] for p in st.view(1)["player_vars"]] == [None, 9]
    assert [p["goal"] for p in st.view()["player_vars"]] == [7, 9]
    assert [p["shown"] for p in st.view(0)["player_vars"]] == [1, 1]  # not secret
    picture = st.render(0)
    assert "your goal: 7" in picture and "goal: 9" not in picture
    assert picture.count("moves: ") == 2
    assert "your goal: 9" in st.render(1) and "your goal: 7" not in st.render(1)


def test_a_bots_look_ahead_copy_never_holds_another_players_secret_variable(tmp_path):
    path = tmp_path / "secret.yaml"
    path.write_text(SECRET)
    game = rulekit.load_game(path)
    st = game.new_game(players=2, seed=0)
    other = st.clone()
    other.pvars[1]["goal"] = 1000  # a position seat 0 cannot tell apart from st
    assert st.view(0) == other.view(0)
    a, b = st.determinize(0, random.Random(4)), other.determinize(0, random.Random(4))
    assert a.pvars == b.pvars
    assert [p["goal"] for p in a.pvars] == [7, 0]  # its own kept, the other's unknown
    assert st.pvars[1]["goal"] == 9  # the game itself is untouched


@pytest.mark.parametrize("text, message", [
    ("vars: {goal: {init: 0, secret: true}}\n", "only a player's variable can be secret"),
    ("components: {dice: {kind: dice, secret: true, dice: {a: 6}}}\n",
     "only dice that are `per: player` can be secret"),
    ("components: {dice: {kind: dice, dice: {a: params.sides}}}\n"
     "params: {sides: {type: int, default: 2000}}\n", "die 'a' would have 2000 sides"),
    ("components: {cup: {kind: dice, per: player, dice: {a: 6}}}\n", "say whose is meant"),
    ("components: {cup: {kind: dice, per: player, dice: {a: 6}}}\n"
     "vars: {x: {init: 0}}\n", "`roll` needs Dice as dice"),
])
def test_mistakes_with_dice_and_secrets_are_located(tmp_path, text, message):
    roll = "{dice: x}" if "vars: {x" in text else "cup" if "cup" in text else "dice"
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: Bad\nplayers: {{min: 2, max: 2}}\n{text}"
                    f"flow:\n  turn: [{{roll: {roll}}}]\nend: {{when: 'turn > 2'}}\nscore: 0\n")
    with pytest.raises(GameFileError) as err:
        rulekit.load_game(path)
    assert message in str(err.value) and "bad.yaml:" in str(err.value)


def test_the_dice_a_roll_or_an_effect_acts_on_may_come_from_an_expression(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text("""name: Two sets
players: {min: 1, max: 1}
vars:
  total: {init: 0}
components:
  red: {kind: dice, dice: {a: 6, b: 6}}
  blue: {kind: dice, dice: {a: 6, b: 6}}
flow:
  turn:
    - roll: {dice: "red if turn % 2 == 1 else blue", only: "['a']"}
    - add: {total: "red.a + blue.a"}
    - remove_die: {dice: "blue if total > 6 else red", die: "'b'"}
end: {when: "turn > 5"}
score: total
""")
    st = rulekit.load_game(path).new_game(players=1, seed=0)
    st.resolve_chance({"a": 5})  # turn 1: red's a only
    assert st.view()["components"]["red"] == {"a": 5, "b": None}  # total 6: red loses b
    st.resolve_chance({"a": 4})  # turn 2: blue's a
    assert st.view()["components"]["blue"] == {"a": 4, "b": None}
    assert st.is_chance and st.scores() == [6 + 9]


@pytest.mark.parametrize("path", [YACHT, EXAMPLES.parent / "qwixx.yaml"], ids=["yacht", "qwixx"])
def test_a_roll_drawn_at_once_is_the_roll_sampled_then_applied(path):
    """`resolve_chance()` draws a roll and sets the dice in one pass: the same draws, the
    same outcome and the same dice as `sample_chance` followed by `resolve_chance(outcome)`,
    whether some dice are kept (a re-roll) or a die has left the game (a locked row)."""
    st = rulekit.load_game(path).new_game(players=2, seed=5)
    moves = random.Random(5)
    rolls = 0
    while not st.is_over:
        if st.is_chance:
            other = st.clone()
            rng = random.Random()
            rng.setstate(st.rng.getstate())
            outcome = st.resolve_chance()
            assert other.sample_chance(rng) == outcome
            assert rng.getstate() == st.rng.getstate()
            other.resolve_chance(outcome)
            assert other.view(None) == st.view(None)
            rolls += 1
        else:
            actions = st.legal_actions()
            st.apply(actions[moves.randrange(len(actions))])
    assert rolls > 10
