"""The scenarios catch mistakes in the rules: each shipped game's rules are changed in
small ways (a number or a comparison in an expression, a removed step, a changed default)
and `rulekit test` must fail for most of the changed games that still load.

The mutants are a fixed, seeded sample, so the share is the same on every run; README
("Rule tests") reports it.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulekit.engine.game import check_source
from rulekit.errors import RulekitError
from rulekit.scenarios import load_suite, run_suite
from rulekit.spec.load import load_source
from rulekit.spec.source import Source

GAMES = Path(__file__).resolve().parent.parent / "games"
MUTANTS = 30
#: the least share of loading mutants the scenarios must catch, per game
LEAST_CAUGHT = 0.85

#: keys whose text is prose or presentation, not rules
_PROSE = {"name", "description", "doc", "help", "say", "label", "display", "levels",
          "score_bounds", "rulekit", "extends", "text", "title"}
_FLIPS = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "==",
          " and ": " or ", " or ": " and "}
_TOKEN = re.compile(r">=|<=|==|!=|>|<| and | or |\b\d+\b")


def _tells_only(step: Any) -> bool:
    """An `if` step whose branches only `say` something: presentation, not a rule."""
    if not (isinstance(step, dict) and "if" in step):
        return False
    branches = [s for key in ("then", "else") for s in step.get(key) or []]
    return all(isinstance(s, dict) and (set(s) == {"say"} or _tells_only(s))
               for s in branches)


def _sites(node: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every place a small change can be made: (path, kind, detail).

    Left out: prose and presentation (names, help, `say` lines, display), and a param's
    declaration other than its default (the bounds a `--set` must keep are no rule).
    """
    if isinstance(node, dict):
        if _tells_only(node):
            return
        for key, value in node.items():
            if key in _PROSE or (path[:1] == ("params",) and len(path) == 2
                                 and key != "default"):
                continue
            yield from _sites(value, path + (key,))
    elif isinstance(node, list):
        if path[:1] == ("flow",) and node and all(isinstance(x, dict) for x in node):
            for i in range(len(node)):
                if set(node[i]) != {"say"} and not _tells_only(node[i]):
                    yield path, "remove", i
        for i, value in enumerate(node):
            yield from _sites(value, path + (i,))
    elif isinstance(node, bool):
        yield path, "not", None
    elif isinstance(node, int):
        yield path, "number", None
    elif isinstance(node, str):
        for m in _TOKEN.finditer(node):
            yield path, "text", (m.start(), m.group())


def _mutate(data: Any, site: tuple) -> Any:
    path, kind, detail = site
    data = copy.deepcopy(data)
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1] if path else None
    if kind == "remove":
        (parent[last] if path else data).pop(detail)
    elif kind == "not":
        parent[last] = not parent[last]
    elif kind == "number":
        parent[last] = parent[last] + 1
    else:
        at, token = detail
        text = parent[last]
        new = _FLIPS.get(token, str(int(token) + 1) if token.isdigit() else token)
        parent[last] = text[:at] + new + text[at + len(token):]
    return data


def mutants(src: Source, count: int, seed: int) -> list[tuple[tuple, Source]]:
    """`count` changed games that still load, sampled with a fixed seed."""
    sites = list(_sites(src.data))
    random.Random(seed).shuffle(sites)
    out = []
    for site in sites:
        changed = Source(_mutate(src.data, site), src.positions, src.file)
        try:
            check_source(changed)
        except (RulekitError, RecursionError):
            continue
        out.append((site, changed))
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize("name", ["qwixx", "levelx", "domino7"])
def test_the_scenarios_catch_most_changes_to_the_rules(name: str) -> None:
    suite = load_suite(GAMES / f"{name}.tests.yaml")
    src = load_source(GAMES / f"{name}.yaml")
    assert all(o.ok for o in run_suite(suite, src))
    sample = mutants(src, MUTANTS, seed=17)
    assert len(sample) == MUTANTS
    missed = [site for site, changed in sample
              if all(o.ok for o in run_suite(suite, changed, fail_fast=True))]
    caught = 1 - len(missed) / len(sample)
    print(f"{name}: {len(sample) - len(missed)} of {len(sample)} mutants caught "
          f"({caught:.0%}); missed: {missed}")
    assert caught >= LEAST_CAUGHT, missed
