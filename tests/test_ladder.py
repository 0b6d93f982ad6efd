"""`rulekit ladder`: round-robin games between bots, ratings with intervals, and the
arithmetic behind them checked against figures worked out by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.ladder import fit, wilson

QWIXX = str(Path(__file__).resolve().parent.parent / "games" / "qwixx.yaml")


def test_wilson_intervals_match_the_textbook_figures() -> None:
    # 0 of 10 and 5 of 10 at 95%: (0, 0.2775) and (0.2366, 0.7634)
    assert [round(x, 4) for x in wilson(0, 10)] == [0.0, 0.2775]
    assert [round(x, 4) for x in wilson(5, 10)] == [0.2366, 0.7634]
    assert wilson(0, 0) == (0.0, 1.0)


def test_two_bots_are_rated_by_their_odds_with_one_prior_draw() -> None:
    """b won 3 of 4 comparisons; with half a win added to each side its odds are
    3.5 to 1.5, i.e. 400 * log10(3.5 / 1.5) Elo points above a."""
    ratings = fit(["a", "b"], {("a", "b"): 1.0, ("b", "a"): 3.0}, {frozenset("ab"): 4.0})
    assert ratings[0] == 0.0
    assert ratings[1] == pytest.approx(400 * math.log10(3.5 / 1.5))


def test_the_ladder_rates_every_bot_and_reports_each_pair() -> None:
    result = CliRunner().invoke(main, ["ladder", QWIXX, "--bots", "random,greedy,mcts:5",
                                       "--games", "2", "--players", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    ratings = {r["bot"]: r for r in report["ratings"]}
    assert set(ratings) == {"random", "greedy", "mcts:5"}
    assert ratings["random"]["rating"] == 0.0  # the first bot is the anchor
    for r in ratings.values():
        lo, hi = r["interval"]
        assert lo <= r["rating"] <= hi
    pairs = {(h["bot"], h["opponent"]) for h in report["head_to_head"]}
    assert pairs == {("random", "greedy"), ("random", "mcts:5"), ("greedy", "mcts:5")}
    for h in report["head_to_head"]:
        assert h["comparisons"] == 2 and 0 <= h["rate"] <= 1  # one comparison per 2p game
    text = CliRunner().invoke(main, ["ladder", QWIXX, "--bots", "random,greedy",
                                     "--games", "1"])
    assert text.exit_code == 0 and "95% interval" in text.output


@pytest.mark.parametrize(("bots", "code", "message"), [
    ("random", 1, "two different bots at least"),
    ("greedy,greedy", 1, "two different bots at least"),
    ("random,mcts:0", 2, "bad budget '0'"),
])
def test_a_ladder_needs_two_valid_bots(bots, code, message) -> None:
    result = CliRunner().invoke(main, ["ladder", QWIXX, "--bots", bots, "--games", "1"])
    assert result.exit_code == code
    assert message in result.output and "Traceback" not in result.output


def _ladder_json(*options: str) -> dict:
    result = CliRunner().invoke(main, ["ladder", QWIXX, "--bots", "random,greedy,mcts:5",
                                       "--games", "3", "--players", "3", "--seed", "7",
                                       "--json", *options])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    report.pop("seconds")
    return report


def test_a_ladder_in_two_processes_or_on_dask_is_the_ladder_of_one_process() -> None:
    """The games run wherever they are sent; ratings, intervals and head-to-head rates
    come out the same, since every game is seated and seeded by its place in the ladder."""
    one = _ladder_json("--jobs", "1")
    assert one["games_per_pair"] == 3 and len(one["ratings"]) == 3
    assert _ladder_json("--jobs", "2") == one
    pytest.importorskip("distributed")
    assert _ladder_json("--dask", "local") == one


def test_the_ladder_keeps_its_seeds() -> None:
    """Game i of bots a and b is dealt by derive_seed(seed, "ladder", a, b, i), its bots
    draw from derive_seed(seed, "ladder-bots", a, b, i): replaying those two games by hand
    gives the head-to-head rate the ladder reports, so figures published before stay valid."""
    import random

    from rulekit import load_game
    from rulekit.bots import make
    from rulekit.studies.play import derive_seed, play_game, seat_bots

    game, won, games = load_game(QWIXX), 0.0, 10
    for i in range(games):
        names = seat_bots(["random", "mcts:1"], 2, i)
        state = game.new_game(players=2, seed=derive_seed(3, "ladder", "random", "mcts:1", i))
        play_game(state, [make(n) for n in names],
                  random.Random(derive_seed(3, "ladder-bots", "random", "mcts:1", i)))
        mine, theirs = (state.scores()[names.index(b)] for b in ("random", "mcts:1"))
        won += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    result = CliRunner().invoke(main, ["ladder", QWIXX, "--bots", "random,mcts:1", "--games",
                                       str(games), "--players", "2", "--seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    (pair,) = json.loads(result.stdout)["head_to_head"]
    assert 0 < won < games and pair["rate"] == round(won / games, 4)

