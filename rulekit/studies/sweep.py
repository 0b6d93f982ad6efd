"""sweep: one study per value of one or two params, every point on the same seeds.

`--vary NAME=LIST` reads LIST as YAML, like `--set`; two `--vary` make a grid. Since every
point plays game i on the same seeds, neighbouring points differ by the param and not by
luck, and the table shows each figure with its 95% interval.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from rulekit.errors import RulekitError
from rulekit.studies.runner import Progress
from rulekit.studies.simulate import GamesOut, Interrupted, SimulateTally, check_setup, stream

if TYPE_CHECKING:
    from rulekit import Game

MAX_POINTS = 100

#: the sweep table's columns: title, and how to read (value, ci95 or None) from a report
COLUMNS: list[tuple[str, Callable[[dict], tuple[float, list | None]]]] = [
    ("seat 0 win rate", lambda r: (r["by_seat"][0]["win_rate"]["rate"],
                                   r["by_seat"][0]["win_rate"]["ci95"])),
    ("first-player edge", lambda r: (r["first_player_edge"]["diff"],
                                     r["first_player_edge"]["ci95"])),
    ("score", lambda r: (r["score"]["mean"], r["score"]["ci95"])),
    ("tie rate", lambda r: (r["tie_rate"]["rate"], r["tie_rate"]["ci95"])),
    ("turns", lambda r: (r["length"]["turns"]["mean"], r["length"]["turns"]["ci95"])),
    ("decisions", lambda r: (r["length"]["decisions"]["mean"],
                             r["length"]["decisions"]["ci95"])),
]


def parse_vary(items: Sequence[str]) -> dict[str, list]:
    """`NAME=LIST` options as {name: values}; the list is read as YAML."""
    from rulekit.spec.params import parse_set_options

    if not 1 <= len(items) <= 2:
        raise RulekitError(f"sweep varies one or two params, not {len(items)}")
    vary = parse_set_options(list(items))
    if len(vary) != len(items):
        raise RulekitError("each --vary names a different param")
    for name, values in vary.items():
        if not isinstance(values, list) or not values:
            got = "an empty list" if values == [] else repr(values)
            raise RulekitError(f"--vary {name}=...: the value must be a YAML list of values, "
                               f"e.g. --vary '{name}=[3, 5, 8]', not {got}")
    points = 1
    for values in vary.values():
        points *= len(values)
    if points > MAX_POINTS:
        raise RulekitError(f"the sweep has {points} points; at most {MAX_POINTS}")
    return vary


def sweep(load: Callable[[dict], Game], vary: dict[str, list], games: int, players: int,
          bots: list[str], seed: int, progress: Progress | None = None, jobs: int | None = 1,
          dask: str | None = None, games_out: TextIO | None = None,
          tallies: list[SimulateTally] | None = None) -> dict[str, Any]:
    """A study per point of the grid; `load(overrides)` gives the game at that point.

    Ctrl-C raises `Interrupted` holding the report of the games finished at every point.
    """
    names_ = list(vary)
    points = [dict(zip(names_, combo)) for combo in itertools.product(*vary.values())]
    variants = [load(p) for p in points]
    bots = check_setup(variants[0], games, players, bots)
    ts = [SimulateTally(g, players, bots) for g in variants]

    def add(rows: tuple) -> None:
        for t, r in zip(ts, rows):
            t.add(r)

    labels = [", ".join(f"{k}={v}" for k, v in p.items()) for p in points]
    done, seconds, stopped = stream(variants, games, players, bots, seed, add, jobs, dask,
                                    progress, GamesOut(games_out, labels))
    if tallies is not None:
        tallies += ts
    report = {"game": variants[0].name, "games": done, "players": players, "bots": bots,
              "seed": seed, "vary": names_,
              "points": [{"values": p, "report": t.report()} for p, t in zip(points, ts)],
              "seconds": round(seconds, 3)}
    if stopped:
        raise Interrupted(report | {"interrupted": True, "games_planned": games})
    return report


def table_rows(report: dict) -> list[dict[str, Any]]:
    """One flat row per point (for the text table and `--csv`)."""
    rows = []
    for point in report["points"]:
        row: dict[str, Any] = dict(point["values"])
        for title, read in COLUMNS:
            value, ci = read(point["report"])
            row[title] = value
            row[f"{title} low"], row[f"{title} high"] = ci
        rows.append(row)
    return rows


def write_csv(path: str, report: dict) -> None:
    """The table, one row per point, with each figure's interval in two columns."""
    import csv

    rows = table_rows(report)
    try:
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            for row in rows:
                writer.writerow({k: json_cell(v) for k, v in row.items()})
    except OSError as exc:
        raise RulekitError(f"--csv {path}: {exc.strerror}") from None


def json_cell(value: Any) -> Any:
    """A param value that is a list or mapping goes into its cell as JSON."""
    import json

    return json.dumps(value) if isinstance(value, list | dict) else value
