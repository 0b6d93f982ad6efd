"""The studies' reports as aligned text for a terminal (names from the game file escaped)."""

from __future__ import annotations

import json

from rulekit.studies.sweep import COLUMNS, table_rows
from rulekit.text import printable


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate(r: dict) -> str:
    lo, hi = r["ci95"]
    return f"{_pct(r['rate'])} [{100 * lo:.1f}, {100 * hi:.1f}]"


def _mean(s: dict, digits: int = 1) -> str:
    lo, hi = s["ci95"]
    return f"{s['mean']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _pcts(s: dict) -> str:
    return " ".join(f"{v:g}" for v in s["percentiles"].values())


def _header(r: dict) -> list[str]:
    lines = [f"{printable(r['game'])}: {r['games']} games, {r['players']} players, "
             f"bots {', '.join(r['bots'])}, seed {r['seed']} ({r['seconds']:.2f} s)"]
    if r.get("interrupted"):
        lines.append(f"interrupted: the report covers the first {r['games']} of "
                     f"{r['games_planned']} games")
    return lines


def _params(r: dict) -> list[str]:
    if not r["params"]:
        return []
    return ["params: " + ", ".join(f"{printable(k)}={json.dumps(v)}"
                                   for k, v in r["params"].items())]


def format_simulate(r: dict) -> str:
    """The simulate report: seats, bots, length, choice, endings; 95% intervals in brackets."""
    lines = _header(r) + _params(r)
    lines += ["", "95% intervals in brackets; score percentiles 5 25 50 75 95", "",
              f"{'seat':>4}  {'win rate':<22}  {'score mean':<22}  {'sd':>6}  "
              f"{'min':>5}  {'max':>5}  percentiles"]
    for s in r["by_seat"]:
        sc = s["score"]
        lines.append(f"{s['seat']:>4}  {_rate(s['win_rate']):<22}  {_mean(sc):<22}  "
                     f"{sc['stdev']:>6.1f}  {sc['min']:>5}  {sc['max']:>5}  {_pcts(sc)}")
    width = max(len("bot"), *(len(b["bot"]) for b in r["by_bot"]))
    lines += ["", f"{'bot':<{width}}  {'seat-games':>10}  {'win rate':<22}  score mean"]
    for b in r["by_bot"]:
        lines.append(f"{b['bot']:<{width}}  {b['seat_games']:>10}  {_rate(b['win_rate']):<22}  "
                     f"{_mean(b['score'])}")
    lines += ["", seat_verdict(r)]
    edge = r["first_player_edge"]
    lo, hi = edge["ci95"]
    lines.append(f"first-player edge: {100 * edge['diff']:+.1f} points "
                 f"[{100 * lo:+.1f}, {100 * hi:+.1f}] over the fair share "
                 f"{_pct(r['fair_share'])}; ties: {_rate(r['tie_rate'])}")
    t, d, o = r["length"]["turns"], r["length"]["decisions"], r["options_per_decision"]
    lines += [
        f"game length: {_mean(t)} turns (percentiles {_pcts(t)}; max {t['max']}), "
        f"{_mean(d)} decisions (percentiles {_pcts(d)}; max {d['max']})",
        f"options per decision: {_mean(o, 2)}, at most {o['max']}",
        "", "how games ended:",
    ]
    reasons = {printable(k): (v, r["end_reason_rates"][k]) for k, v in r["end_reasons"].items()}
    width = max((len(k) for k in reasons), default=0)
    for reason, (count, rate) in reasons.items():
        lines.append(f"  {reason:<{width}}  {count:>7}  {_rate(rate)}")
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


def format_compare(r: dict) -> str:
    """The differences B - A, each with its 95% interval and a mark where significant."""
    a, b = r["a"], r["b"]
    la, lb = (printable(x) for x in r["labels"])
    lines = _header(r | {"game": a["game"]})
    lines += [f"A = {la}", f"B = {lb}"]
    changed = [k for k in dict.fromkeys([*a["params"], *b["params"]])
               if a["params"].get(k) != b["params"].get(k)]
    for k in changed:
        lines.append(f"  {printable(k)}: A {json.dumps(a['params'].get(k))}, "
                     f"B {json.dumps(b['params'].get(k))}")
    lines += ["same seeds on both sides; * marks a difference whose 95% interval excludes 0", ""]
    width = max(len("figure"), *(len(printable(d["figure"])) for d in r["differences"]))
    lines.append(f"{'figure':<{width}}  {'A':>9}  {'B':>9}  {'B - A':>9}  95% interval")
    for d in r["differences"]:
        lo, hi = d["ci95"]
        mark = " *" if d["significant"] else ""
        lines.append(f"{printable(d['figure']):<{width}}  {d['a']:>9.3f}  {d['b']:>9.3f}  "
                     f"{d['diff']:>+9.3f}  [{lo:+.3f}, {hi:+.3f}]{mark}")
    return "\n".join(lines)


def _sweep_cell(title: str, value: float, lo: float, hi: float) -> str:
    if title.endswith("edge"):  # a difference of rates: percentage points with a sign
        return f"{100 * value:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    if title.endswith("rate"):
        return f"{100 * value:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{value:.1f} [{lo:.1f}, {hi:.1f}]"


def format_sweep(r: dict) -> str:
    """One line per point: the param values, then each figure with its 95% interval."""
    lines = _header(r) + ["same seeds at every point; 95% intervals in brackets; rates in %",
                          ""]
    titles = [printable(n) for n in r["vary"]] + [title for title, _ in COLUMNS]
    cells = [[printable(json.dumps(row[name])) for name in r["vary"]]
             + [_sweep_cell(t, row[t], row[f"{t} low"], row[f"{t} high"]) for t, _ in COLUMNS]
             for row in table_rows(r)]
    widths = [max(len(t), *(len(c[i]) for c in cells)) for i, t in enumerate(titles)]
    for line in [titles, *cells]:
        lines.append("  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip())
    return "\n".join(lines)
