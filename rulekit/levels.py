"""A game file's series of levels (`levels:`): what each level is, whom it seats, its seed,
and whether a score passes it.

`rulekit play` (in the terminal) and `rulekit serve` (in the browser) play a series
through this module, so that a level is the same game, with the same bots and the same
deal, in both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Level:
    """One level of a series: a game against its bots that a score above `min_score`
    passes."""

    number: int       # from 1
    of: int           # how many levels the series has
    name: str
    min_score: int
    bots: tuple[str, ...] | None  # the computer seats' bots in turn; None: the player's own

    def passed(self, score: int) -> bool:
        return score > self.min_score

    def seed(self, series_seed: int) -> int:
        """The level's own seed: every level of a series deals anew."""
        from rulekit.studies.play import derive_seed

        return derive_seed(series_seed, "level", self.number)

    def seats(self, n: int, person: int | None, bots: Sequence[str]) -> dict[int, str]:
        """The bot at every seat but the person's (None: at every seat): the level's bots,
        else `bots`, given to those seats in turn."""
        return bots_in_turn(n, person, self.bots or bots)

    def verdict(self, score: int) -> str:
        """`passed` or `failed`, with the score and the minimum, in words."""
        return (f"{'passed' if self.passed(score) else 'failed'}: level score {score}, "
                f"minimum {self.min_score}")


def bots_in_turn(n: int, person: int | None, bots: Sequence[str]) -> dict[int, str]:
    """The bot at every seat but the person's: `bots` given to those seats in turn."""
    others = [s for s in range(n) if s != person]
    return {s: bots[k % len(bots)] for k, s in enumerate(others)}


def levels(game: Any) -> list[Level]:
    """The game file's levels, in order (none when it has no `levels:`)."""
    out = []
    for i, spec in enumerate(game.levels, 1):
        bots = spec.get("bots")
        if isinstance(bots, str):
            bots = [bots]
        out.append(Level(i, len(game.levels), str(spec.get("name") or f"level {i}"),
                         int(spec.get("min_score", 0)),
                         tuple(" ".join(b.split()) for b in bots) if bots else None))
    return out


def series_summary(total: int, results: Sequence[tuple[Level, int]], stopped: bool,
                   ) -> list[str]:
    """The lines that sum up a series: each level played with its score and verdict, then
    how far the person got (`stopped`: the series stopped before a level ended)."""
    lines = [f"level {lv.number} {lv.name}: {score} (minimum {lv.min_score}) "
             f"{'passed' if lv.passed(score) else 'failed'}" for lv, score in results]
    passed = sum(1 for lv, score in results if lv.passed(score))
    if stopped:
        lines.append(f"series stopped after {passed} level(s) passed")
    elif results and all(lv.passed(s) for lv, s in results) and results[-1][0].number == total:
        lines.append(f"series complete: the last level ({total}) passed")
    else:
        lines.append(f"series over: {passed} level(s) passed of {total}")
    return lines
