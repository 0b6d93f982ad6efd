"""Game parameters: their declared types and ranges, and overrides from `--set` or the API."""

from __future__ import annotations

import difflib
import math
from typing import Any

from rulekit.errors import Diagnostic, GameFileError, cut, shown
from rulekit.spec.source import MAX_INT_DIGITS, Source, parse_text

_PY_TYPES = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,)}


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name in ("int", "float") and isinstance(value, bool):
        return False
    if type_name not in _PY_TYPES:
        return True  # the schema reports the unknown type
    return isinstance(value, _PY_TYPES[type_name])


def check_value(decl: dict, value: Any) -> str | None:
    """Why `value` does not fit the declaration `decl`, or None.

    Values may come from anyone (`--set`, a log, the API): a number must be finite and
    of at most MAX_INT_DIGITS digits, and a message shows a long value cut short.
    """
    type_name = decl.get("type", "int")
    if type_name == "list":
        if not isinstance(value, list):
            return f"expected a list, got {_describe(value)}"
        if "max_items" in decl and len(value) > decl["max_items"]:
            return f"takes at most {decl['max_items']} items, got {len(value)}"
        if "min_items" in decl and len(value) < decl["min_items"]:
            return f"needs at least {decl['min_items']} items, got {len(value)}"
        item_type = decl.get("items", "int")
        for i, item in enumerate(value):
            if not _type_ok(item, item_type):
                return f"item {i} should be {item_type}, got {_describe(item)}"
            why = _number(item) or _range(decl, item)
            if why:
                return f"item {i}: {why}"
        return None
    if not _type_ok(value, type_name):
        return f"expected {type_name}, got {_describe(value)}"
    return _number(value) or _range(decl, value)


def _number(value: Any) -> str | None:
    """Why a number cannot be a param's value (NaN, infinite, too many digits), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    if isinstance(value, int) and abs(value) >= 10 ** MAX_INT_DIGITS:
        return f"a number with more than {MAX_INT_DIGITS} digits"
    return None


def _range(decl: dict, value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "min" in decl and value < decl["min"]:
            return f"{value} is below the minimum {decl['min']}"
        if "max" in decl and value > decl["max"]:
            return f"{value} is above the maximum {decl['max']}"
    if "one_of" in decl and value not in decl["one_of"]:
        return f"{_short(value)} is not one of {shown(decl['one_of'])}"
    return None


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {_short(value)}"


def _short(value: Any, limit: int = 60) -> str:
    """`repr(value)` cut short, never built whole; a huge int is not even turned into text."""
    return shown(value, limit)


def parse_set_options(items: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Turn `--set name=value` strings into overrides; the value is read as YAML.

    It is read by the reader of game files, with its guards: aliases that expand, deep
    nesting, long numbers, NaN and infinity are refused with a message naming the option.
    """
    out: dict[str, Any] = {}
    problems = []
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            problems.append(Diagnostic(f"--set {_cut(item)}", 0, 0, "expected NAME=VALUE",
                                       hint="for example --set max_rounds=10"))
            continue
        if not text.strip():
            out[name] = ""
            continue
        try:
            out[name] = parse_text(text, f"--set {_cut(name)}", empty_ok=True).data
        except GameFileError as exc:
            for d in exc.diagnostics:
                hint = d.hint if "YAML" not in d.message else (
                    f"{d.hint}; quote the whole option: --set 'NAME=[1, 2]'")
                problems.append(Diagnostic(d.file, d.line, d.col, d.message, d.path, hint))
    if problems:
        raise GameFileError(problems)
    return out


def _cut(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def resolve_params(src: Source, overrides: dict[str, Any] | None) -> tuple[dict, list[Diagnostic]]:
    """The value of every param after overrides, and the problems found on the way."""
    decls = src.data.get("params") or {}
    if not isinstance(decls, dict):
        return {}, []
    values: dict[str, Any] = {}
    problems: list[Diagnostic] = []
    for name, decl in decls.items():
        if not isinstance(decl, dict) or "default" not in decl:
            continue  # the schema reports it
        why = check_value(decl, decl["default"])
        if why:
            problems.append(src.diag(("params", name, "default"),
                                     f"param '{cut(str(name))}': {why}",
                                     describe(str(name), decl)))
            continue
        values[name] = decl["default"]
    for name, value in (overrides or {}).items():
        # an override is a change to the file's params: its problems point at them
        where = f"--set {_cut(str(name))}=" + (_short(value) if not isinstance(value, str)
                                                 else _cut(value, 60))
        if name not in decls:
            close = difflib.get_close_matches(_cut(str(name)), [str(d) for d in decls], n=1)
            hint = f"did you mean '{close[0]}'?" if close else (
                f"the params are: {', '.join(map(str, decls))}" if decls
                else "this game has no params")
            problems.append(src.diag(("params",), f"{where}: unknown param "
                                     f"'{_cut(str(name))}'", hint))
            continue
        decl = decls[name]
        if not isinstance(decl, dict):
            continue
        why = check_value(decl, value)
        if why:
            problems.append(src.diag(("params", name), f"{where}: param '{cut(str(name))}': "
                                     f"{why}", describe(str(name), decl)))
            continue
        values[name] = value
    return values, problems


def describe(name: str, decl: dict) -> str:
    """What a param takes, for the hint of a value that does not fit it."""
    type_name = decl.get("type", "int")
    if type_name == "list":
        text = f"a list of {decl.get('items', 'int')}"
        lo, hi = decl.get("min_items"), decl.get("max_items")
        if lo is not None and hi is not None:
            text += f" with {lo} to {hi} items"
        elif lo is not None or hi is not None:
            text += f" with at least {lo} items" if lo is not None else f" of at most {hi} items"
    else:
        text = f"{'an' if type_name == 'int' else 'a'} {type_name}"
    if "min" in decl or "max" in decl:
        text += f" from {cut(str(decl.get('min', '-∞')))} to {cut(str(decl.get('max', '∞')))}"
    if "one_of" in decl:
        text += f", one of {shown(decl['one_of'], 200)}"
    doc = decl.get("doc")
    return f"{cut(name)} takes {text}" + (f" ({cut(str(doc), 200)})" if doc else "")
