"""The studies' reports as text for an 80-column terminal (names from the game file escaped).

Each report opens with one plain sentence, built only from what the 95% intervals back: a
difference whose interval holds 0 reads "no clear difference". One unit per kind of
figure throughout: rates in percent, differences of rates in percentage points (pp),
scores in points, lengths in turns and decisions.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

from rulekit.studies.sweep import COLUMNS, table_rows
from rulekit.text import printable

WIDTH = 80


def _wrap(text: str) -> list[str]:
    """A line of prose as lines of at most WIDTH columns, continued with an indent."""
    return textwrap.wrap(text, WIDTH, subsequent_indent="  ", break_on_hyphens=False) or [""]


def _num(x: float, digits: int = 1) -> str:
    """A figure without trailing noise: 17 rather than 17.0, -42.2 rather than -42.15."""
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.{digits}f}"


def _round(x: float) -> str:
    """A figure for a sentence: whole numbers from 10 on, one decimal below."""
    return f"{abs(x):.0f}" if abs(x) >= 10 else f"{abs(x):.1f}".removesuffix(".0")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate(r: dict) -> str:
    """A rate and its interval, in percent: `51.5% [48.4, 54.6]`."""
    lo, hi = r["ci95"]
    return f"{_pct(r['rate'])} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _mean(s: dict, digits: int = 1) -> str:
    lo, hi = s["ci95"]
    return f"{s['mean']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _pcts(s: dict) -> str:
    return " ".join(_num(v) for v in s["percentiles"].values())


def _holds_zero(ci: Sequence[float]) -> bool:
    return ci[0] <= 0 <= ci[1]


def _header(r: dict) -> list[str]:
    lines = _wrap(f"{printable(r['game'])}: {r['games']} games, {r['players']} players, "
                  f"bots {', '.join(r['bots'])}, seed {r['seed']} ({r['seconds']:.2f} s)")
    if r.get("interrupted"):
        lines += _wrap(f"interrupted: the report covers the first {r['games']} of "
                       f"{r['games_planned']} games")
    return lines


def _params(r: dict) -> list[str]:
    if not r["params"]:
        return []
    return _wrap("params: " + ", ".join(f"{printable(k)}={json.dumps(v)}"
                                        for k, v in r["params"].items()))


def _table(header: Sequence[str], rows: Sequence[Sequence[str]],
           right: Sequence[bool]) -> list[str]:
    """Aligned columns two spaces apart; `right[i]` aligns column i to the right."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    out = []
    for row in [header, *rows]:
        cells = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right)]
        out.append("  ".join(cells).rstrip())
    return out


def summary_simulate(r: dict) -> str:
    """The first line of simulate: seat 0's wins against its share, the edge, the length."""
    if not r["games"]:
        return "no game finished: nothing to report yet"
    first = r["by_seat"][0]["win_rate"]
    edge = r["first_player_edge"]
    fair = r["fair_share"]
    text = f"seat 0 wins {100 * first['rate']:.0f}% of games (fair share {100 * fair:.0f}%): "
    if _holds_zero(edge["ci95"]):
        text += "no clear first-player edge"
    elif edge["diff"] > 0:
        text += f"a first-player edge of {_round(100 * edge['diff'])} pp"
    else:
        text += f"a first-player handicap of {_round(100 * edge['diff'])} pp"
    return text + f"; games last {_round(r['length']['turns']['mean'])} turns"


def format_simulate(r: dict) -> str:
    """The simulate report: seats, bots, length, choice, endings; 95% intervals in brackets."""
    lines = _wrap(summary_simulate(r)) + [""] + _header(r) + _params(r)
    lines += ["", "95% intervals in brackets; rates in %, scores in points", ""]
    seats = [[str(s["seat"]), _rate(s["win_rate"]), _mean(s["score"]),
              f"{s['score']['stdev']:.1f}", _num(s["score"]["min"]), _num(s["score"]["max"])]
             for s in r["by_seat"]]
    lines += _table(["seat", "win rate", "score mean", "sd", "min", "max"], seats,
                    [True, False, False, True, True, True])
    lines += ["", "score percentiles 5 25 50 75 95 by seat:"]
    lines += [f"{s['seat']:>4}  {_pcts(s['score'])}" for s in r["by_seat"]]
    bots = [[printable(b["bot"]), str(b["seat_games"]), _rate(b["win_rate"]), _mean(b["score"])]
            for b in r["by_bot"]]
    lines += [""] + _table(["bot", "seat-games", "win rate", "score mean"], bots,
                           [False, True, False, False])
    lines += [""] + _wrap(seat_verdict(r))
    edge = r["first_player_edge"]
    lo, hi = edge["ci95"]
    lines += _wrap(f"first-player edge: {100 * edge['diff']:+.1f} pp [{100 * lo:+.1f}, "
                   f"{100 * hi:+.1f}] over the fair share {_pct(r['fair_share'])}")
    lines.append(f"ties: {_rate(r['tie_rate'])}")
    t, d, o = r["length"]["turns"], r["length"]["decisions"], r["options_per_decision"]
    lines += _wrap(f"turns: {_mean(t)} (percentiles {_pcts(t)}; max {t['max']})")
    lines += _wrap(f"decisions: {_mean(d)} (percentiles {_pcts(d)}; max {d['max']})")
    lines += [f"options per decision: {_mean(o, 2)}, at most {o['max']}", "",
              "how games ended:"]
    ends = [[printable(k), str(v), _rate(r["end_reason_rates"][k])]
            for k, v in r["end_reasons"].items()]
    lines += ["  " + x for x in _table(["", "games", "share"], ends, [False, True, False])[1:]]
    return "\n".join(lines)


def seat_verdict(r: dict) -> str:
    """One line: which seats win significantly more or less than their fair share."""
    fair = r["fair_share"]
    found = [f"seat {s['seat']} {'more' if s['win_rate']['rate'] > fair else 'less'} "
             f"({_rate(s['win_rate'])})" for s in r["by_seat"] if s["significant"]]
    if not found:
        return (f"seats: no seat's win rate differs significantly from the fair share "
                f"{_pct(fair)}")
    return f"seats: significantly different from the fair share {_pct(fair)}: " + "; ".join(found)


def _is_rate(figure: str) -> bool:
    return figure.endswith("rate") or figure.startswith("ended by")


def summary_compare(r: dict) -> str:
    """The first line of compare: score, length and first-player edge of B against A."""
    if not r["games"]:
        return "no game finished: nothing to report yet"
    diffs = {d["figure"]: d for d in r["differences"]}
    score = diffs.get("score (all seats)")
    turns = diffs.get("turns")
    edge = diffs.get("seat 0 win rate")
    parts = []
    if score is None or _holds_zero(score["ci95"]):
        parts.append("no clear difference in score")
    else:
        word = "more" if score["diff"] > 0 else "fewer"
        parts.append(f"B scores {_round(score['diff'])} {word} points a game")
    if turns is None or _holds_zero(turns["ci95"]):
        parts.append("no clear difference in game length")
    else:
        word = "longer" if turns["diff"] > 0 else "shorter"
        parts.append(f"games are {_round(turns['diff'])} turns {word}")
    if edge is None or _holds_zero(edge["ci95"]):
        parts.append("the first player's edge is unchanged")
    else:
        word = "grows" if edge["diff"] > 0 else "shrinks"
        parts.append(f"the first player's edge {word} by {_round(100 * edge['diff'])} pp")
    return "; ".join(parts)


def format_compare(r: dict) -> str:
    """The differences B - A, each with its 95% interval and a mark where significant."""
    a, b = r["a"], r["b"]
    la, lb = (printable(x) for x in r["labels"])
    lines = _wrap(summary_compare(r)) + [""] + _header(r | {"game": a["game"]})
    lines += _wrap(f"A = {la}") + _wrap(f"B = {lb}")
    changed = [k for k in dict.fromkeys([*a["params"], *b["params"]])
               if a["params"].get(k) != b["params"].get(k)]
    for k in changed:
        lines += _wrap(f"  {printable(k)}: A {json.dumps(a['params'].get(k))}, "
                       f"B {json.dumps(b['params'].get(k))}")
    lines += _wrap("same seeds on both sides; rates in %, their differences in percentage "
                   "points (pp); * marks a difference whose 95% interval excludes 0")
    rows = []
    for d in r["differences"]:
        lo, hi = d["ci95"]
        mark = " *" if d["significant"] else ""
        if _is_rate(d["figure"]):
            cells = [f"{100 * d['a']:.1f}%", f"{100 * d['b']:.1f}%",
                     f"{100 * d['diff']:+.1f} pp", f"[{100 * lo:+.1f}, {100 * hi:+.1f}]{mark}"]
        else:
            cells = [f"{d['a']:.1f}", f"{d['b']:.1f}", f"{d['diff']:+.1f}",
                     f"[{lo:+.1f}, {hi:+.1f}]{mark}"]
        rows.append([printable(d["figure"]), *cells])
    lines += [""] + _table(["figure", "A", "B", "B - A", "95% interval"], rows,
                           [False, True, True, True, False])
    return "\n".join(lines)


#: the sweep's column titles with their unit
_UNITS = {"seat 0 win rate": "seat 0 wins %", "first-player edge": "first-player edge pp",
          "tie rate": "ties %", "score": "score", "turns": "turns", "decisions": "decisions"}


def _sweep_cell(title: str, value: float, lo: float, hi: float) -> str:
    if title.endswith("edge"):  # a difference of rates: percentage points with a sign
        return f"{100 * value:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    if title.endswith("rate"):
        return f"{100 * value:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{value:.1f} [{lo:.1f}, {hi:.1f}]"


def _sweep_value(title: str, value: float) -> str:
    if title.endswith("edge"):
        return f"{100 * value:+.0f} pp"
    if title.endswith("rate"):
        return f"{100 * value:.0f}%"
    unit = " points" if title == "score" else f" {title}" if title in ("turns", "decisions") else ""
    return f"{_num(value)}{unit}"


def summary_sweep(r: dict) -> str:
    """The first line of sweep: per figure, the points it is lowest and highest at, where
    their intervals do not overlap; the figures the params leave unclear, named once."""
    if not r["games"]:
        return "no game finished: nothing to report yet"
    rows = table_rows(r)
    if len(rows) < 2:
        return "one point only: nothing to compare"

    def at(row: dict) -> str:
        return ", ".join(f"{printable(k)}={printable(json.dumps(row[k]))}" for k in r["vary"])

    moved, unclear = [], []
    for title, _ in COLUMNS:
        low = min(rows, key=lambda row: row[title])
        high = max(rows, key=lambda row: row[title])
        if low[f"{title} high"] < high[f"{title} low"]:
            moved.append(f"{title} from {_sweep_value(title, low[title])} ({at(low)}) "
                         f"to {_sweep_value(title, high[title])} ({at(high)})")
        else:
            unclear.append(title)
    parts = moved
    if unclear:
        parts.append("no clear change in " + ", ".join(unclear))
    return "; ".join(parts)


def format_sweep(r: dict) -> str:
    """Tables of one line per point: the param values, then figures with 95% intervals,
    split into as many tables as it takes to fit 80 columns."""
    lines = _wrap(summary_sweep(r)) + [""] + _header(r)
    lines += _wrap("same seeds at every point; 95% intervals in brackets; rates in %, the "
                   "first-player edge in percentage points (pp), scores in points")
    keys = [printable(n) for n in r["vary"]]
    rows = table_rows(r)
    key_cells = [[printable(json.dumps(row[name])) for name in r["vary"]] for row in rows]
    figures = [(_UNITS.get(t, t), [_sweep_cell(t, row[t], row[f"{t} low"], row[f"{t} high"])
                                   for row in rows]) for t, _ in COLUMNS]

    def width(title: str, cells: list[str]) -> int:
        return max(len(title), *(len(c) for c in cells)) + 2

    key_width = sum(width(k, [c[i] for c in key_cells]) for i, k in enumerate(keys))
    groups: list[list[tuple[str, list[str]]]] = [[]]
    used = key_width
    for title, cells in figures:
        w = width(title, cells)
        if groups[-1] and used + w > WIDTH + 2:
            groups.append([])
            used = key_width
        groups[-1].append((title, cells))
        used += w
    for group in groups:
        header = keys + [t for t, _ in group]
        body = [k + [cells[i] for _, cells in group] for i, k in enumerate(key_cells)]
        lines += [""] + _table(header, body, [False] * len(header))
    return "\n".join(lines)
