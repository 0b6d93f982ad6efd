"""compare: two variants of a game played on the same seeds, figure by figure.

Game i of A and game i of B get the same dice seed, the same seating and the same bot
seeds (common random numbers). Where the variants do not differ the games are the same,
so a difference measured game by game carries much less luck than two separate runs:
each figure's difference is the mean of its per-game differences B - A, with a t
interval, and it is significant when that interval excludes 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rulekit.studies.runner import Progress
from rulekit.studies.simulate import GamesOut, Interrupted, SimulateTally, check_setup, stream
from rulekit.studies.stats import Mean, significant

if TYPE_CHECKING:
    from rulekit import Game


def _figures(r: dict, players: int) -> dict[str, float]:
    """A game's record as the numbers compare measures."""
    winners = r["winners"]
    share = 1.0 / len(winners) if winners else 0.0
    out = {f"seat {s} win rate": share if s in winners else 0.0 for s in range(players)}
    out |= {f"seat {s} score": float(r["scores"][s]) for s in range(players)}
    out["score (all seats)"] = sum(r["scores"]) / players
    out["tie rate"] = 1.0 if len(winners) > 1 else 0.0
    out["turns"] = float(r["turns"])
    out["decisions"] = float(r["decisions"])
    return out


class PairedTally:
    """Per-figure means of A, of B and of the per-game differences B - A."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.games = 0
        self.a: dict[str, Mean] = {}
        self.b: dict[str, Mean] = {}
        self.diff: dict[str, Mean] = {}

    def add(self, ra: dict, rb: dict) -> None:
        fa, fb = _figures(ra, self.players), _figures(rb, self.players)
        for reason in sorted({ra["end"], rb["end"]}):
            key = f"ended by {reason}"
            fa[key] = 1.0 if ra["end"] == reason else 0.0
            fb[key] = 1.0 if rb["end"] == reason else 0.0
        for key in self.diff.keys() - fa.keys():  # a known end reason neither game had
            fa[key] = fb[key] = 0.0
        for key in fa:
            if key not in self.diff:  # a figure first seen now was 0 in earlier games
                for table in (self.a, self.b, self.diff):
                    table[key] = m = Mean()
                    m.n = self.games
            self.a[key].add(fa[key])
            self.b[key].add(fb[key])
            self.diff[key].add(fb[key] - fa[key])
        self.games += 1

    def report(self) -> list[dict[str, Any]]:
        out = []
        for key, d in self.diff.items():
            lo, hi = d.ci95()
            out.append({"figure": key, "a": round(self.a[key].mean, 4),
                        "b": round(self.b[key].mean, 4), "diff": round(d.mean, 4),
                        "ci95": [round(lo, 4), round(hi, 4)],
                        "significant": significant((lo, hi))})
        return out


def compare(game_a: Game, game_b: Game, games: int, players: int, bots: list[str], seed: int,
            labels: Sequence[str] = ("A", "B"), progress: Progress | None = None,
            jobs: int | None = 1, dask: str | None = None, games_out: TextIO | None = None,
            tallies: list[SimulateTally] | None = None) -> dict[str, Any]:
    """Play both variants on the same seeds; each side's report and the paired differences.

    Ctrl-C raises `Interrupted` holding the report of the games finished on both sides.
    """
    names = check_setup(game_a, games, players, bots)
    check_setup(game_b, games, players, names)
    ta = SimulateTally(game_a, players, names)
    tb = SimulateTally(game_b, players, names)
    paired = PairedTally(players)

    def add(rows: tuple) -> None:
        ta.add(rows[0])
        tb.add(rows[1])
        paired.add(rows[0], rows[1])

    done, seconds, stopped = stream([game_a, game_b], games, players, names, seed, add, jobs,
                                    dask, progress, GamesOut(games_out, list(labels)))
    if tallies is not None:
        tallies += [ta, tb]
    report = {"games": done, "players": players, "bots": names, "seed": seed,
              "labels": list(labels), "a": ta.report(), "b": tb.report(),
              "differences": paired.report(), "seconds": round(seconds, 3)}
    if stopped:
        raise Interrupted(report | {"interrupted": True, "games_planned": games})
    return report
