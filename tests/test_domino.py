"""Domino 7 through the public API: scripted deals, every rule, hidden hands and levels."""

from __future__ import annotations

import json
import random
import re
import shutil
from functools import cache
from pathlib import Path

import pytest
from test_cli import run

import rulekit

ROOT = Path(__file__).resolve().parent.parent
DOMINO7 = ROOT / "games" / "domino7.yaml"
FIVES = ROOT / "games" / "domino-fives.yaml"


@cache
def game(**overrides: object) -> rulekit.Game:
    return rulekit.load_game(DOMINO7, overrides=overrides or None)


def pair(name: str) -> list[int]:
    a, b = name.split("|")
    return [int(a), int(b)]


def deal(highest: int, hands: list[list[str]], stock: tuple[str, ...] = ()) -> list[list[int]]:
    """The deal outcome: the hands in seat order, then the stock from its front; tiles not
    named go to the end of the stock in the set's order."""
    named = [t for h in hands for t in h] + list(stock)
    rest = [f"{a}|{b}" for a in range(highest + 1) for b in range(a, highest + 1)
            if f"{a}|{b}" not in named]
    return [pair(t) for t in named + rest]


def start(hands: list[list[str]], stock: tuple[str, ...] = (), highest: int = 4,
          **params: object) -> rulekit.State:
    """A 4-player game with small hands, dealt as scripted."""
    g = game(highest_pip=highest, hand_size=len(hands[0]), **params)
    state = g.new_game(players=4, seed=1)
    assert state.is_chance
    state.resolve_chance(deal(highest, hands, stock))
    return state


def labels(state: rulekit.State) -> list[str]:
    return sorted(a.label for a in state.legal_actions())


def line(state: rulekit.State) -> dict:
    return state.view()["components"]["line"]


def hand(state: rulekit.State, seat: int) -> list[str]:
    return state.view()["components"]["hand"]["hands"][seat]["tiles"]


def says(state: rulekit.State) -> list[str]:
    """The lines everyone reads (not the private ones, `to` one seat)."""
    return [e["say"] for e in state.log if "say" in e and "to" not in e]


def points(state: rulekit.State) -> list[int]:
    return [p["points"] for p in state.view()["player_vars"]]


# ---- opening -----------------------------------------------------------------------------------
def test_the_highest_double_opens_alone_and_play_goes_left() -> None:
    g = game()
    order = deal(12, [[]] * 0)
    # seat 2 holds 12|12, seat 1 holds 11|11: the 12|12 opens
    names = [f"{a}|{b}" for a, b in order]
    names.remove("12|12")
    names.remove("11|11")
    names.insert(2 * 18, "12|12")
    names.insert(18, "11|11")
    state = g.new_game(players=4, seed=5)
    state.resolve_chance([pair(t) for t in names])
    assert state.current_player == 2
    assert labels(state) == ["12|12"]
    with pytest.raises(rulekit.IllegalActionError):
        state.apply("12|12 left")
    state.apply("12|12")
    assert state.current_player == 3
    assert line(state)["line"] == ["12|12"]
    assert line(state)["end_sum"] == 24            # the opening tile counts both halves


def test_the_highest_double_held_opens_when_higher_ones_are_in_the_stock() -> None:
    state = start([["0|1", "0|2", "0|3"], ["2|2", "1|2", "1|3"], ["3|3", "2|3", "1|4"],
                   ["0|0", "0|4", "2|4"]], stock=("4|4", "3|4", "1|1"))
    assert state.current_player == 2 and labels(state) == ["3|3"]


def test_with_no_double_held_the_heaviest_tile_opens_higher_half_first() -> None:
    doubles = tuple(f"{d}|{d}" for d in range(7))
    # 5|6 and 4|6 lie in the stock: the heaviest held are 3|6 and 4|5 (9 pips); 3|6 has
    # the higher half
    state = start([["0|1", "0|2", "0|3"], ["1|2", "1|3", "2|3"], ["4|5", "2|4", "0|4"],
                   ["3|6", "1|6", "0|6"]],
                  stock=(*doubles, "5|6", "4|6"), highest=6)
    assert state.current_player == 3 and labels(state) == ["3|6"]
    state.apply("3|6")
    assert line(state)["end_sum"] == 9
    assert state.current_player == 0


# ---- laying ------------------------------------------------------------------------------------
def four_four() -> rulekit.State:
    """Seat 0 opens 4|4; seat 1 holds 2|4, which fits both ends; seat 2 nothing with 4 or 2."""
    return start([["4|4", "0|1", "1|1"], ["2|4", "0|0", "0|2"], ["1|3", "0|3", "3|3"],
                  ["1|2", "2|2", "2|3"]], stock=("0|4", "1|4", "3|4"))


def test_a_tile_that_fits_both_ends_may_go_at_either_and_a_player_who_can_lay_must() -> None:
    state = start([["4|4", "0|1", "1|1"], ["2|4", "0|0", "0|2"], ["2|3", "0|3", "3|3"],
                   ["1|2", "2|2", "1|3"]], stock=("0|4", "1|4", "3|4"))
    state.apply("4|4")
    assert state.current_player == 1
    assert labels(state) == ["2|4 left", "2|4 right"]   # no pass, no draw: 2|4 must be laid
    left = state.clone()
    left.apply("2|4 left")
    assert line(left)["line"] == ["2|4", "4|4"]
    assert line(left)["ends"] == {"left": 2, "right": 4}
    assert labels(left) == ["2|3 left"]
    state.apply("2|4 right")
    assert line(state)["line"] == ["4|4", "4|2"]       # turned so that the 4s touch
    assert line(state)["ends"] == {"left": 4, "right": 2}
    assert line(state)["end_sum"] == 8 + 2              # the crosswise 4|4 counts both halves
    assert hand(state, 1) == ["0|0", "0|2"]
    assert labels(state) == ["2|3 right"]               # one option is still a decision
    assert state.current_player == 2


def test_a_drawn_tile_that_fits_is_laid_at_once_and_the_log_says_so() -> None:
    state = four_four()
    state.apply("4|4")
    state.apply("2|4 right")
    # seat 2 holds 1|3 0|3 3|3: nothing fits 4 or 2; it draws 0|4, which fits on the left
    assert state.current_player == 3
    assert state.log[-4:] == [{"seat": 1, "action": "2|4 right"},
                              {"say": "player 2 draws a tile"},
                              {"say": "you drew 0|4", "to": 2},
                              {"seat": 2, "action": "0|4 left", "forced": True}]
    assert line(state)["line"] == ["0|4", "4|4", "4|2"]
    assert hand(state, 2) == ["0|3", "1|3", "3|3"]
    assert state.view()["components"]["hand"]["stock"]["count"] == 2


def test_the_drawn_tile_is_told_to_its_drawer_and_reaches_no_other_seat_or_bot() -> None:
    state = four_four()
    state.apply("4|4")
    state.apply("2|4 right")                     # seat 2 draws 0|4
    assert [e for e in state.log if "to" in e] == [{"say": "you drew 0|4", "to": 2}]
    assert {"say": "you drew 0|4", "to": 2} in state.log_for(2)
    assert {"say": "you drew 0|4", "to": 2} in state.determinize(2, random.Random(1)).log
    for seat in (0, 1, 3):
        seen = [state.log_for(seat), state.determinize(seat, random.Random(1)).log,
                state.view(seat)]
        assert "you drew" not in json.dumps(seen)
        assert "you drew" not in state.render(seat)
    # the deal's outcome is the other secret of the log: nobody but an observer reads it
    assert "outcome" not in state.log_for(2)[0] and "outcome" in state.log_for(None)[0]


def test_a_private_line_names_a_player_and_is_checked_where_it_stands(tmp_path) -> None:
    shutil.copy(DOMINO7, tmp_path / "domino7.yaml")
    variant = tmp_path / "v.yaml"
    variant.write_text("extends: domino7.yaml\nflow:\n  procedures:\n    pass:\n"
                       "      - say: {to: 3, text: psst}\n")
    result = run("validate", str(variant))
    assert result.exit_code == 1 and f"{variant}:5:" in result.output, result.output
    assert "Player" in result.output
    variant.write_text("extends: domino7.yaml\nflow:\n  procedures:\n    pass:\n"
                       "      - say: {text: psst}\n")
    result = run("validate", str(variant))
    assert result.exit_code == 1 and "'to' is missing" in result.output


def test_play_tells_you_your_drawn_tiles_and_nobody_else_s() -> None:
    out = run("play", str(DOMINO7), "--seed", "3", input="a\n" * 60).output
    lines = out.split("\n")
    told = [i for i, line in enumerate(lines) if line.startswith("you drew ")]
    draws = [i for i, line in enumerate(lines) if line == "player 0 draws a tile"]
    assert told and all(lines[i + 1].startswith("you drew ") for i in draws)
    # a screen short of rows may show the tile drawn without the line before it
    assert all(lines[i - 1] == "player 0 draws a tile"
               or lines[i - 1].startswith("since your last move (") for i in told)
    assert "(to player" not in out
    # an observer (a replay) reads every private line, marked with its seat
    watched = run("play", str(DOMINO7), "--auto", "--seed", "3").output
    assert re.search(r"^player (\d) draws a tile\n\(to player \1 only\) you drew \d+\|\d+$",
                     watched, re.M)


def test_a_drawn_tile_that_fits_both_ends_lets_the_player_choose() -> None:
    state = start([["4|4", "0|1", "1|1"], ["0|0", "0|2", "1|2"], ["1|3", "0|3", "3|3"],
                   ["2|2", "2|3", "0|4"]], stock=("2|4", "1|4", "3|4"))
    state.apply("4|4")
    assert state.current_player == 1             # no 4 in hand: 2|4 was drawn
    assert says(state) == ["player 1 draws a tile"]
    assert labels(state) == ["2|4 left", "2|4 right"]
    state.apply("2|4 left")
    # seat 2 cannot lay on 2 or 4 either: it draws 1|4 and lays it on the right at once
    assert line(state)["line"] == ["2|4", "4|4", "4|1"]
    assert state.current_player == 3


def test_a_drawn_tile_that_does_not_fit_passes_the_turn() -> None:
    state = four_four()
    state.apply("4|4")
    state.apply("2|4 right")
    # seat 2 drew 0|4 and laid it; seat 3 (1|2 2|2 2|3) fits the right 2
    state.apply("2|2 right")
    # seat 0 (0|1 1|1): the ends are 0 and 2 (the crosswise 2|2): 0|1 fits
    state.apply("0|1 left")
    # seat 1 (0|0 0|2): the ends are 1 and 2: 0|2 fits the right
    state.apply("0|2 right")
    # seat 2 (0|3 1|3 3|3): the ends are 1 and 0: 1|3 or 0|3
    state.apply("1|3 left")
    # seat 3 (1|2 2|3): the ends are 3 and 0: 2|3 on the left
    state.apply("2|3 left")
    # seat 0 (1|1): ends 2 and 0: nothing fits; it draws 1|4, which fits neither: a pass
    assert says(state)[-2:] == ["player 0 draws a tile", "player 0 passes"]
    assert hand(state, 0) == ["1|1", "1|4"]
    assert state.current_player == 1


def test_with_the_stock_empty_a_player_who_cannot_lay_passes_without_drawing() -> None:
    # a double-six set dealt 7 x 4: the stock is empty from the start
    hands = [["6|6", "0|1", "0|2", "0|3", "0|4", "0|5", "0|0"],
             ["1|1", "1|2", "1|3", "1|4", "1|5", "2|2", "2|3"],
             ["0|6", "2|4", "2|5", "3|3", "3|4", "3|5", "4|4"],
             ["1|6", "2|6", "3|6", "4|6", "5|6", "4|5", "5|5"]]
    state = start(hands, highest=6)
    assert state.view()["components"]["hand"]["stock"]["count"] == 0
    state.apply("6|6")
    # seat 1 holds no 6: it passes at once
    assert says(state) == ["player 1 passes"]
    assert hand(state, 1) == sorted(hands[1], key=lambda t: pair(t))
    assert state.view()["vars"]["passes"] == 1
    assert state.current_player == 2 and labels(state) == ["0|6 left", "0|6 right"]
    state.apply("0|6 left")
    assert state.view()["vars"]["passes"] == 0       # a lay ends the run of passes


def test_draw_until_a_tile_fits_is_a_param() -> None:
    hands = [["4|4", "0|1", "1|1"], ["0|0", "0|2", "1|2"], ["1|3", "0|3", "3|3"],
             ["2|2", "2|3", "0|4"]]
    state = start(hands, stock=("1|4", "2|4", "3|4"), draw_until_fits=True)
    for label in ["4|4", "1|4 right", "1|3 right", "0|4 left", "0|1 left", "1|2 left",
                  "3|3 right", "2|3 left"]:
        state.apply(label)
    # seat 0 holds 1|1 and both ends show 3: it draws 2|4, which does not fit, and
    # draws on: 3|4 fits both ends, so seat 0 chooses where
    assert state.current_player == 0
    assert says(state)[-2:] == ["player 0 draws a tile", "player 0 draws a tile"]
    assert hand(state, 0) == ["1|1", "2|4", "3|4"]
    assert labels(state) == ["3|4 left", "3|4 right"]
    # with one tile drawn, seat 0 would have passed
    once = start(hands, stock=("1|4", "2|4", "3|4"))
    for label in ["4|4", "1|4 right", "1|3 right", "0|4 left", "0|1 left", "1|2 left",
                  "3|3 right", "2|3 left"]:
        once.apply(label)
    assert "player 0 passes" in says(once) and hand(once, 0) == ["1|1", "2|4"]


# ---- the end sum and scoring ------------------------------------------------------------------
def six_six() -> rulekit.State:
    return start([["6|6", "0|0", "0|2"], ["1|6", "2|6", "0|3"], ["1|1", "4|5", "0|5"],
                  ["3|3", "3|4", "4|4"]], highest=6)


def test_the_end_sum_counts_a_crosswise_double_at_an_end_twice() -> None:
    state = six_six()
    state.apply("6|6")
    assert line(state)["end_sum"] == 12              # the opening tile alone: both halves once
    one = state.clone()
    one.apply("1|6 right")                           # [6|6] 6|1: 12 + 1
    assert line(one)["end_sum"] == 13
    other = state.clone()
    other.apply("1|6 left")                          # 1|6 [6|6]: 1 + 12
    assert line(other)["end_sum"] == 13


def test_a_divisible_end_sum_scores_and_a_double_scores_twice_as_much() -> None:
    state = six_six()
    state.apply("6|6")
    plain = state.clone()
    plain.apply("2|6 right")                         # 12 + 2 = 14: 14 / 7 x 10
    assert points(plain) == [0, 20, 0, 0]
    assert plain.scores() == [0, 20, 0, 0]
    assert says(plain)[0] == "player 1 scores 20 (end sum 14)"
    state.apply("1|6 right")                         # 13: nothing
    assert points(state) == [0, 0, 0, 0]
    state.apply("1|1 right")                         # [6|6] 6|1 [1|1]: 12 + 2 = 14, a double
    assert points(state) == [0, 0, 40, 0]
    assert "player 2 scores 40 (end sum 14)" in says(state)


def test_the_divisor_is_a_param() -> None:
    state = start([["6|6", "0|0", "0|2"], ["1|6", "2|6", "0|3"], ["1|1", "4|5", "0|5"],
                   ["3|3", "3|4", "4|4"]], highest=6, divisor=13)
    state.apply("6|6")
    state.apply("1|6 right")                         # 13 / 13 x 10
    assert points(state) == [0, 10, 0, 0]


# ---- the end -----------------------------------------------------------------------------------
def test_a_blocked_game_ends_after_a_full_round_of_passes_and_pips_count_against() -> None:
    state = start([["4|4", "2|3", "3|3"], ["1|4", "0|4", "1|1"], ["2|4", "3|4", "2|2"],
                   ["0|1", "0|0", "0|2"]], stock=("0|3", "1|2", "1|3"))
    for label in ["4|4", "1|4 left", "2|4 right", "0|1 left", "2|3 right"]:
        state.apply(label)
    state.apply("0|4 left")                          # ends 4 and 3: 7, seat 1 scores 10
    assert points(state) == [0, 10, 0, 0]
    assert labels(state) == ["3|4 left", "3|4 right"]
    assert state.end_scores() == [{}, {}, {}, {}]    # the end's scoring comes at the end
    state.apply("3|4 right")                         # both ends 4, and every 4 is laid
    # seats 3, 0, 1 draw the stock and pass; then seats 2, 3, 0 pass on an empty stock
    assert state.is_over and state.end_reason == "blocked"
    assert says(state).count("player 3 draws a tile") == 1
    assert says(state)[-4:] == ["player 1 passes", "player 2 passes", "player 3 passes",
                                "player 0 passes"]
    # remaining pips: seat 0 3|3 1|2 = 9, seat 1 1|1 1|3 = 6, seat 2 2|2 = 4,
    # seat 3 0|0 0|2 0|3 = 5; seat 1 leads with 10 - 6 = 4 and earns the bonus of 50
    assert state.scores() == [-9, 54, -4, -5]
    assert [sum(p.values()) for p in state.end_scores()] == [-9, 44, -4, -5]
    assert state.winners() == [1]


def test_a_player_out_of_tiles_ends_the_level_and_tied_leaders_all_earn_the_bonus() -> None:
    state = start([["4|4", "1|3"], ["2|4", "0|0"], ["1|4", "3|3"], ["2|3", "2|2"]])
    for label in ["4|4", "2|4 right", "1|4 left", "2|3 right"]:
        state.apply(label)
        assert not state.is_over
    state.apply("1|3 left")                          # seat 0 has laid all its tiles
    assert state.is_over and state.end_reason == "out"
    with pytest.raises(rulekit.IllegalActionError):
        state.legal_actions()
    # seat 0 holds nothing, seat 1 only 0|0: both lead with 0 and both earn 50
    assert state.scores() == [50, 50, -6, -4]
    assert state.winners() == [0, 1]


def test_the_bonus_is_a_param() -> None:
    state = start([["4|4", "1|3"], ["2|4", "0|0"], ["1|4", "3|3"], ["2|3", "2|2"]],
                  winner_bonus=0)
    for label in ["4|4", "2|4 right", "1|4 left", "2|3 right", "1|3 left"]:
        state.apply(label)
    assert state.scores() == [0, 0, -6, -4]


# ---- the deal ----------------------------------------------------------------------------------
def test_an_impossible_deal_is_refused_and_changes_nothing() -> None:
    state = game().new_game(players=4, seed=3)
    full = deal(12, [])
    for bad in (full[:-1], full[:-1] + [full[0]], full[:-1] + [[13, 13]], "12|12"):
        with pytest.raises(rulekit.ChanceError):
            state.resolve_chance(bad)
        assert state.is_chance
    state.resolve_chance(full)
    assert state.view(0)["components"]["hand"]["hands"][0]["count"] == 18


def test_the_sampled_deal_is_the_whole_set_and_the_same_seed_gives_the_same_deal() -> None:
    a = game().new_game(players=4, seed=11).resolve_chance()
    b = game().new_game(players=4, seed=11).resolve_chance()
    assert a == b and len(a) == 91
    assert sorted(tuple(t) for t in a) == [(x, y) for x in range(13) for y in range(x, 13)]


def test_a_deal_drawn_at_once_is_the_deal_sampled_then_imposed() -> None:
    """`resolve_chance()` shuffles and deals in one pass: the same draws from the RNG, the
    same outcome, hands and stock as `sample_chance` then `resolve_chance(outcome)`."""
    for seed in range(5):
        state = game().new_game(players=4, seed=seed)
        other = state.clone()
        rng = random.Random()
        rng.setstate(state.rng.getstate())
        outcome = state.resolve_chance()
        assert other.sample_chance(rng) == outcome
        assert rng.getstate() == state.rng.getstate()
        other.resolve_chance(outcome)
        assert other.view(None) == state.view(None)
        assert other.legal_actions() == state.legal_actions()


# ---- hidden information ------------------------------------------------------------------------
def test_a_seat_sees_its_own_hand_only_and_never_the_stock_order() -> None:
    state = game().new_game(players=4, seed=2)
    state.resolve_chance()
    full = state.view()
    hands = [h["tiles"] for h in full["components"]["hand"]["hands"]]
    stock = full["components"]["hand"]["stock"]["order"]
    assert [len(h) for h in hands] == [18, 18, 18, 18] and len(stock) == 19
    for _ in range(3):                               # before and after a few moves
        for seat in range(4):
            view = state.view(seat)
            text = json.dumps(view)
            mine = view["components"]["hand"]["hands"][seat]["tiles"]
            assert mine == state.view()["components"]["hand"]["hands"][seat]["tiles"]
            laid = set(state.view()["components"]["line"]["line"])
            hidden = [t for s, h in enumerate(state.view()["components"]["hand"]["hands"])
                      if s != seat for t in h["tiles"]]
            hidden += state.view()["components"]["hand"]["stock"]["order"]
            for tile in hidden:
                assert f'"{tile}"' not in text or tile in laid, (seat, tile)
            others = [h for s, h in enumerate(view["components"]["hand"]["hands"]) if s != seat]
            assert all(set(h) == {"count"} for h in others)
            assert view["components"]["hand"]["stock"] == {
                "count": len(state.view()["components"]["hand"]["stock"]["order"])}
        state.apply(state.legal_actions()[0])


def test_bots_learn_nothing_hidden_from_a_preview() -> None:
    state = game().new_game(players=4, seed=4)
    state.resolve_chance()
    seat = state.current_player
    truth = state.view()["components"]["hand"]
    action = state.legal_actions()[0]
    seen = state.preview(action).view()["components"]["hand"]
    # the seat's own hand is exact (less the tile it laid); the rest was dealt anew
    assert set(seen["hands"][seat]["tiles"]) < set(truth["hands"][seat]["tiles"])
    assert [h["count"] for h in seen["hands"]] == [
        h["count"] - (s == seat) for s, h in enumerate(truth["hands"])]
    assert seen["stock"]["order"] != truth["stock"]["order"]
    # the same position previews the same way (bots stay reproducible)
    assert state.preview(action).view() == state.preview(action).view()


# ---- the variant -------------------------------------------------------------------------------
def test_domino_fives_deals_a_double_six_set_to_two_players_and_scores_fives() -> None:
    g = rulekit.load_game(FIVES)
    assert (g.min_players, g.max_players) == (2, 2)
    state = g.new_game(players=2, seed=1)
    outcome = state.resolve_chance()
    assert len(outcome) == 28
    hands = state.view()["components"]["hand"]
    assert [h["count"] for h in hands["hands"]] == [7, 7]
    assert len(hands["stock"]["order"]) == 14
    names = [f"{a}|{b}" for a in range(7) for b in range(a, 7)]
    order = ["6|6", "0|1", "0|2", "0|3", "1|2", "1|3", "2|3",
             "4|6", "0|0", "1|1", "2|2", "3|3", "4|4", "0|4"]
    state = g.new_game(players=2, seed=1)
    state.resolve_chance([pair(t) for t in order + [t for t in names if t not in order]])
    state.apply("6|6")
    state.apply("4|6 right")                         # 12 + 4 = 16: nothing
    assert state.scores() == [0, 0]
    # seat 0 holds no 4 and no 6: it draws 0|5 (the front of the stock), which does not fit
    assert state.current_player == 1
    state.apply("4|4 right")                         # 12 + 8 = 20: 20 / 5 x 10 x 2
    assert state.scores() == [0, 80]


# ---- the command line --------------------------------------------------------------------------


def test_validate_accepts_domino7_and_its_variant() -> None:
    result = run("validate", str(DOMINO7), str(FIVES))
    assert result.exit_code == 0
    assert result.output.splitlines() == [f"{DOMINO7}: ok", f"{FIVES}: ok"]


def test_simulate_plays_domino7_with_four_players() -> None:
    result = run("simulate", str(DOMINO7), "--players", "4", "--games", "6", "--bots",
                 "random,greedy", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["players"] == 4 and report["games"] == 6
    assert set(report["end_reasons"]) <= {"out", "blocked"}
    assert sum(report["end_reasons"].values()) == 6


def levels_file(tmp_path: Path, levels: str) -> str:
    path = tmp_path / "series.yaml"
    shutil.copy(DOMINO7, tmp_path)  # a base lies next to its variant
    path.write_text(f"extends: domino7.yaml\nname: Series\nlevels:\n{levels}")
    return str(path)


def test_play_passes_a_level_then_fails_the_next_and_ends_with_a_summary(tmp_path) -> None:
    file = levels_file(tmp_path, "  - {name: Easy, min_score: -10000, bots: random}\n"
                                 "  - {name: Hard, min_score: 10000, bots: [greedy, random]}\n"
                                 "  - {name: Never, min_score: 0}\n")
    result = run("play", file, input="a\n" * 300)
    out = result.output
    assert result.exit_code == 0, out
    assert "level 1 of 3: Easy" in out and "level 2 of 3: Hard" in out
    assert "level 3 of 3" not in out
    assert "level 1 (Easy) passed" in out and "level 2 (Hard) failed" in out
    assert "player 1 (greedy), player 2 (random), player 3 (greedy)" in out
    assert "series over: 1 level(s) passed of 3" in out
    assert "[[" not in out                           # the deal is not shown
    assert "player 1's tiles" not in out             # nor another player's hand


def test_play_domino7_reads_its_levels_and_stops_cleanly_at_end_of_input() -> None:
    result = run("play", str(DOMINO7), input="a\na\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Domino 7, level 1 of 6: Novice; score more than 0 to pass" in out
    assert "player 1 (random), player 2 (random), player 3 (random)" in out
    assert "your hand: " in out
    assert "end of input: the series stops at level 1" in out


def test_play_can_start_at_a_later_level(tmp_path) -> None:
    result = run("play", str(DOMINO7), "--level", "4", input="")
    assert result.exit_code == 0
    assert "level 4 of 6: Expert" in result.output
    assert "player 1 (greedy), player 2 (greedy), player 3 (greedy)" in result.output
    assert run("play", str(DOMINO7), "--level", "7", input="").exit_code == 2


def test_a_level_with_an_unknown_bot_is_a_located_error(tmp_path) -> None:
    file = levels_file(tmp_path, "  - {min_score: 0, bots: grredy}\n")
    result = run("validate", file)
    assert result.exit_code == 1
    assert "grredy" in result.output and "greedy" in result.output


# ---- mistakes in a file ------------------------------------------------------------------------
def test_hands_that_do_not_fit_the_set_are_a_located_error(tmp_path) -> None:
    path = tmp_path / "big.yaml"
    shutil.copy(DOMINO7, tmp_path)
    path.write_text("extends: domino7.yaml\nparams:\n  hand_size: {default: 23}\n")
    with pytest.raises(rulekit.GameFileError) as err:
        rulekit.load_game(path)
    (d,) = err.value.diagnostics  # at the variant's value, which the base reads
    assert d.message == "param 'hand_size': 4 hands of 23 tiles do not fit a set of 91 tiles"
    assert d.file == str(path) and d.path == "params.hand_size.default" and d.line == 3
    assert "components.hand.hand_size in " in d.hint
    assert rulekit.load_game(DOMINO7, overrides={"hand_size": 22}).new_game(players=4)


def test_tile_set_and_line_mistakes_are_reported_with_their_place(tmp_path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: Bad\nplayers: {min: 2, max: 2}\n"
        "components:\n"
        "  hand: {kind: tile_set, double: 99, hand_size: 3}\n"
        "  line: {kind: line, per: player}\n"
        "flow:\n  turn:\n"
        "    - lay_tile: {line: line, tile: 'players[0]', end: \"'left'\"}\n"
        "score: 0\n")
    with pytest.raises(rulekit.GameFileError) as err:
        rulekit.load_game(path)
    messages = {d.path: d.message for d in err.value.diagnostics}
    assert "per: player" in messages["components.hand"]
    assert "0 <= N <= 50" in messages["components.hand.double"]
    assert "shared" in messages["components.line.per"]
    assert "Tile" in messages["flow.turn[0].lay_tile.tile"]


WRONG_LAYS = """\
name: Wrong lays
players: {min: 2, max: 2}
components:
  hand: {kind: tile_set, per: player, double: 3, hand_size: 3}
  line: {kind: line}
flow:
  setup:
    - deal: hand
  turn:
    - choose:
        options:
          - for: "t in player.hand.tiles, side in ['left', 'right', 'up']"
            label: "{t} {side}"
            do:
              - lay_tile: {line: line, tile: t, end: side, from: player.hand}
          - for: "t in player.hand.tiles"
            label: "drop {t}"
            do:
              - lay_tile: {line: line, tile: t, from: player.hand}
end:
  when: {done: "turn > 6"}
score: 0
"""


@pytest.mark.parametrize(("move", "where", "refusal"), [
    ("2|2 left", "15:17", "2|2 does not fit the left end (0) of line 'line'"),
    ("2|2 right", "15:17", "2|2 does not fit the right end (1) of line 'line'"),
    ("0|0 up", "15:17", "a line has the ends 'left' and 'right', not 'up'"),
    ("drop 2|2", "19:17", "2|2 fits no open end of line 'line'"),
])
def test_a_lay_where_the_tile_does_not_fit_is_refused_at_its_step(
        tmp_path, move: str, where: str, refusal: str) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG_LAYS, encoding="utf-8")
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance(deal(3, [["0|1", "1|1", "2|3"], ["0|0", "2|2", "3|3"]]))
    state.apply("0|1 left")  # an empty line takes any tile: its ends are 0 and 1
    with pytest.raises(rulekit.RulekitError) as err:
        state.apply(move)
    assert str(err.value) == f"{path}:{where}: an action failed while the game ran: {refusal}"


def test_a_lay_at_the_end_it_fits_turns_the_tile_and_an_omitted_end_takes_the_first(
        tmp_path) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(WRONG_LAYS, encoding="utf-8")
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance(deal(3, [["0|1", "1|1", "2|3"], ["0|0", "2|2", "3|3"]]))
    state.apply("0|1 left")
    state.apply("0|0 left")  # 0|0 at the left end (0)
    state.apply("drop 1|1")  # fits the right end only (1)
    assert line(state)["line"] == ["0|0", "0|1", "1|1"]
    assert line(state)["ends"] == {"left": 0, "right": 1}


@pytest.mark.parametrize(("doubles", "sums"), [("crosswise", [1, 1, 2, 0]),
                                               ("inline", [1, 1, 1, 0])])
def test_the_end_sum_follows_every_lay_and_a_cleared_line(tmp_path, doubles: str,
                                                          sums: list[int]) -> None:
    """0|1, then 0|0 at the left, then 1|1 at the right: doubles at both ends, which count
    both halves when crosswise; a cleared line sums to 0."""
    text = WRONG_LAYS.replace("line: {kind: line}", f"line: {{kind: line, doubles: {doubles}}}")
    lay = "              - lay_tile: {line: line, tile: t, end: side, from: player.hand}\n"
    text = text.replace(lay, lay + """              - say: "sum {line.end_sum}"
          - label: clear
            do:
              - clear_line: {line: line}
              - say: "sum {line.end_sum}"
""")
    path = tmp_path / "sums.yaml"
    path.write_text(text, encoding="utf-8")
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance(deal(3, [["0|1", "1|1", "2|3"], ["0|0", "2|2", "3|3"]]))
    for move in ("0|1 left", "0|0 left", "1|1 right", "clear"):
        state.apply(move)
    assert says(state) == [f"sum {n}" for n in sums]
    assert line(state) == {"line": [], "ends": {}, "end_sum": 0, "last": None}
