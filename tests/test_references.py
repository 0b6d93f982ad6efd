"""The hand-written games of benchmarks/reference/ play the rules of RULES.md.

They are the yardstick of the engine's speed (benchmarks/compare.py), so they must play the
same games as the YAML files: in lock-step with rulekit, both sides see the same dice or
deal, must offer the same labels to the same seat at every decision, and keep the same
scores and log. Random games check what the rules imply (scores from crosses, chips and
tiles conserved, the ways a game ends), and the optimised Qwixx, which has no API to
compare against, must give the scores of the plain one.
"""

from __future__ import annotations

import copy
import json
import random
import re
import statistics
import sys
from pathlib import Path

import pytest

import rulekit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmarks/ is not part of the installed package

from benchmarks.reference import domino7, levelx, qwixx, qwixx_bound, qwixx_fast  # noqa: E402
from benchmarks.reference.common import ChanceError, IllegalActionError  # noqa: E402

REFERENCES = {"qwixx": qwixx.GAME, "levelx": levelx.GAME, "domino7": domino7.GAME}


@pytest.fixture(scope="module")
def yaml_games() -> dict[str, rulekit.Game]:
    return {name: rulekit.load_game(ROOT / "games" / f"{name}.yaml") for name in REFERENCES}


def random_game(state, rng: random.Random):
    """Play random legal actions to the end; returns the state."""
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state


def labels(state) -> list[str]:
    return sorted(a.label for a in state.legal_actions())


def moves(log: list[dict]) -> list[dict]:
    """Chance outcomes and decisions (forced ones included), without rulekit's `say` lines."""
    return [e for e in log if "say" not in e]


def uniform(ref, actions: list, rng: random.Random) -> str:
    return rng.choice(actions).label


def thrifty(ref: qwixx.QwixxState, actions: list, rng: random.Random) -> str:
    """Qwixx: cross where at most two numbers are lost, else pass. Random play nearly always
    ends by penalties; this ends about half the games by locks."""
    sheet = ref.sheets[ref.current_player]
    good = []
    for a in actions:
        if a.label != "pass":
            colour, number = a.label.split()
            if qwixx.ROWS[colour].index(int(number)) - sheet.rightmost[colour] <= 3:
                good.append(a.label)
    return rng.choice(good) if good else "pass"


def lockstep(yaml_game: rulekit.Game, reference, players: int, seed: int,
             policy=uniform) -> None:
    """One game on both sides: the dice (or deal) of one side imposed on the other, the
    labels compared at every decision, one side's choice (by `policy`) played on both."""
    rk = yaml_game.new_game(players=players, seed=seed)
    ref = reference.new_game(players=players, seed=seed)
    # odd seeds: the reference samples and decides; even seeds: rulekit does
    leader, follower = (ref, rk) if seed % 2 else (rk, ref)
    rng = random.Random(seed)
    decisions = 0
    while not rk.is_over:
        assert not ref.is_over, f"seed {seed}: the reference ended first: {ref.log[-4:]}"
        assert rk.is_chance == ref.is_chance, f"seed {seed}: {moves(rk.log)[-4:]}"
        if rk.is_chance:
            follower.resolve_chance(leader.resolve_chance())
            continue
        assert rk.current_player == ref.current_player
        assert labels(rk) == labels(ref), f"seed {seed}, after {moves(rk.log)[-4:]}"
        label = policy(ref, leader.legal_actions(), rng)
        rk.apply(label)
        ref.apply(label)
        decisions += 1
        assert rk.scores() == ref.scores()
    assert ref.is_over, f"seed {seed}: rulekit ended, the reference did not: {rk.end_reason}"
    assert decisions > 0
    assert rk.scores() == ref.scores()
    assert rk.winners() == ref.winners()
    assert rk.end_reason == ref.end_reason
    assert moves(rk.log) == moves(ref.log)


@pytest.mark.parametrize(("name", "players", "games", "policy"), [
    ("qwixx", 2, 40, uniform), ("qwixx", 3, 60, uniform), ("qwixx", 5, 30, uniform),
    ("qwixx", 3, 60, thrifty), ("qwixx", 4, 30, thrifty),
    ("levelx", 2, 60, uniform), ("levelx", 4, 30, uniform),
    ("domino7", 4, 60, uniform),
])
def test_the_reference_offers_the_labels_of_the_yaml_game_at_every_decision(
        yaml_games, name, players, games, policy):
    for seed in range(games):
        lockstep(yaml_games[name], REFERENCES[name], players, seed, policy)


# ---- Qwixx --------------------------------------------------------------------------------
def crossed_numbers(log: list[dict], players: int) -> dict[tuple[int, str], list[int]]:
    """The numbers each seat crossed in each row, in the order they were crossed."""
    out: dict[tuple[int, str], list[int]] = {(s, c): [] for s in range(players)
                                             for c in qwixx.COLOURS}
    for entry in log:
        if entry.get("action", "pass") != "pass":
            colour, number = entry["action"].split()
            out[entry["seat"], colour].append(int(number))
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_qwixx_reference_crosses_left_to_right_scores_its_crosses_and_ends_by_the_rules(players):
    rng = random.Random(players)
    for seed in range(80):
        state = random_game(qwixx.GAME.new_game(players=players, seed=seed), rng)
        locks = [c for c in qwixx.COLOURS if any(s.crosses[c] >= 7 and s.rightmost[c] == 10
                                                  for s in state.sheets)]
        assert sorted(locks) == sorted(state.locked)
        penalties = [s.penalties for s in state.sheets]
        assert max(penalties) == qwixx.MAX_PENALTIES or len(state.locked) >= 2
        assert max(penalties) <= qwixx.MAX_PENALTIES and len(state.locked) <= 4
        for (seat, colour), numbers in crossed_numbers(state.log, players).items():
            row = qwixx.ROWS[colour]
            cells = [row.index(n) for n in numbers]
            assert cells == sorted(set(cells)), f"{colour} crossed out of order: {numbers}"
            if cells and cells[-1] == len(row) - 1:
                assert len(cells) - 1 >= qwixx.MIN_CROSSES_TO_LOCK
            lock = 1 if cells and cells[-1] == len(row) - 1 else 0
            assert state.sheets[seat].crosses[colour] == len(cells) + lock
        expected = [sum(qwixx.ROW_SCORES[s.crosses[c]] for c in qwixx.COLOURS)
                    - qwixx.PENALTY_POINTS * s.penalties for s in state.sheets]
        assert state.scores() == expected
        # a locked row's die is no longer rolled, and nobody crosses in that row again
        gone: set[str] = set()
        for entry in state.log:
            if "chance" in entry:
                gone = set(qwixx.DICE) - set(entry["outcome"])
            elif entry["action"] != "pass":
                assert entry["action"].split()[0] not in gone


def test_the_optimised_qwixx_scores_like_the_plain_reference():
    """Both play uniformly random legal actions: the same rules give the same mean scores
    (within four standard errors over a thousand games each)."""
    rng = random.Random(3)
    plain = [random_game(qwixx.GAME.new_game(players=3, seed=s), rng).scores()
             for s in range(1000)]
    fast = [qwixx_fast.random_game(3, random.Random(s)) for s in range(1000)]
    for figure in (statistics.fmean, max, min):
        a = [figure(scores) for scores in plain]
        b = [figure(scores) for scores in fast]
        se = (statistics.variance(a) / len(a) + statistics.variance(b) / len(b)) ** 0.5
        assert abs(statistics.fmean(a) - statistics.fmean(b)) < 4 * se, figure.__name__


def test_the_optimised_qwixx_ends_with_scores_a_game_can_have():
    for seed in range(300):
        scores = qwixx_fast.random_game(2 + seed % 4, random.Random(seed))
        assert len(scores) == 2 + seed % 4
        assert all(-qwixx.MAX_PENALTIES * qwixx.PENALTY_POINTS <= s <= 4 * 78 for s in scores)


class Eager(random.Random):
    """Mostly the first option, seldom the pass: random Qwixx games end by locks too."""

    def _randbelow(self, n: int) -> int:
        return 0 if self.random() < 0.8 else super()._randbelow(n)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_qwixx_by_hand_over_the_state_plays_the_games_of_state_playout(yaml_games, players):
    """The bound of compare.py plays what `State.playout` plays: the same log, sheets,
    dice, variables, turn and end, from the same seeds."""
    game = yaml_games["qwixx"]
    ends = set()
    for seed, rng in [(s, kind(s)) for s in range(40) for kind in (random.Random, Eager)]:
        fast, hand = game.new_game(players=players, seed=seed), game.new_game(
            players=players, seed=seed)
        fast.playout(copy.deepcopy(rng))
        qwixx_bound.playout(hand, rng)
        assert hand.log == fast.log, seed
        assert (hand.comps, hand.pvars, hand.scores()) == (fast.comps, fast.pvars,
                                                            fast.scores()), seed
        assert (hand.turn, hand.round, hand.active) == (fast.turn, fast.round, fast.active)
        assert hand.is_over and hand.end_reason == fast.end_reason
        ends.add(hand.end_reason)
    assert ends == {"locks", "penalties"}


# ---- Level X ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_levelx_reference_conserves_chips_and_tiles_and_finishes_the_round(players):
    rng = random.Random(players)
    chips = levelx.CHIPS_FOUR_PLAYERS if players == 4 else levelx.CHIPS_TWO_THREE_PLAYERS
    for seed in range(60):
        state = levelx.GAME.new_game(players=players, seed=seed)
        while not state.is_over:
            if state.is_chance:
                state.resolve_chance()
            else:
                state.apply(rng.choice(state.legal_actions()))
            for row in levelx.ROWS:
                assert state.chips[row] + sum(w[row] for w in state.won) == chips[row]
                at_x = [s for s in range(players)
                        if state.pawns[s][row] == levelx.ROW_LENGTHS[row]]
                assert at_x == ([state.on_x[row]] if state.on_x[row] is not None else [])
            held = [t for h in state.bonus_held for t in h]
            assert sorted(held + state.bonus_left) == sorted(levelx.BONUS_TILES)
            for seat in range(players):
                assert len(state.bonus_held[seat]) <= min(state.won[seat].values())
        rolls = sum(1 for e in state.log if "chance" in e)
        assert rolls % players == 0, "every player has had as many turns"
        empty = sum(1 for n in state.chips.values() if n == 0)
        assert not state.bonus_left or empty >= levelx.EMPTY_ROWS_TO_END
        assert state.scores() == [
            sum(r * n for r, n in state.won[s].items()) + sum(state.bonus_held[s])
            for s in range(players)]


def test_levelx_offers_each_distinct_use_of_the_dice_once():
    # RULES.md's example: with 1-2-3-5, "6 + 5", "10", "5 + 5" (the 1 unused) ... and pass
    state = levelx.GAME.new_game(players=2, seed=1)
    state.resolve_chance({"d1": 1, "d2": 2, "d3": 3, "d4": 5})
    found = labels(state)
    assert len(found) == len(set(found))
    assert {"5 + 6", "10", "5 + 5", "pass"} <= set(found)


# ---- Domino 7 -----------------------------------------------------------------------------
def laid_tiles(log: list[dict]) -> list[domino7.Tile]:
    out = []
    for entry in log:
        if "action" in entry:
            a, b = entry["action"].split()[0].split("|")
            out.append(domino7.Tile(int(a), int(b)))
    return out


def test_domino_reference_conserves_tiles_and_ends_when_a_hand_is_empty_or_nobody_can_lay():
    rng = random.Random(7)
    for seed in range(100):
        state = domino7.GAME.new_game(players=4, seed=seed)
        while not state.is_over:
            if state.is_chance:
                state.resolve_chance()
            else:
                state.apply(rng.choice(state.legal_actions()))
            if state.is_chance:
                continue
            laid = laid_tiles(state.log)
            held = [t for h in state.hands for t in h] + state.stock
            assert sorted(laid + held) == domino7.SET, "every tile once: line, hands, stock"
            assert len(laid) == state.line_size
            assert all(p % domino7.POINTS_PER_MULTIPLE == 0 for p in state.points)
        out = [s for s in range(4) if not state.hands[s]]
        if state.end_reason == "out":
            assert len(out) == 1
        else:
            assert state.end_reason == "blocked" and not out and not state.stock
            assert not any(state._sides(t) for h in state.hands for t in h)
        results = [state.points[s] - sum(t.pips for t in state.hands[s]) for s in range(4)]
        bonus = [domino7.WINNER_BONUS if r == max(results) else 0 for r in results]
        assert state.scores() == [r + b for r, b in zip(results, bonus)]


# ---- the API ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_a_reference_refuses_illegal_moves_and_outcomes_and_its_clones_are_independent(name):
    players = {"qwixx": 3, "levelx": 2, "domino7": 4}[name]
    state = REFERENCES[name].new_game(players=players, seed=5)
    with pytest.raises(ChanceError):
        state.resolve_chance({"no such die": 1})
    with pytest.raises(IllegalActionError):
        state.legal_actions()
    state.resolve_chance()
    with pytest.raises(ChanceError):
        state.resolve_chance()
    before = list(state.log)
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply("no such move")
    assert state.log == before
    copy = random_game(state.clone(), random.Random(1))
    assert copy.is_over and not state.is_over and state.log == before
    assert random_game(state, random.Random(1)).scores() == copy.scores()


# ---- the comparison ---------------------------------------------------------------------
def test_compare_reports_games_per_second_and_ratios_of_every_game(capsys):
    from benchmarks import compare

    compare.main(["--games", "2", "--rounds", "2", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [(r["game"], r["players"]) for r in report["results"]] == [
        ("Qwixx", 3), ("Level X", 2), ("Domino 7", 4)]
    for r in report["results"]:
        cs = r["contenders"]
        assert all(len(c["rounds"]) == 2 and c["best"] > 0 for c in cs.values())
        assert r["yaml_vs_plain"] == pytest.approx(cs["yaml"]["best"] / cs["plain"]["best"])
        assert r["playout_vs_machine"] == pytest.approx(
            cs["playout"]["best"] / cs["machine"]["best"])
        assert cs["study"]["decisions_per_game"] > 0  # a study counts its games' decisions
    assert "optimised" in report["results"][0]["contenders"]
    qwixx_report = report["results"][0]
    assert qwixx_report["playout_vs_bound"] == pytest.approx(
        qwixx_report["contenders"]["playout"]["best"]
        / qwixx_report["contenders"]["bound"]["best"])
    compare.main(["--games", "1", "--rounds", "1"])
    text = capsys.readouterr().out
    assert "| Qwixx | 3 |" in text and "Targets:" in text
    # whether each target is met: the API loop, playouts, Qwixx's whole games
    assert re.search(r"Qwixx: API loop vs plain (not )?met; playout vs plain (not )?met; "
                     r"whole games vs optimised (not )?met", text)
    assert re.search(r"Level X: API loop vs plain (not )?met; playout vs plain (not )?met "
                     r"\(", text)
    # the flat backend against the machine's path, for every game
    assert re.search(r"against its machine path: Qwixx \d+\.\d\dx, Level X \d+\.\d\dx, "
                     r"Domino 7 \d+\.\d\dx", text)
    assert re.search(r"Qwixx's turns by hand over rulekit's State .*: [\d,]+ games/s, "
                     r"\d\.\d\dx the optimised; `State.playout` is \d\.\d\dx of it", text)


def test_compare_refuses_zero_games_as_a_usage_error(capsys):
    from benchmarks import compare

    with pytest.raises(SystemExit) as exc:
        compare.main(["--games", "0"])
    assert exc.value.code == 2
    assert "--games and --rounds must be at least 1" in capsys.readouterr().err


# ---- instruction counts -----------------------------------------------------------------
def test_instructions_reports_the_count_per_game_of_every_game_and_mode(monkeypatch, capsys):
    from benchmarks import instructions

    # valgrind's count: 1,000 for loading, 1,000 more per game in the API loop, 800 more
    # per game in State.playout, 700 more per game of the plain reference
    def fake_count(file, players, mode, games, seed):
        return 1_000 + games * {"api": 1_000, "playout": 800, "plain": 700}[mode] * 1_000

    monkeypatch.setattr(instructions, "count", fake_count)
    monkeypatch.setattr(instructions.shutil, "which", lambda name: "/usr/bin/valgrind")
    instructions.main(["--games", "4"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        f"  {name}: api 1.00 M, playout 0.80 M, plain 0.70 M; YAML / plain 0.70x "
        "(playout 0.88x)"
        for name in ("Qwixx (3 players)", "Level X (2 players)", "Domino 7 (4 players)")]


def test_instructions_plays_what_valgrind_counts():
    from benchmarks import instructions

    # the child plays each game file for real (a wrong file or player count raises)
    for _name, file, players in instructions.GAMES:
        for mode in instructions.MODES:
            instructions.main(["--child", file, str(players), mode, "1", "1"])


def test_instructions_refuses_zero_games_as_a_usage_error(capsys):
    from benchmarks import instructions

    with pytest.raises(SystemExit) as exc:
        instructions.main(["--games", "0"])
    assert exc.value.code == 2
    assert "--games must be at least 1" in capsys.readouterr().err
