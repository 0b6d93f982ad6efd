"""A strength ladder: bots play round-robin matches and get Bradley-Terry ratings.

Every pair of bots plays `games` games, their seats filled alternately and the
assignment moved on by one seat per game (as in `simulate`), so that each bot plays
every seat. Inside a game every two seats held by different bots are one comparison:
the higher final score wins it, an equal score is half a win each. The comparisons
give each pair's head-to-head rate and, fitted together, a Bradley-Terry strength per
bot, shown on the Elo scale (400 points = 10 to 1 odds) with the first bot at 0. The
95% intervals come from resampling the games of every pair (a bootstrap).

The games run through the studies' runner (in this process, in a pool of processes or
on Dask), with the ladder's own seating and seeds (`RoundRobin`): the report is the same
wherever they ran.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulekit.bots import check_spec
from rulekit.errors import RulekitError
from rulekit.studies.play import Seating, derive_seed, seat_bots
from rulekit.studies.runner import Plan, Progress, run

if TYPE_CHECKING:
    from rulekit import Game

#: bootstrap resamples behind each interval
RESAMPLES = 200
#: the prior of the fit: this many drawn comparisons between every two bots, so that a
#: bot that won every comparison still gets a finite rating
PRIOR_DRAWS = 1.0


def wilson(successes: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (95% for the default z): good at small n and
    near 0 or 1, where the normal approximation is not."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _comparisons(scores: Sequence[int], names: Sequence[str]) -> dict[tuple[str, str], float]:
    """The first bot's wins over the second in one game, per ordered pair of bots in it."""
    out: dict[tuple[str, str], float] = {}
    for s, t in itertools.combinations(range(len(scores)), 2):
        a, b = names[s], names[t]
        if a == b:
            continue
        win = 1.0 if scores[s] > scores[t] else 0.5 if scores[s] == scores[t] else 0.0
        out[(a, b)] = out.get((a, b), 0.0) + win
        out[(b, a)] = out.get((b, a), 0.0) + 1.0 - win
    return out


def fit(bots: Sequence[str], wins: dict[tuple[str, str], float],
        counts: dict[frozenset, float]) -> list[float]:
    """Bradley-Terry strengths by Hunter's MM iteration, as Elo points, the first bot at 0.

    `wins[(a, b)]` is how many comparisons a won over b; `counts[{a, b}]` how many there
    were. `PRIOR_DRAWS` drawn comparisons are added to every pair.
    """
    k = len(bots)
    strength = [1.0] * k
    w = [[wins.get((a, b), 0.0) + PRIOR_DRAWS / 2 for b in bots] for a in bots]
    n = [[counts.get(frozenset((a, b)), 0.0) + PRIOR_DRAWS if a != b else 0.0 for b in bots]
         for a in bots]
    for _ in range(500):
        new = []
        for i in range(k):
            total = sum(w[i][j] for j in range(k) if j != i)
            denom = sum(n[i][j] / (strength[i] + strength[j]) for j in range(k) if j != i)
            new.append(total / denom if denom else strength[i])
        mean = math.exp(sum(math.log(x) for x in new) / k)
        new = [x / mean for x in new]
        done = max(abs(math.log(x / y)) for x, y in zip(new, strength)) < 1e-9
        strength = new
        if done:
            break
    return [400 * math.log10(x / strength[0]) for x in strength]


@dataclass(frozen=True)
class RoundRobin(Seating):
    """Game `index` of a ladder is game `index % games` of the `index // games`-th pair
    of bots, seeded by the pair and that game's number within the pair."""

    games: int

    def of(self, bots: Sequence[str], players: int, seed: int,
           index: int) -> tuple[list[str], int, int]:
        a, b = list(itertools.combinations(bots, 2))[index // self.games]
        i = index % self.games
        return (seat_bots([a, b], players, i), derive_seed(seed, "ladder", a, b, i),
                derive_seed(seed, "ladder-bots", a, b, i))


def ladder(game: Game, bots: list[str], games: int, players: int, seed: int,
           progress: Progress | None = None, jobs: int | None = 1,
           dask: str | None = None) -> dict[str, Any]:
    """Play every pair of `bots` `games` times and rate them; JSON-able data.

    `jobs`/`dask` choose where the games run (`runner.run`), with the same report anywhere.
    """
    bots = [check_spec(b) for b in bots]
    if len(set(bots)) != len(bots) or len(bots) < 2:
        raise RulekitError("a ladder needs two different bots at least, each named once")
    if games < 1:
        raise RulekitError(f"games must be at least 1, not {games}")
    if not game.min_players <= players <= game.max_players:
        raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                           f"players, not {players}")
    started = time.perf_counter()
    pairs = [frozenset(p) for p in itertools.combinations(bots, 2)]
    plan = Plan((game,), players, tuple(bots), seed, len(pairs) * games, RoundRobin(games))
    # per pair, per game: the comparisons it gave
    played: dict[frozenset, list[dict[tuple[str, str], float]]] = {p: [] for p in pairs}
    for index, (record,) in enumerate(run(plan, jobs, dask, progress)):
        played[pairs[index // games]].append(_comparisons(record["scores"], record["bots"]))

    def totals(sample: dict[frozenset, list[dict]]) -> tuple[dict, dict]:
        wins: dict[tuple[str, str], float] = {}
        counts: dict[frozenset, float] = {}
        for pair, per_game in sample.items():
            for comparison in per_game:
                for key, won in comparison.items():
                    wins[key] = wins.get(key, 0.0) + won
                    counts[pair] = counts.get(pair, 0.0) + won
        return wins, counts

    wins, counts = totals(played)
    ratings = fit(bots, wins, counts)
    boot_rng = random.Random(derive_seed(seed, "ladder-bootstrap"))
    samples: list[list[float]] = [[] for _ in bots]
    for _ in range(RESAMPLES):
        resampled = {pair: [boot_rng.choice(g) for _ in g] for pair, g in played.items()}
        for i, r in enumerate(fit(bots, *totals(resampled))):
            samples[i].append(r)
    lo_k, hi_k = int(0.025 * RESAMPLES), int(0.975 * RESAMPLES) - 1

    head_to_head = []
    for a, b in itertools.combinations(bots, 2):
        n = counts.get(frozenset((a, b)), 0.0)
        won = wins.get((a, b), 0.0)
        # a game's comparisons hang together: the interval counts games, not comparisons
        lo, hi = wilson(won / n * games if n else 0.0, games)
        head_to_head.append({"bot": a, "opponent": b, "games": games, "comparisons": n,
                             "rate": round(won / n, 4) if n else 0.0,
                             "interval": [round(lo, 4), round(hi, 4)]})
    return {
        "game": game.name,
        "players": players,
        "games_per_pair": games,
        "seed": seed,
        "ratings": [
            {"bot": b, "rating": round(ratings[i], 1),
             "interval": [round(sorted(samples[i])[lo_k], 1),
                          round(sorted(samples[i])[hi_k], 1)]}
            for i, b in sorted(enumerate(bots), key=lambda ib: -ratings[ib[0]])
        ],
        "head_to_head": head_to_head,
        "seconds": round(time.perf_counter() - started, 3),
    }


def format_ladder(r: dict[str, Any]) -> str:
    """The ladder as two small tables for a terminal."""
    from rulekit.text import printable

    width = max(len("bot"), *(len(x["bot"]) for x in r["ratings"]))
    lines = [f"{printable(r['game'])}: {r['players']} players, {r['games_per_pair']} games "
             f"per pair, seed {r['seed']} ({r['seconds']:.1f} s)", "",
             f"{'bot':<{width}}  rating  95% interval"]
    for x in r["ratings"]:
        lo, hi = x["interval"]
        lines.append(f"{x['bot']:<{width}}  {x['rating']:>6.0f}  {lo:>6.0f} to {hi:.0f}")
    lines += ["", "head to head (share of seat-against-seat comparisons won, ties half):"]
    for h in r["head_to_head"]:
        lo, hi = h["interval"]
        lines.append(f"  {h['bot']} against {h['opponent']}: {100 * h['rate']:.1f}% "
                     f"({100 * lo:.1f} to {100 * hi:.1f}%, {h['comparisons']:.0f} comparisons)")
    return "\n".join(lines)
