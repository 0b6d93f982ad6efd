"""The studies' text reports as a designer reads them in an 80-column terminal: a plain
summary first, every line within 80 columns, one unit per kind of figure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOMINO = str(ROOT / "games" / "domino7.yaml")
QWIXX = str(ROOT / "games" / "qwixx.yaml")


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


REPORTS = {
    "simulate": ["simulate", DOMINO, "--games", "30", "--seed", "1"],
    "compare": ["compare", DOMINO, "--set-b", "divisor=5", "--games", "30", "--seed", "1"],
    "sweep": ["sweep", DOMINO, "--vary", "divisor=[5, 7]", "--games", "20", "--seed", "1"],
    "sweep grid": ["sweep", DOMINO, "--vary", "divisor=[5, 7]", "--vary",
                   "winner_bonus=[0, 50]", "--games", "10"],
    "ladder": ["ladder", DOMINO, "--bots", "random,greedy", "--games", "5"],
    "qwixx": ["simulate", QWIXX, "--games", "10", "--bots", "greedy,random"],
}


@pytest.mark.parametrize("name", list(REPORTS))
def test_every_line_of_every_report_fits_80_columns(name: str) -> None:
    out = run(*REPORTS[name])
    too_long = [line for line in out.splitlines() if len(line) > 80]
    assert not too_long


def test_simulate_opens_with_a_plain_summary() -> None:
    first = run(*REPORTS["simulate"]).splitlines()[0]
    assert re.match(r"seat 0 wins \d+% of games \(fair share 25%\): ", first)
    out = run(*REPORTS["simulate"])
    assert "first-player edge: " in out and " pp [" in out
    assert "points [" not in out  # a difference of rates is never "points"


def test_compare_summary_claims_only_what_the_interval_backs() -> None:
    out = run(*REPORTS["compare"])
    first = out.split("\n\n")[0].replace("\n  ", " ")
    # divisor 5 scores more often; the seeds are shared and games end alike
    assert first.startswith("B scores ") and "more points a game" in first
    assert "no clear difference in game length" in first
    assert "the first player's edge is unchanged" in first


def test_compare_shows_rates_in_percent_and_their_differences_in_pp() -> None:
    out = run(*REPORTS["compare"])
    line = next(x for x in out.splitlines() if x.startswith("seat 0 win rate"))
    assert re.search(r"\d+\.\d% +\d+\.\d% +[+-]\d+\.\d pp", line)
    assert "0.2" not in line.split()[4]


def test_sweep_summary_names_the_figure_a_value_moves() -> None:
    out = run(*REPORTS["sweep"])
    first = out.split("\n\n")[0].replace("\n  ", " ")
    assert re.search(r"score from [\d.]+ points \(divisor=\d\) to [\d.]+ points", first)
    assert "no clear change in" in first


def test_a_report_of_no_finished_game_claims_nothing() -> None:
    from rulekit.studies.text import summary_compare, summary_simulate, summary_sweep

    for summary in (summary_simulate, summary_compare, summary_sweep):
        assert summary({"games": 0}) == "no game finished: nothing to report yet"
