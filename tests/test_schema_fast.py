"""`spec.valid`, the check that spares loading jsonschema for a valid game file, gives
jsonschema's verdict: on every shipped game and on thousands of broken copies of them.
A document it calls valid that jsonschema would not would be a file loaded unchecked."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from rulekit.spec.load import load_source
from rulekit.spec.schema import _check, game_schema, schema_diagnostics
from rulekit.spec.source import Source
from rulekit.spec.valid import compile_schema, conforms, equal

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for p in [*ROOT.glob("games/*.yaml"), *ROOT.glob("games/examples/*.yaml"),
                           *ROOT.glob("benchmarks/*.yaml")]
               if not p.name.endswith(".tests.yaml"))
VALIDATOR = Draft202012Validator(game_schema())

#: values a broken file may hold where another is expected
ODD = [0, 1, -1, 2, 65, 1.5, 3.0, -0.5, True, False, None, "", "x", "1x", "a-b", "bad name",
       "random", "mcts:400", "player", "turn", "now", "int", "list", [], [1], ["x"], [{}],
       {}, {"x": 1}, {"label": "x"}, {"say": "hi"}, {"kind": "dice"}, float("inf"), 10 ** 20]
ODD_KEYS = ["x", "doc", "1x", "label", "kind", "per", "do", "if", "then", "else", "turn",
            "min", "max", "type", "default", "when", "say", 3, True, None]


def _documents() -> list[Any]:
    return [load_source(p).data for p in FILES]


def _verdicts(doc: Any) -> tuple[bool | None, bool]:
    return conforms(_check(), doc), VALIDATOR.is_valid(doc)


def test_the_game_schema_is_decided_without_jsonschema() -> None:
    assert _check() is not None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_shipped_file_is_valid_both_ways(path: Path) -> None:
    assert _verdicts(load_source(path).data) == (True, True)


def _nodes(doc: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _nodes(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _nodes(v, path + (i,))
    return out


def _at(doc: Any, path: tuple) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _mutate(doc: Any, rng: random.Random) -> Any:
    """A copy of `doc` with one to three random changes: a value replaced by an odd one,
    a key removed, renamed or added, an item removed or repeated."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(_nodes(doc))
        node = _at(doc, path)
        what = rng.randrange(6)
        if not path:
            if isinstance(node, dict) and node and what < 3:
                del node[rng.choice(list(node))]
            continue
        parent = _at(doc, path[:-1])
        key = path[-1]
        if what <= 1:
            parent[key] = copy.deepcopy(rng.choice(ODD))
        elif what == 2 and isinstance(parent, dict):
            del parent[key]
        elif what == 3 and isinstance(parent, dict):
            parent[rng.choice(ODD_KEYS)] = parent.pop(key)
        elif what == 4 and isinstance(node, dict):
            node[rng.choice(ODD_KEYS)] = copy.deepcopy(rng.choice(ODD))
        elif what == 5 and isinstance(parent, list):
            if rng.random() < 0.5:
                del parent[key]
            else:
                parent.append(copy.deepcopy(node))
        else:
            parent[key] = copy.deepcopy(rng.choice(ODD))
    return doc


def test_broken_copies_get_jsonschemas_verdict() -> None:
    rng = random.Random(31)
    docs = _documents()
    decided = valid = 0
    tries = 600
    for _ in range(tries):
        doc = _mutate(rng.choice(docs), rng)
        fast, slow = _verdicts(doc)
        assert fast is None or fast == slow, doc
        decided += fast is not None
        valid += slow
    # nearly every document is decided here, and the sample holds both verdicts
    assert decided == tries
    assert 0 < valid < tries


def test_a_document_that_is_not_a_mapping() -> None:
    for doc in [None, [], "name: x", 3, [{"name": "x"}]]:
        assert _verdicts(doc) == (False, False)


def test_equal_is_jsonschemas() -> None:
    """True is not 1, 1 is 1.0, lists and mappings compare by items."""
    assert not equal(True, 1) and not equal(0, False) and equal(1, 1.0)
    assert equal([1, "a"], [1.0, "a"]) and not equal([True], [1])
    assert equal({"a": [1]}, {"a": [1]}) and not equal({"a": 1}, {"a": True})
    assert not equal("1", 1) and not equal(None, False)


def test_what_it_cannot_decide_goes_to_jsonschema() -> None:
    assert compile_schema({"type": "string", "format": "email"}) is None
    assert compile_schema({"$ref": "other.json#/x"}) is None
    assert conforms(None, {}) is None
    step: Any = {"say": "deep"}
    for _ in range(20_000):  # steps inside steps, deeper than Python recurses
        step = {"if": "true", "then": [step]}
    doc = {"name": "x", "players": {"min": 1, "max": 2}, "flow": {"turn": [step]},
           "score": 0}
    assert conforms(_check(), doc) is None


def test_diagnostics_of_a_broken_document_are_jsonschemas() -> None:
    """A broken document is explained by jsonschema, as before."""
    doc = copy.deepcopy(_documents()[0])
    doc["players"]["min"] = "two"
    doc["flow"]["unknown_key"] = 1
    diags = schema_diagnostics(Source(doc, {}, "g.yaml"))
    messages = [d.message for d in diags]
    assert "expected integer, got string 'two'" in messages
    assert "unknown key 'unknown_key'" in messages
