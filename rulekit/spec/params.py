"""Game parameters: their declared types and ranges, and overrides from `--set` or the API."""

from __future__ import annotations

import difflib
from typing import Any

import yaml

from rulekit.errors import Diagnostic, GameFileError
from rulekit.spec.source import Source

_PY_TYPES = {"int": (int,), "float": (int, float), "bool": (bool,), "str": (str,)}


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name in ("int", "float") and isinstance(value, bool):
        return False
    if type_name not in _PY_TYPES:
        return True  # the schema reports the unknown type
    return isinstance(value, _PY_TYPES[type_name])


def check_value(decl: dict, value: Any) -> str | None:
    """Why `value` does not fit the declaration `decl`, or None."""
    type_name = decl.get("type", "int")
    if type_name == "list":
        if not isinstance(value, list):
            return f"expected a list, got {_describe(value)}"
        item_type = decl.get("items", "int")
        for i, item in enumerate(value):
            if not _type_ok(item, item_type):
                return f"item {i} should be {item_type}, got {_describe(item)}"
            why = _range(decl, item)
            if why:
                return f"item {i}: {why}"
        if "min_items" in decl and len(value) < decl["min_items"]:
            return f"needs at least {decl['min_items']} items, got {len(value)}"
        if "max_items" in decl and len(value) > decl["max_items"]:
            return f"takes at most {decl['max_items']} items, got {len(value)}"
        return None
    if not _type_ok(value, type_name):
        return f"expected {type_name}, got {_describe(value)}"
    return _range(decl, value)


def _range(decl: dict, value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "min" in decl and value < decl["min"]:
            return f"{value} is below the minimum {decl['min']}"
        if "max" in decl and value > decl["max"]:
            return f"{value} is above the maximum {decl['max']}"
    if "one_of" in decl and value not in decl["one_of"]:
        return f"{value!r} is not one of {decl['one_of']}"
    return None


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"


def parse_set_options(items: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """Turn `--set name=value` strings into overrides; the value is read as YAML."""
    out: dict[str, Any] = {}
    problems = []
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            problems.append(Diagnostic(f"--set {item}", 0, 0, "expected NAME=VALUE",
                                       hint="for example --set max_rounds=10"))
            continue
        try:
            out[name] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError as exc:
            problems.append(Diagnostic(f"--set {item}", 0, 0,
                                       f"the value is not valid YAML: {exc}",
                                       hint="quote the whole option: --set 'NAME=[1, 2]'"))
    if problems:
        raise GameFileError(problems)
    return out


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
            problems.append(src.diag(("params", name, "default"), f"param '{name}': {why}",
                                     describe(str(name), decl)))
            continue
        values[name] = decl["default"]
    for name, value in (overrides or {}).items():
        # an override is a change to the file's params: its problems point at them
        where = f"--set {name}={value!r}" if not isinstance(value, str) else f"--set {name}={value}"
        if name not in decls:
            close = difflib.get_close_matches(str(name), [str(d) for d in decls], n=1)
            hint = f"did you mean '{close[0]}'?" if close else (
                f"the params are: {', '.join(map(str, decls))}" if decls
                else "this game has no params")
            problems.append(src.diag(("params",), f"{where}: unknown param '{name}'", hint))
            continue
        decl = decls[name]
        if not isinstance(decl, dict):
            continue
        why = check_value(decl, value)
        if why:
            problems.append(src.diag(("params", name), f"{where}: param '{name}': {why}",
                                     describe(name, decl)))
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
        text += f" from {decl.get('min', '-∞')} to {decl.get('max', '∞')}"
    if "one_of" in decl:
        text += f", one of {decl['one_of']}"
    doc = decl.get("doc")
    return f"{name} takes {text}" + (f" ({doc})" if doc else "")
