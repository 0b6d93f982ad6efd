"""Every Qwixx rule of docs/rules.md, driven through the public API with scripted dice."""

from pathlib import Path

import pytest

import rulekit

GAMES = Path(__file__).resolve().parent.parent / "games"
QWIXX = GAMES / "qwixx.yaml"


@pytest.fixture(scope="module")
def game():
    return rulekit.load_game(QWIXX)


def dice(w1, w2, red=1, yellow=1, green=1, blue=1, state=None):
    out = {"white1": w1, "white2": w2, "red": red, "yellow": yellow, "green": green, "blue": blue}
    if state is not None:
        names = state.view()["components"]["dice"]
        out = {k: v for k, v in out.items() if names[k] is not None or k not in names}
    return out


def labels(state):
    return sorted(a.label for a in state.legal_actions())


def play_turn(state, roll, action1, action2="pass"):
    """Roll, then each seat's action-1 choice (by seat), then the active player's action 2."""
    state.resolve_chance({k: v for k, v in roll.items() if k in _in_play(state)})
    n = state.view()["players"]
    for _ in range(n):
        if state.is_over:
            return
        seat = state.current_player
        state.apply(action1.get(seat, "pass"))
    if not state.is_over:
        state.apply(action2)


def _in_play(state):
    return [k for k, v in state.view()["components"]["dice"].items() if v is not None]


def sheet(state, seat):
    return state.view()["components"]["sheet"]["sheets"][seat]


def test_a_turn_starts_with_a_roll_of_all_six_dice(game):
    s = game.new_game(players=3, seed=1)
    assert s.is_chance and not s.is_over
    out = s.resolve_chance()
    assert set(out) == {"white1", "white2", "red", "yellow", "green", "blue"}


def test_action_one_offers_the_white_sum_in_every_row_to_everyone_from_the_active_player(game):
    s = game.new_game(players=3, seed=1)
    s.resolve_chance(dice(3, 4))
    for seat in (0, 1, 2):
        assert s.current_player == seat
        assert labels(s) == ["blue 7", "green 7", "pass", "red 7", "yellow 7"]
        s.apply("pass" if seat else "yellow 7")
    # action 2: the active player only; white + coloured, labelled by row and number
    assert s.current_player == 0
    assert "red 4" in labels(s) and "red 5" in labels(s)


def test_action_two_merges_dice_pairs_that_give_the_same_row_and_number(game):
    s = game.new_game(players=2, seed=1)
    s.resolve_chance(dice(3, 3, red=4, yellow=2, green=5, blue=6))
    s.apply("pass")
    s.apply("pass")
    assert labels(s) == ["blue 9", "green 8", "pass", "red 7", "yellow 5"]


def test_numbers_are_crossed_left_to_right_and_may_skip(game):
    s = game.new_game(players=2, seed=1)
    play_turn(s, dice(3, 4), {0: "red 7"})
    assert sheet(s, 0)["red"]["crossed"] == [7]
    s.resolve_chance(dice(2, 3))  # seat 1 is active now
    s.apply("pass")
    assert "red 5" not in labels(s)          # left of the rightmost cross
    assert "yellow 5" in labels(s)
    s.apply("pass")
    s.apply("pass")
    s.resolve_chance(dice(4, 5))
    assert "red 9" in labels(s)               # skipping 8 is allowed
    s.apply("red 9")
    assert sheet(s, 0)["red"]["crossed"] == [7]   # action 1 resolves after everyone decided
    s.apply("pass")
    assert sheet(s, 0)["red"]["crossed"] == [7, 9]


def test_green_and_blue_run_from_12_down(game):
    s = game.new_game(players=2, seed=1)
    play_turn(s, dice(5, 5), {0: "green 10"})
    s.resolve_chance(dice(6, 5))   # seat 1 is active and decides first
    s.apply("pass")
    assert s.current_player == 0
    assert "green 11" not in labels(s) and "blue 11" in labels(s)


def _five_reds(game, players=2, seat_crosses=(0,)):
    """A game where the given seats have crossed red 2, 3, 4, 5, 6 (seat 0 always active first)."""
    s = game.new_game(players=players, seed=3)
    for v in (2, 3, 4, 5, 6):
        w1, w2 = (1, v - 1)
        play_turn(s, dice(w1, w2), {seat: f"red {v}" for seat in seat_crosses})
        # play_turn made every seat with a cross skip its penalty; others may get penalties
    return s


def test_the_last_number_needs_five_crosses_in_the_row(game):
    s = game.new_game(players=2, seed=1)
    play_turn(s, dice(1, 1), {0: "red 2"})
    s.resolve_chance(dice(6, 6))
    assert "red 12" not in labels(s)
    s2 = _five_reds(game)
    s2.resolve_chance(dice(6, 6))   # seat 1 is active and decides first
    s2.apply("pass")
    assert s2.current_player == 0 and "red 12" in labels(s2)


def test_the_lock_parameter_changes_how_many_crosses_are_needed(game):
    g = rulekit.load_game(QWIXX, overrides={"min_crosses_to_lock": 1})
    s = g.new_game(players=2, seed=1)
    play_turn(s, dice(1, 1), {0: "red 2"})
    s.resolve_chance(dice(6, 6))
    s.apply("pass")   # seat 1, active
    assert "red 12" in labels(s)


def test_locking_counts_the_lock_as_a_cross_and_removes_the_die(game):
    s = _five_reds(game)
    n = s.turn
    s.resolve_chance(dice(6, 6))
    s.apply("pass")      # seat 1, active
    s.apply("red 12")    # seat 0
    s.apply("pass")      # seat 1's action 2
    row = sheet(s, 0)["red"]
    assert row["crossed"] == [2, 3, 4, 5, 6, 12]
    assert row["crosses"] == 7                       # six numbers and the lock
    assert s.view()["components"]["sheet"]["locked"] == ["red"]
    assert s.turn == n + 1 and s.is_chance
    # the red die has left the game: a roll names only the dice still in play
    with pytest.raises(rulekit.ChanceError):
        s.resolve_chance(dice(1, 2))
    out = s.resolve_chance()
    assert "red" not in out
    # nobody may cross red any more
    assert not any(lbl.startswith("red") for lbl in labels(s))


def test_several_players_may_lock_the_same_row_in_action_one(game):
    s = _five_reds(game, players=3, seat_crosses=(0, 1))
    assert s.active == 2
    s.resolve_chance(dice(6, 6))
    s.apply("pass")          # seat 2, the active player
    s.apply("red 12")        # seat 0 locks ...
    assert "red 12" in labels(s)   # ... but the lock takes effect after everyone decided
    s.apply("red 12")        # seat 1 locks too
    assert sheet(s, 0)["red"]["crosses"] == 7
    assert sheet(s, 1)["red"]["crosses"] == 7
    assert s.view()["components"]["sheet"]["locked"] == ["red"]
    # action 2 of the active player: red is no longer available
    assert not any(lbl.startswith("red") for lbl in labels(s))


def test_penalty_only_for_an_active_player_who_crossed_nothing(game):
    s = game.new_game(players=2, seed=1)
    play_turn(s, dice(3, 4), {1: "red 7"})           # seat 0 active, crosses nothing
    v = s.view()["player_vars"]
    assert v[0]["penalties"] == 1 and v[1]["penalties"] == 0
    play_turn(s, dice(3, 4), {})                     # seat 1 active, crosses nothing
    v = s.view()["player_vars"]
    assert v[0]["penalties"] == 1 and v[1]["penalties"] == 1
    play_turn(s, dice(3, 4), {0: "yellow 7"})        # action 1 is enough
    assert s.view()["player_vars"][0]["penalties"] == 1
    play_turn(s, dice(3, 4, blue=5), {}, "blue 9")   # action 2 is enough
    assert s.view()["player_vars"][1]["penalties"] == 1


def test_score_is_row_table_minus_five_per_penalty(game):
    s = game.new_game(players=2, seed=1)
    play_turn(s, dice(1, 1), {0: "red 2", 1: "yellow 2"})
    play_turn(s, dice(1, 2), {0: "red 3"}, "pass")      # seat 1 active: penalty
    assert s.scores() == [3, 1 - 5]


def test_game_ends_at_once_on_the_fourth_penalty(game):
    s = game.new_game(players=2, seed=1)
    for _ in range(3):
        play_turn(s, dice(3, 4), {})            # seat 0 penalised
        play_turn(s, dice(3, 4), {})            # seat 1 penalised
    assert s.view()["player_vars"][0]["penalties"] == 3
    play_turn(s, dice(3, 4), {})
    assert s.is_over and s.end_reason == "penalties"
    assert s.scores()[0] == -20
    assert s.winners() == [1]
    with pytest.raises(rulekit.IllegalActionError):
        s.legal_actions()


def test_game_ends_after_the_action_that_locks_the_second_row(game):
    s = game.new_game(players=2, seed=5)
    # seat 0 builds five reds and five yellows, one number per turn
    for v in (2, 3, 4, 5, 6):
        play_turn(s, dice(1, v - 1), {0: f"red {v}", 1: f"yellow {v}"})
        play_turn(s, dice(1, v - 1), {0: f"yellow {v}", 1: f"red {v}"})
    assert s.active == 0 and not s.is_over
    s.resolve_chance(dice(6, 6, red=6))
    s.apply("red 12")
    s.apply("yellow 12")
    # both rows locked in action 1: the game ends before action 2
    assert s.is_over and s.end_reason == "locks"
    assert s.view()["components"]["sheet"]["locked"] == ["red", "yellow"]


def test_an_illegal_action_raises_and_changes_nothing(game):
    s = game.new_game(players=2, seed=1)
    s.resolve_chance(dice(3, 4))
    before = s.view()
    with pytest.raises(rulekit.IllegalActionError) as err:
        s.apply("red 8")
    assert "red 8" in str(err.value) and "red 7" in str(err.value)
    assert s.view() == before


def test_the_calls_of_a_move_take_their_arguments_by_name_too(game):
    s, t = game.new_game(players=2, seed=1), game.new_game(players=2, seed=1)
    s.resolve_chance(outcome=dice(3, 4))
    t.resolve_chance(dice(3, 4))
    s.apply(action="red 7")
    t.apply("red 7")
    while not s.is_chance:
        s.apply(action="pass")
        t.apply("pass")
    assert s.resolve_chance() == t.resolve_chance(None)
    assert s.log == t.log
    with pytest.raises(TypeError):
        s.apply(move="pass")


def test_an_impossible_roll_raises_and_changes_nothing(game):
    s = game.new_game(players=2, seed=1)
    before = s.view()
    for bad in ({"white1": 7}, dice(0, 3), dice(1, 2) | {"purple": 3}, "six"):
        with pytest.raises(rulekit.ChanceError):
            s.resolve_chance(bad)
    assert s.view() == before and s.is_chance


def test_same_seed_same_game_and_clone_is_independent(game):
    import random

    def playout(seed):
        s = game.new_game(players=3, seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            if s.is_chance:
                s.resolve_chance()
            else:
                s.apply(rng.choice(s.legal_actions()))
        return s.log, s.scores()

    assert playout(11) == playout(11)
    s = game.new_game(players=3, seed=2)
    s.resolve_chance(dice(3, 4))
    c = s.clone()
    c.apply("red 7")
    assert s.current_player == 0 and "red 7" in labels(s)
    assert sheet(s, 0)["red"]["crossed"] == []
    c.apply("pass")
    c.apply("pass")
    c.apply("pass")
    assert sheet(c, 0)["red"]["crossed"] == [7]
    assert sheet(s, 0)["red"]["crossed"] == []


def test_params_change_the_score(game):
    g = rulekit.load_game(QWIXX, overrides={"penalty_points": 10})
    s = g.new_game(players=2, seed=1)
    play_turn(s, dice(3, 4), {})
    assert s.scores() == [-10, 0]


def test_variant_lets_the_active_player_take_the_colour_sum_first():
    g = rulekit.load_game(GAMES / "qwixx-any-order.yaml")
    s = g.new_game(players=2, seed=1)
    s.resolve_chance(dice(3, 4, red=6))
    assert labels(s) == ["colour sum first", "white sum first"]
    s.apply("colour sum first")
    assert s.current_player == 0
    assert "red 9" in labels(s) and "red 10" in labels(s)
    s.apply("red 9")
    # then action 1 for everyone; seat 0 can no longer cross red 7 (left of 9)
    assert s.current_player == 0
    assert "red 7" not in labels(s)
