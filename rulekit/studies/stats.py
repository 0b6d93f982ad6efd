"""Statistics that stream: a figure is updated game by game and never keeps the games.

The intervals are the usual 95% ones, computed with the standard library:

- a rate (wins, ties, an end reason) gets the Wilson score interval, which stays inside
  [0, 1] and is honest for rates near 0 or 1 and for small samples;
- a mean (scores, game length) gets the t interval, mean ± t(0.975, n-1)·s/√n. The t
  quantile comes from a table for 1 to 30 degrees of freedom and from the Cornish-Fisher
  expansion around the normal quantile above (off by less than 0.0005 from the exact
  value there);
- a paired difference (compare: the same seeds on both sides) is the mean of the
  per-game differences with its t interval, so the luck both sides share cancels.

Percentiles are exact: a `Tally` counts how often each value occurred, and game scores
and lengths are whole numbers with few distinct values, so memory stays flat however
many games are played.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

Z95 = 1.959963984540054  # the normal quantile at 0.975
PERCENTILES = (5, 25, 50, 75, 95)

# t quantiles at 0.975 for 1..30 degrees of freedom
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
         2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
         2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (see the module doc)."""
    if df < 1:
        return math.inf
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def wilson(successes: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate; shared wins (ties) may make `successes`
    fractional."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _r(x: float) -> float:
    return round(x, 4)


class Rate:
    """Successes out of trials, for a rate with its Wilson interval."""

    __slots__ = ("hits", "n")

    def __init__(self) -> None:
        self.hits = 0.0
        self.n = 0

    def add(self, hit: float) -> None:
        self.hits += hit
        self.n += 1

    @property
    def rate(self) -> float:
        return self.hits / self.n if self.n else 0.0

    def ci95(self) -> tuple[float, float]:
        return wilson(self.hits, self.n)

    def summary(self) -> dict:
        lo, hi = self.ci95()
        return {"rate": _r(self.rate), "ci95": [_r(lo), _r(hi)]}


class Mean:
    """A running mean and variance (Welford), for a mean with its t interval."""

    __slots__ = ("m2", "mean", "n")

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    @property
    def stdev(self) -> float:
        """The sample standard deviation (n - 1)."""
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else 0.0

    def ci95(self) -> tuple[float, float]:
        if self.n < 2:
            return (self.mean, self.mean) if self.n else (0.0, 0.0)
        half = t975(self.n - 1) * self.stdev / math.sqrt(self.n)
        return (self.mean - half, self.mean + half)

    def summary(self) -> dict:
        lo, hi = self.ci95()
        return {"mean": _r(self.mean), "ci95": [_r(lo), _r(hi)], "stdev": _r(self.stdev)}


class Tally(Mean):
    """A `Mean` that also counts each value, for exact percentiles, minimum and maximum."""

    __slots__ = ("counts",)

    def __init__(self) -> None:
        super().__init__()
        self.counts: Counter = Counter()

    def add(self, x: float) -> None:
        # Mean.add written out (the same operations in the same order): a study adds a
        # few values a game to a Tally of each seat, bot and figure
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)
        self.counts[x] += 1

    def percentile(self, p: float) -> float:
        """Linear interpolation between the closest ranks (numpy's default, R's type 7)."""
        if not self.n:
            return 0
        h = (self.n - 1) * p / 100
        lo_rank, frac = int(h), h - int(h)
        lo = hi = None
        seen = 0
        for value in sorted(self.counts):
            seen += self.counts[value]
            if lo is None and seen > lo_rank:
                lo = value
            if seen > lo_rank + 1 or (seen > lo_rank and frac == 0):
                hi = value
                break
        if hi is None:
            hi = lo
        return lo + (hi - lo) * frac

    def summary(self) -> dict:
        out = super().summary()
        out["min"] = min(self.counts) if self.n else 0
        out["max"] = max(self.counts) if self.n else 0
        out["percentiles"] = {str(p): _num(self.percentile(p)) for p in PERCENTILES}
        return out

    def values(self) -> Iterable[tuple[float, int]]:
        """(value, how often) in increasing order, for plots."""
        return sorted(self.counts.items())


def _num(x: float) -> float:
    return int(x) if float(x).is_integer() else _r(x)


class Ratio:
    """Σy / Σx over games, e.g. options per decision: each game adds its total options (y)
    and its decisions (x). The interval treats the game, not the decision, as the
    independent unit (the ratio estimator's linearised variance), since the decisions of
    one game are not independent of each other."""

    __slots__ = ("n", "sx", "sxx", "sxy", "sy", "syy")

    def __init__(self) -> None:
        self.n = 0
        self.sx = self.sy = self.sxx = self.syy = self.sxy = 0.0

    def add(self, y: float, x: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.syy += y * y
        self.sxy += x * y

    @property
    def ratio(self) -> float:
        return self.sy / self.sx if self.sx else 0.0

    def ci95(self) -> tuple[float, float]:
        r, n = self.ratio, self.n
        if n < 2 or not self.sx:
            return (r, r)
        # sample variance of the residuals y - r·x
        ss = self.syy - 2 * r * self.sxy + r * r * self.sxx
        var = max(ss, 0.0) / (n - 1) / n / (self.sx / n) ** 2
        half = t975(n - 1) * math.sqrt(var)
        return (r - half, r + half)

    def summary(self) -> dict:
        lo, hi = self.ci95()
        return {"mean": _r(self.ratio), "ci95": [_r(lo), _r(hi)]}


def significant(ci: Iterable[float], against: float = 0.0) -> bool:
    """Whether a 95% interval excludes `against`."""
    lo, hi = ci
    return lo > against or hi < against
