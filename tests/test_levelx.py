"""Every Level X rule of docs/rules.md, driven through the public API with scripted dice."""

import json
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import rulekit
from rulekit.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"
LEVELX = GAMES / "levelx.yaml"
LONG = GAMES / "levelx-long.yaml"
BLOCK = GAMES / "levelx-block.yaml"
SUMS = [5, 6, 7, 8, 9, 10]

# rolls that offer a given choice (the groups in brackets act)
R5_6 = (5, 6, 1, 1)       # [5] [6]
R7_8 = (3, 4, 2, 6)       # [3 4] [2 6]
R9_10 = (4, 5, 4, 6)      # [4 5] [4 6]
R5_10 = (5, 4, 6, 1)      # [5] [4 6]
R7_7 = (3, 4, 1, 6)       # [3 4] [1 6]
DULL = (1, 1, 1, 1)       # no group reaches 5: only "pass"


@pytest.fixture(scope="module")
def game():
    return rulekit.load_game(LEVELX)


@pytest.fixture(scope="module")
def short_rows():
    """Every row a single field: each acting group lands on X at once."""
    return rulekit.load_game(LEVELX, overrides={"row_lengths": [1] * 6})


def roll(*faces):
    return {f"d{i}": f for i, f in enumerate(faces, 1)}


def labels(state):
    return sorted(a.label for a in state.legal_actions())


def turn(state, faces, action):
    """One turn: the roll, then the active player's choice."""
    state.resolve_chance(roll(*faces))
    state.apply(action)


def position(state, seat, row):
    board = state.view()["components"]["board"]
    return board["positions"][seat][board["lanes"].index(row)]


def chips_left(state, row):
    chips = state.view()["components"]["chips"]
    return chips["counts"][chips["keys"].index(row)]


def chips_won(state, seat, row=None):
    won = state.view()["components"]["won"]
    if row is None:
        return dict(zip(won["keys"], won["counts"][seat]))
    return won["counts"][seat][won["keys"].index(row)]


def tiles(state):
    return state.view()["components"]["bonus"]


# ---- the roll and the choices ------------------------------------------------------------------
def test_a_turn_rolls_four_dice_named_d1_to_d4(game):
    s = game.new_game(players=2, seed=3)
    assert s.is_chance and s.view()["start"] == 0
    out = s.resolve_chance()
    assert sorted(out) == ["d1", "d2", "d3", "d4"]
    assert all(1 <= f <= 6 for f in out.values())
    assert s.current_player == 0


def test_an_impossible_roll_is_refused_and_changes_nothing(game):
    s = game.new_game(players=2, seed=3)
    before = s.view()
    with pytest.raises(rulekit.ChanceError):
        s.resolve_chance({"d1": 7, "d2": 1, "d3": 1, "d4": 1})
    with pytest.raises(rulekit.ChanceError):
        s.resolve_chance({"d1": 1, "d2": 1, "d3": 1})
    assert s.view() == before and s.is_chance


def test_dice_1_2_3_5_offer_each_distinct_outcome_once(game):
    s = game.new_game(players=2, seed=1)
    s.resolve_chance(roll(1, 2, 3, 5))
    # 11 (all four dice) names no row; [1 5] [2 3] and [5] [1 2 3] are the same "5 + 6"
    assert labels(s) == sorted(["pass", "5", "6", "7", "8", "9", "10", "5 + 5", "5 + 6"])


def test_dice_5_5_5_5_offer_every_count_of_groups(game):
    s = game.new_game(players=2, seed=1)
    s.resolve_chance(roll(5, 5, 5, 5))
    assert labels(s) == sorted(["pass", "5", "10", "5 + 5", "5 + 10", "10 + 10",
                                "5 + 5 + 5", "5 + 5 + 10", "5 + 5 + 5 + 5"])


def _outcomes(faces):
    """Every list of row sums some split of the dice gives, spelt out: each die unused or in
    one group; fewest groups first, then the smallest sums."""
    found = set()

    def split(i, groups):
        if i == len(faces):
            found.add(tuple(sorted(g for g in groups if g in SUMS)))
            return
        split(i + 1, groups)
        for k in range(len(groups)):
            split(i + 1, groups[:k] + [groups[k] + faces[i]] + groups[k + 1:])
        split(i + 1, groups + [faces[i]])

    split(0, [])
    return [" + ".join(map(str, sums)) for sums in sorted(found, key=lambda s: (len(s), s))
            if sums]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=4, max_size=4), st.randoms())
def test_a_roll_offers_its_outcomes_in_order_whatever_order_the_dice_show(game, faces, rnd):
    shuffled = list(faces)
    rnd.shuffle(shuffled)
    offered = []
    for shown in (faces, shuffled, sorted(faces)):
        s = game.new_game(players=2, seed=1)
        s.resolve_chance(roll(*shown))
        offered.append([a.label for a in s.legal_actions()])
    assert offered[0] == offered[1] == offered[2] == _outcomes(faces) + ["pass"]


def test_sums_are_listed_ascending_and_other_orders_are_illegal(game):
    s = game.new_game(players=2, seed=1)
    s.resolve_chance(roll(*R5_10))
    assert "5 + 10" in labels(s)
    with pytest.raises(rulekit.IllegalActionError, match="5 \\+ 10"):
        s.apply("10 + 5")
    s.apply("5 + 10")
    assert position(s, 0, 5) == 1 and position(s, 0, 10) == 1


def test_a_roll_with_no_row_sum_leaves_only_pass(game):
    s = game.new_game(players=2, seed=1)
    s.resolve_chance(roll(*DULL))
    assert labels(s) == ["pass"]
    s.apply("pass")
    assert s.is_chance and s.view()["active"] == 1


def test_pass_uses_no_dice_and_moves_nothing(game):
    s = game.new_game(players=2, seed=1)
    turn(s, (1, 2, 3, 5), "pass")
    assert all(position(s, 0, r) == 0 for r in SUMS)
    assert s.view()["active"] == 1


# ---- pawns ---------------------------------------------------------------------------------
def test_a_pawn_enters_on_field_1_then_moves_one_field_per_group(game):
    s = game.new_game(players=2, seed=1)
    assert all(position(s, seat, r) == 0 for seat in (0, 1) for r in SUMS)
    turn(s, (3, 4, 1, 1), "7")
    assert position(s, 0, 7) == 1 and position(s, 1, 7) == 0
    turn(s, DULL, "pass")
    turn(s, (3, 4, 1, 1), "7")
    assert position(s, 0, 7) == 2
    assert [position(s, 0, r) for r in SUMS] == [0, 0, 2, 0, 0, 0]


def test_two_groups_of_the_same_sum_move_twice(game):
    s = game.new_game(players=2, seed=1)
    turn(s, (6, 6, 6, 6), "6 + 6 + 6")
    assert position(s, 0, 6) == 3


def test_a_pawn_on_x_stays_and_takes_a_chip_every_time(game):
    s = game.new_game(players=2, seed=1)
    turn(s, (4, 5, 4, 5), "9 + 9")            # row 9 has 2 fields: the pawn reaches X
    assert position(s, 0, 9) == 2
    assert chips_won(s, 0, 9) == 1 and chips_left(s, 9) == 6
    turn(s, DULL, "pass")
    turn(s, (4, 5, 1, 1), "9")
    assert position(s, 0, 9) == 2             # already on X: it does not move
    assert chips_won(s, 0, 9) == 2 and chips_left(s, 9) == 5


def test_7_plus_7_arriving_on_x_takes_two_chips(game):
    s = game.new_game(players=2, seed=1)
    turn(s, (3, 4, 1, 1), "7")
    turn(s, DULL, "pass")
    turn(s, R7_7, "7 + 7")                    # field 1 -> 2 -> X: only the second lands
    assert position(s, 0, 7) == 3 and chips_won(s, 0, 7) == 1
    turn(s, DULL, "pass")
    turn(s, R7_7, "7 + 7")                    # already on X: both groups take a chip
    assert position(s, 0, 7) == 3 and chips_won(s, 0, 7) == 3
    assert chips_left(s, 7) == 9 - 3


def test_ordinary_fields_hold_any_number_of_pawns(game):
    s = game.new_game(players=3, seed=1)
    for _ in range(3):
        turn(s, (5, 1, 1, 1), "5")
    assert [position(s, seat, 5) for seat in range(3)] == [1, 1, 1]


def test_a_pawn_arriving_on_an_occupied_x_knocks_the_other_off(game):
    s = game.new_game(players=2, seed=1)
    turn(s, (4, 5, 4, 5), "9 + 9")            # seat 0 on X of row 9, one chip
    turn(s, (4, 5, 4, 5), "9 + 9")            # seat 1 arrives: seat 0 is knocked off
    assert position(s, 1, 9) == 2 and position(s, 0, 9) == 0
    assert chips_won(s, 0, 9) == 1 and chips_won(s, 1, 9) == 1   # chips are kept
    assert "9 | off: 0   | 1: - | X: 1" in s.render()     # columns line up across rows
    turn(s, (4, 5, 1, 1), "9")                # the owner starts the row again from field 1
    assert position(s, 0, 9) == 1 and position(s, 1, 9) == 2
    assert chips_won(s, 0, 9) == 1


def test_on_a_one_field_row_each_newcomer_knocks_the_last_one_off(short_rows):
    s = short_rows.new_game(players=3, seed=1)
    for seat in range(3):
        turn(s, (5, 1, 1, 1), "5")
        assert [position(s, p, 5) for p in range(3)] == [int(p == seat) for p in range(3)]
        assert chips_won(s, seat, 5) == 1


def test_an_empty_row_gives_no_chip_and_no_error():
    g = rulekit.load_game(LEVELX, overrides={"chips_two_three_players": [11, 10, 1, 8, 7, 6]})
    s = g.new_game(players=2, seed=1)
    turn(s, (3, 4, 3, 4), "7 + 7")
    turn(s, DULL, "pass")
    turn(s, R7_7, "7 + 7")                    # lands on X: the only chip of row 7
    assert chips_won(s, 0, 7) == 1 and chips_left(s, 7) == 0
    turn(s, DULL, "pass")
    turn(s, R7_7, "7 + 7")                    # on X again, the row is empty: nothing
    assert chips_won(s, 0, 7) == 1 and chips_left(s, 7) == 0
    assert position(s, 0, 7) == 3 and not s.is_over


# ---- material by player count ----------------------------------------------------------------
@pytest.mark.parametrize("players, counts", [
    (2, [11, 10, 9, 8, 7, 6]), (3, [11, 10, 9, 8, 7, 6]), (4, [12, 11, 10, 9, 8, 7])])
def test_chips_per_row_depend_on_the_player_count(game, players, counts):
    s = game.new_game(players=players, seed=1)
    assert [chips_left(s, r) for r in SUMS] == counts
    assert tiles(s) == {"left": [15, 12, 9, 6], "held": [[]] * players}
    assert s.view()["components"]["board"]["lengths"] == [4, 4, 3, 3, 2, 2]


# ---- bonus tiles -------------------------------------------------------------------------------
def one_set(state, seat_other_pass=True):
    """The active player takes one chip of every row in three turns (rows of one field)."""
    for faces, action in ((R5_6, "5 + 6"), (R7_8, "7 + 8"), (R9_10, "9 + 10")):
        turn(state, faces, action)
        if seat_other_pass and not state.is_over:
            turn(state, DULL, "pass")


def test_the_first_complete_set_earns_the_most_valuable_tile(short_rows):
    s = short_rows.new_game(players=2, seed=1)
    turn(s, R5_6, "5 + 6")
    turn(s, DULL, "pass")
    turn(s, R7_8, "7 + 8")
    turn(s, DULL, "pass")
    assert tiles(s)["held"] == [[], []]       # five values are no set
    s.resolve_chance(roll(*R9_10))
    s.apply("9 + 10")
    assert tiles(s) == {"left": [12, 9, 6], "held": [[15], []]}
    assert s.scores() == [5 + 6 + 7 + 8 + 9 + 10 + 15, 0]


def test_tiles_go_out_in_order_15_12_9_6_and_the_kth_set_earns_the_best_left(short_rows):
    s = short_rows.new_game(players=2, seed=1)
    for faces, action in ((R5_6, "5 + 6"), (R7_8, "7 + 8"), (R9_10, "9 + 10")):
        turn(s, faces, action)                # both seats collect a set, seat 0 first
        turn(s, faces, action)
    assert tiles(s) == {"left": [9, 6], "held": [[15], [12]]}
    one_set(s)                                # seat 0's second set: the best tile left
    assert tiles(s) == {"left": [6], "held": [[15, 9], [12]]}
    assert chips_won(s, 0) == {k: 2 for k in SUMS}
    turn(s, DULL, "pass")
    for faces, action in ((R5_6, "5 + 6"), (R7_8, "7 + 8"), (R9_10, "9 + 10")):
        turn(s, faces, action)                # seat 1's second set takes the last tile
        if not s.is_over:
            turn(s, DULL, "pass")
    assert tiles(s) == {"left": [], "held": [[15, 9], [12, 6]]}
    # seat 1 took the last tile: the round is complete, the game is over
    assert s.is_over and s.end_reason == "tiles"
    assert s.scores() == [2 * 45 + 15 + 9, 2 * 45 + 12 + 6] and s.winners() == [0]


def test_two_sets_completed_by_one_choice_earn_two_tiles(short_rows):
    s = short_rows.new_game(players=2, seed=1)
    pairs = [((5, 5, 1, 1), "5 + 5"), ((6, 6, 1, 1), "6 + 6"), (R7_7, "7 + 7"),
             ((4, 4, 2, 6), "8 + 8"), ((4, 5, 4, 5), "9 + 9")]
    for faces, action in pairs:
        turn(s, faces, action)
        turn(s, DULL, "pass")
    assert tiles(s)["held"] == [[], []]
    turn(s, (4, 6, 4, 6), "10 + 10")
    assert tiles(s) == {"left": [9, 6], "held": [[15, 12], []]}


def test_the_most_valuable_tile_comes_first_whatever_the_params_order():
    g = rulekit.load_game(LEVELX, overrides={"row_lengths": [1] * 6,
                                             "bonus_tiles": [6, 15, 9, 12]})
    s = g.new_game(players=2, seed=1)
    assert tiles(s)["left"] == [15, 12, 9, 6]
    one_set(s)
    assert tiles(s)["held"][0] == [15]


# ---- the end -----------------------------------------------------------------------------------
def test_three_empty_rows_end_the_game_after_the_round_when_the_start_player_ends_it():
    g = rulekit.load_game(LEVELX, overrides={"row_lengths": [1] * 6,
                                             "chips_two_three_players": [1, 1, 1, 8, 7, 6]})
    s = g.new_game(players=2, seed=1)
    turn(s, (5, 6, 3, 4), "5 + 6 + 7")        # seat 0 empties rows 5, 6 and 7
    assert [chips_left(s, r) for r in (5, 6, 7)] == [0, 0, 0]
    assert not s.is_over and s.end_reason == "chips"
    assert s.is_chance and s.view()["active"] == 1   # seat 1 plays once more
    turn(s, R9_10, "9 + 10")
    assert s.is_over and s.end_reason == "chips"
    assert s.scores() == [18, 19] and s.winners() == [1]


def test_when_the_last_seat_ends_the_game_it_ends_at_once_and_ties_share_the_win():
    g = rulekit.load_game(LEVELX, overrides={"row_lengths": [1] * 6,
                                             "chips_two_three_players": [1, 6, 1, 8, 7, 1]})
    s = g.new_game(players=2, seed=1)
    turn(s, R5_10, "5 + 10")                  # rows 5 and 10 empty: two rows, not yet
    assert not s.is_over and s.end_reason is None
    turn(s, R7_8, "7 + 8")                    # row 7 empty: seat 1 ends the round
    assert s.is_over and s.end_reason == "chips"
    with pytest.raises(rulekit.IllegalActionError):
        s.legal_actions()
    assert s.scores() == [15, 15] and s.winners() == [0, 1]


def test_the_last_bonus_tile_ends_the_game_and_a_later_set_gets_nothing():
    g = rulekit.load_game(LEVELX, overrides={"row_lengths": [1] * 6, "bonus_tiles": [15]})
    s = g.new_game(players=2, seed=1)
    for faces, action in ((R5_6, "5 + 6"), (R7_8, "7 + 8")):
        turn(s, faces, action)
        turn(s, faces, action)
    turn(s, R9_10, "9 + 10")                  # seat 0's set takes the only tile
    assert tiles(s) == {"left": [], "held": [[15], []]}
    assert not s.is_over and s.end_reason == "tiles"
    turn(s, R9_10, "9 + 10")                  # seat 1 completes a set too: no tile left
    assert s.is_over and tiles(s)["held"] == [[15], []]
    assert s.scores() == [45 + 15, 45] and s.winners() == [0]


def test_three_players_finish_the_round_after_a_middle_seat_ends_it():
    g = rulekit.load_game(LEVELX, overrides={"row_lengths": [1] * 6, "empty_rows_to_end": 1,
                                             "chips_two_three_players": [1, 10, 9, 8, 7, 6]})
    s = g.new_game(players=3, seed=1)
    turn(s, DULL, "pass")
    turn(s, (5, 1, 1, 1), "5")                # seat 1 empties row 5
    assert not s.is_over and s.view()["active"] == 2
    turn(s, (6, 1, 1, 1), "6")
    assert s.is_over and s.scores() == [0, 5, 6] and s.winners() == [2]


def test_a_whole_random_game_ends_by_one_of_the_two_reasons(game):
    for seed in range(5):
        s = game.new_game(players=2, seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            if s.is_chance:
                s.resolve_chance()
            else:
                s.apply(rng.choice(s.legal_actions()))
        assert s.end_reason in ("tiles", "chips")
        view = s.view()["components"]
        emptied = sum(1 for c in view["chips"]["counts"] if c == 0)
        assert not view["bonus"]["left"] or emptied >= 3
        # both seats had as many turns
        rolls = [e for e in s.log if "chance" in e]
        assert len(rolls) % 2 == 0
        # score = chips + tiles
        won = view["won"]
        for seat in (0, 1):
            chips = sum(k * c for k, c in zip(won["keys"], won["counts"][seat]))
            assert s.scores()[seat] == chips + sum(view["bonus"]["held"][seat])


@pytest.mark.parametrize(("steps", "fields"), [
    (2, [2, 4, 4]),       # two fields at a time, never past X
    (5, [4, 4, 4]),       # from off the board straight onto X
    (0, [0, 0, 0]),       # no step: nothing moves
    (-1, [0, 0, 0]),      # never backwards
])
def test_advance_moves_so_many_fields_and_stops_on_x(tmp_path, steps, fields):
    text = LEVELX.read_text(encoding="utf-8")
    old = "advance: {track: board, lane: s, player: player}"
    assert text.count(old) == 1
    path = tmp_path / "steps.yaml"
    path.write_text(text.replace(old, old[:-1] + f", steps: {steps}}}"), encoding="utf-8")
    s = rulekit.load_game(path).new_game(players=2, seed=1)
    for want in fields:
        turn(s, R5_6, "5")
        assert position(s, 0, 5) == want
        turn(s, DULL, "pass")
    on_x = fields[-1] == 4
    assert s.view()["components"]["board"]["at_end"][0] == ([0] if on_x else [])
    assert chips_won(s, 0, 5) == sum(1 for f in fields if f == 4)


# ---- params, variants, command line ------------------------------------------------------------
def test_a_param_changes_the_rows_through_load_game():
    g = rulekit.load_game(LEVELX, overrides={"row_lengths": [2, 2, 2, 2, 2, 2]})
    s = g.new_game(players=2, seed=1)
    turn(s, (3, 4, 3, 4), "7 + 7")            # row 7 now has 2 fields: X reached
    assert position(s, 0, 7) == 2 and chips_won(s, 0, 7) == 1


def test_a_bad_param_is_a_located_error():
    with pytest.raises(rulekit.GameFileError, match="param 'row_lengths' needs 6 values"):
        rulekit.load_game(LEVELX, overrides={"row_lengths": [4, 4, 3, 3, 2]})
    with pytest.raises(rulekit.GameFileError, match="pile 10 with 2 players"):
        rulekit.load_game(LEVELX, overrides={"chips_two_three_players": [1, 1, 1, 1, 1]})


def test_the_long_variant_has_longer_rows_and_a_fifth_richer_tile():
    g = rulekit.load_game(LONG)
    s = g.new_game(players=2, seed=1)
    assert s.view()["components"]["board"]["lengths"] == [5, 5, 4, 4, 3, 3]
    assert tiles(s)["left"] == [20, 15, 12, 9, 6]
    turn(s, (4, 5, 4, 5), "9 + 9")
    assert position(s, 0, 9) == 2 and chips_won(s, 0, 9) == 0   # X is the third field now


def test_the_block_variant_stops_a_pawn_short_of_an_occupied_x():
    g = rulekit.load_game(BLOCK)
    s = g.new_game(players=2, seed=1)
    turn(s, (4, 5, 4, 5), "9 + 9")
    turn(s, (4, 5, 4, 5), "9 + 9")
    assert position(s, 0, 9) == 2 and position(s, 1, 9) == 1
    assert chips_won(s, 1, 9) == 0


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_validate_passes_the_game_and_its_variants():
    result = run("validate", LEVELX, LONG, BLOCK)
    assert result.exit_code == 0, result.output
    assert result.output.count(": ok") == 3


def test_simulate_plays_two_player_games():
    result = run("simulate", LEVELX, "--players", 2, "--games", 20, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 20 and set(data["end_reasons"]) <= {"tiles", "chips"}
    assert data["length"]["decisions"]["min"] > 10


def test_simulate_set_changes_a_param():
    result = run("simulate", LEVELX, "--players", 2, "--games", 20, "--json",
                 "--set", "bonus_tiles=[]")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["params"]["bonus_tiles"] == []
    # no tile to take: the game is over after the first round
    assert data["end_reasons"] == {"tiles": 20}
    assert data["length"]["decisions"]["max"] == 2


def test_simulate_rejects_a_bad_set():
    result = run("simulate", LEVELX, "--players", 2, "--games", 2, "--set", "row_lengths=[0]")
    assert result.exit_code == 1
    assert "row_lengths" in result.output and "Traceback" not in result.output


def test_a_broken_variant_gets_located_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    shutil.copy(LEVELX, tmp_path)  # a base lies next to its variant
    bad.write_text("extends: levelx.yaml\n"
                   "components:\n"
                   "  board:\n"
                   "    lanes: '[5, 5, 6]'\n"
                   "    last_capacity: 0\n")
    result = run("validate", bad)
    assert result.exit_code == 1
    assert "bad.yaml:4:12: error: every lane needs its own key; repeated: 5" in result.output
    assert "bad.yaml:5:20: error: the last field must hold at least 1 pawn" in result.output


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4))
def test_random_games_keep_pawns_on_the_board_one_per_x_and_every_chip(game, seed, players):
    s = game.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    start = s.view()["components"]["chips"]["counts"]
    while not s.is_over:
        if s.is_chance:
            s.resolve_chance()
        else:
            s.apply(rng.choice(s.legal_actions()))
        comps = s.view()["components"]
        board = comps["board"]
        for lane, length in enumerate(board["lengths"]):
            on_x = [p for p in range(players) if board["positions"][p][lane] == length]
            assert len(on_x) <= 1 and on_x == board["at_end"][lane]
            assert all(0 <= board["positions"][p][lane] <= length for p in range(players))
        held = [sum(c[i] for c in comps["won"]["counts"]) for i in range(6)]
        assert [a + b for a, b in zip(comps["chips"]["counts"], held)] == start


@pytest.mark.parametrize("players", [2, 3])
def test_the_turn_count_of_a_finished_round_is_the_turns_played(game, players):
    """`finish: round` ends when the round is complete: no extra turn is counted."""
    rng = random.Random(4)
    state = game.new_game(players=players, seed=4)
    turns_with_a_roll = set()
    while not state.is_over:
        if state.is_chance:
            turns_with_a_roll.add(state.turn)
            state.resolve_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
    assert state.turn == max(turns_with_a_roll) == len(turns_with_a_roll)
    assert state.turn % players == 0  # every seat had as many turns as the start player
    out = CliRunner().invoke(main, ["play", str(LEVELX), "--auto", "--seed", "4",
                                    "--players", str(players)]).output
    last = max(int(t) for t in re.findall(r"^--- turn (\d+):", out, re.M))
    assert f"after {last} turns" in out
