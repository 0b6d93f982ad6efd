"""`--plot FILE.png|svg`: the studies' figures drawn with matplotlib (optional extra `plot`).

matplotlib is imported only here, and only when a plot is asked for; `require()` runs
before any game is played, so a missing extra costs no time. The Agg backend draws
without a display.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.errors import RulekitError
from rulekit.studies.simulate import SimulateTally
from rulekit.studies.stats import Tally
from rulekit.studies.sweep import COLUMNS, table_rows
from rulekit.text import printable

FORMATS = (".png", ".svg")


def require(path: str) -> Any:
    """pyplot, or a `RulekitError` saying what to install or which formats exist."""
    if Path(path).suffix.lower() not in FORMATS:
        raise RulekitError(f"--plot {printable(path)}: the file name must end in .png or .svg")
    try:
        import matplotlib
    except ImportError:
        from rulekit.studies.command import install_hint

        raise RulekitError("--plot needs matplotlib: install the extra plot with "
                           + install_hint("plot")) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _steps(ax: Any, tally: Tally, label: str) -> None:
    """A distribution as the share of games at each value."""
    values = list(tally.values())
    if values:
        xs = [v for v, _ in values]
        ys = [c / tally.n for _, c in values]
        ax.plot(xs, ys, drawstyle="steps-mid", label=label)


def _save(fig: Any, path: str, plt: Any) -> None:
    fig.tight_layout()
    try:  # checked before the study; a disk that filled up since is still one message
        fig.savefig(path)
    except OSError as exc:
        raise RulekitError(f"--plot {printable(path)}: cannot be written "
                           f"({exc.strerror or exc})") from None
    finally:
        plt.close(fig)


def plot_simulate(path: str, tally: SimulateTally, title: str) -> None:
    """Score distribution per seat, and game length in turns."""
    plt = require(path)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for seat, t in enumerate(tally.seat_score):
        _steps(left, t, f"seat {seat}")
    left.set(title="score by seat", xlabel="score", ylabel="share of games")
    left.legend()
    _steps(right, tally.turns, "turns")
    right.set(title="game length", xlabel="turns", ylabel="share of games")
    fig.suptitle(title)
    _save(fig, path, plt)


def plot_compare(path: str, tallies: Sequence[SimulateTally], labels: Sequence[str],
                 title: str) -> None:
    """Both variants' score distributions (all seats) and game lengths, side by side."""
    plt = require(path)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for t, label in zip(tallies, labels):
        _steps(left, t.score, label)
        _steps(right, t.turns, label)
    left.set(title="score (all seats)", xlabel="score", ylabel="share of games")
    right.set(title="game length", xlabel="turns", ylabel="share of games")
    left.legend()
    right.legend()
    fig.suptitle(title)
    _save(fig, path, plt)


def plot_sweep(path: str, report: dict, title: str) -> None:
    """Each figure against the first param (one line per value of the second), with bars
    for the 95% intervals."""
    plt = require(path)
    rows = table_rows(report)
    names = report["vary"]
    x_name = names[0]
    groups: dict[str, list[dict]] = {}
    for row in rows:
        key = f"{names[1]}={row[names[1]]}" if len(names) > 1 else ""
        groups.setdefault(key, []).append(row)
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5))
    positions = {repr(row[x_name]): i for i, row in enumerate(groups[next(iter(groups))])}
    for ax, (column, _) in zip(axes.flat, COLUMNS):
        # rates in percent and the edge in percentage points, as in the text report
        scale = 100 if column.endswith(("rate", "edge")) else 1
        for key, group in groups.items():
            xs = [positions[repr(r[x_name])] for r in group]
            ys = [scale * r[column] for r in group]
            err = [[y - scale * r[f"{column} low"] for y, r in zip(ys, group)],
                   [scale * r[f"{column} high"] - y for y, r in zip(ys, group)]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=key or None)
        ax.set_xticks(list(positions.values()),
                      [printable(k) for k in positions], fontsize=8)
        if column == "first-player edge":  # no edge: the fair share exactly
            ax.axhline(0, color="grey", linewidth=0.8)
        unit = " (%)" if column.endswith("rate") else " (pp)" if column.endswith("edge") else ""
        ax.set(title=column + unit, xlabel=printable(x_name))
        if len(groups) > 1:
            ax.legend(fontsize=7)
    fig.suptitle(title)
    _save(fig, path, plt)
