"""The JSON Schema of game files, built from the flow's own keys and every registered kind.

`schemas/game.schema.json` is this schema written out (a test keeps them equal), for
editors and other tools; `rulekit schema` prints it.
"""

from __future__ import annotations

import copy
import difflib
import itertools
import json
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator

import rulekit.components  # noqa: F401  (registers the kinds)
from rulekit.components.base import REGISTRY
from rulekit.errors import MAX_DIAGNOSTICS, Diagnostic, clip, cut, shown
from rulekit.spec.source import Source

EXPR = {"description": "an expression", "type": ["string", "number", "boolean"]}
STEPS = {"type": "array", "items": {"$ref": "#/$defs/step"}}
NAME = {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$"}


def _param() -> dict:
    scalar = ["int", "float", "bool", "str"]
    return {
        "type": "object",
        "required": ["type", "default"],
        "additionalProperties": False,
        "properties": {
            "type": {"enum": [*scalar, "list"]},
            "items": {"enum": scalar, "description": "the type of a list's items"},
            "default": {},
            "min": {"type": "number"},
            "max": {"type": "number"},
            "min_items": {"type": "integer", "minimum": 0},
            "max_items": {"type": "integer", "minimum": 0},
            "length": {"type": ["integer", "string"],
                       "description": "a list's exact number of items: a number, or an "
                                      "expression of the other params "
                                      "(`params.highest_sum - params.lowest_sum + 1`)"},
            "one_of": {"type": "array"},
            "doc": {"type": "string"},
        },
    }


def _choice() -> dict:
    option = {
        "type": "object",
        "required": ["label"],
        "additionalProperties": False,
        "properties": {
            "for": {"type": "string", "description": "bindings: `x in EXPR, y in EXPR`"},
            "let": {"type": "object", "additionalProperties": EXPR},
            "if": EXPR,
            "label": {"type": ["string", "number"], "description": "text with {expr} parts"},
            "do": STEPS,
            "doc": {"type": "string"},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "who": EXPR,
            "options": {"type": "array", "items": option},
            "pass": {"type": ["string", "boolean"]},
            "none": STEPS,
            "auto": {"type": "boolean",
                     "description": "with `choose`: a single option is taken without asking"},
            "help": {"type": "string",
                     "description": "what the choices mean, for people (`?` in `rulekit play`); "
                                    "text with {expr} parts, `player` is the deciding player"},
            "title": {"type": "string",
                      "description": "what the decision is, in a line above the choices in "
                                     "`rulekit play` (`white sum 8: everyone may cross it`); "
                                     "text with {expr} parts like `help`"},
            "doc": {"type": "string"},
        },
    }


def _step() -> dict:
    props: dict[str, Any] = {
        "choose": {"$ref": "#/$defs/choice"},
        "together": {"$ref": "#/$defs/choice"},
        "if": EXPR,
        "then": STEPS,
        "else": STEPS,
        "for": {"type": "string"},
        "do": STEPS,
        "run": NAME,
        "let": {"type": "object", "minProperties": 1, "additionalProperties": EXPR,
                "description": "names values for the steps after it"},
        "set": {"type": "object", "minProperties": 1, "maxProperties": 1,
                "additionalProperties": EXPR},
        "add": {"type": "object", "minProperties": 1, "maxProperties": 1,
                "additionalProperties": EXPR},
        "say": {"anyOf": [
            {"type": "string"},
            {"type": "object", "required": ["to", "text"], "additionalProperties": False,
             "description": "a line only one player (and an observer) sees",
             "properties": {"to": EXPR, "text": {"type": "string"}}}]},
        "repeat": {"type": "object", "additionalProperties": False,
                   "description": "runs `do:` again and again: while `while` holds (before "
                                  "each round), until `until` holds (after each round), at "
                                  "most `max` rounds (default 1000), or until a `break`",
                   "properties": {"while": EXPR, "until": EXPR, "max": EXPR}},
        "break": {"const": True, "description": "ends the innermost `repeat` at once"},
        "next_player": {**EXPR, "description": "the player (or seat) whose turn comes next, "
                                               "instead of the next to the left"},
    }
    for cls in REGISTRY.values():
        for name, chance in cls.chances.items():
            props[name] = {"type": "string", "description": chance.doc or "a component's name"}
            if chance.target:
                args = {chance.target: EXPR} | {a: EXPR for a in chance.args}
                props[name] = {"description": props[name]["description"], "anyOf": [
                    {"type": "string"}, {"type": "object", "required": [chance.target],
                                         "properties": args, "additionalProperties": False}]}
        for name, eff in cls.effects.items():
            args = {eff.target: EXPR} | {a: EXPR for a in eff.args}
            props[name] = {"type": "object", "description": eff.doc, "properties": args,
                           "additionalProperties": False}
    return {"type": "object", "minProperties": 1, "additionalProperties": False,
            "properties": props}


def _component() -> dict:
    kinds = sorted(REGISTRY)
    rules = []
    for name in kinds:
        cls = REGISTRY[name]
        props = {"kind": {"const": name}, "per": {"enum": ["player"]},
                 "doc": {"type": "string"}} | cls.schema.get("properties", {})
        rules.append({
            "if": {"properties": {"kind": {"const": name}}},
            "then": {"type": "object", "properties": props, "additionalProperties": False,
                     "required": cls.schema.get("required", [])},
        })
    return {"type": "object", "required": ["kind"],
            "properties": {"kind": {"enum": kinds}}, "allOf": rules}


def _levels() -> dict:
    """A series of levels for `rulekit play`: each passed level opens the next one."""
    from rulekit.bots import SPEC_PATTERN, SPEC_SUMMARY

    bot = {"type": "string", "pattern": SPEC_PATTERN, "title": "bot", "description": SPEC_SUMMARY}
    return {
        "type": "array", "minItems": 1,
        "description": "levels played in turn by `rulekit play`; a level passes when the "
                       "person's score is greater than its min_score",
        "items": {
            "type": "object", "required": ["min_score"], "additionalProperties": False,
            "properties": {
                "name": {"type": "string"},
                "min_score": {"type": "integer",
                              "description": "the level passes with a greater score"},
                "bots": {"description": "the computer players: one bot for all, or a list "
                                        "given to the computer seats in turn",
                         "type": ["string", "array"], "minItems": 1, "items": bot,
                         "if": {"type": "string"}, "then": bot},
                "doc": {"type": "string"},
            },
        },
    }


def _display() -> dict:
    """Lines `rulekit play` shows besides the components' own pictures."""
    lines = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    return {
        "type": "object", "additionalProperties": False,
        "description": "what `rulekit play` shows besides the components: text with {expr} "
                       "parts; a line that comes out empty is left out",
        "properties": {
            "game": lines | {"description": "lines about the whole game"},
            "player": lines | {"description": "lines in each player's block; `player` is "
                                              "that player"},
            "summary": lines | {"description": "an opponent in one line while a person "
                                               "decides (parts joined by ' | '); `player` "
                                               "is that player"},
            "private": lines | {"description": "lines in each player's block that only that "
                                               "player sees (secret dice, a secret goal)"},
        },
    }


@lru_cache(maxsize=1)
def game_schema() -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rulekit.dev/schemas/game.schema.json",
        "title": "rulekit game file",
        "type": "object",
        "required": ["name", "players", "flow", "score"],
        "additionalProperties": False,
        "properties": {
            "rulekit": {"description": "the format's version", "const": 1},
            "name": {"type": "string", "minLength": 1},
            "description": {"type": "string"},
            "extends": {"type": "string", "description": "a base game file, relative to this one"},
            "players": {"type": "object", "required": ["min", "max"],
                        "additionalProperties": False,
                        "properties": {"min": {"type": "integer", "minimum": 1, "maximum": 64},
                                       "max": {"type": "integer", "minimum": 1, "maximum": 64}}},
            "params": {"type": "object", "propertyNames": NAME,
                       "additionalProperties": {"$ref": "#/$defs/param"}},
            "vars": {"type": "object", "propertyNames": NAME, "additionalProperties": {
                "type": "object", "additionalProperties": False,
                "properties": {"per": {"enum": ["player", "game"]},
                               "init": {"type": ["integer", "number", "boolean", "string"]},
                               "reset": {"enum": ["turn", "never"]},
                               "secret": {"type": "boolean", "description": "with `per: "
                                          "player`: only its owner sees it in view(seat)"},
                               "doc": {"type": "string"}}}},
            "components": {"type": "object", "propertyNames": NAME,
                           "additionalProperties": {"$ref": "#/$defs/component"}},
            "define": {"type": "object", "propertyNames": NAME, "additionalProperties": {
                "anyOf": [EXPR, {"type": "object", "required": ["expr"],
                                 "additionalProperties": False,
                                 "properties": {"per": {"enum": ["player", "game"]},
                                                "expr": EXPR, "doc": {"type": "string"}}}]}},
            "flow": {"type": "object", "additionalProperties": False,
                     "anyOf": [{"required": ["turn"]}, {"required": ["phases"]}],
                     "properties": {"setup": STEPS, "turn": STEPS, "first_player": EXPR,
                                    "phases": {"type": "array", "minItems": 1, "items": {
                                        "type": "object", "required": ["turn"],
                                        "additionalProperties": False,
                                        "properties": {"name": {"type": "string"},
                                                       "turn": STEPS, "until": EXPR,
                                                       "doc": {"type": "string"}}}},
                                    "procedures": {"type": "object", "propertyNames": NAME,
                                                   "additionalProperties": STEPS}}},
            "triggers": {"type": "array", "items": {
                "type": "object", "required": ["when", "do"], "additionalProperties": False,
                "properties": {"for": {"type": "string"}, "when": EXPR, "do": STEPS,
                               "doc": {"type": "string"}}}},
            "end": {"type": "object", "required": ["when"], "additionalProperties": False,
                    "properties": {"when": {"anyOf": [EXPR, {"type": "object",
                                                             "additionalProperties": EXPR}]},
                                   "text": {"anyOf": [{"type": "string"}, {
                                       "type": "object",
                                       "additionalProperties": {"type": "string"}}],
                                       "description": "per end condition, a sentence (a "
                                                      "template) saying why the game ended"},
                                   "finish": {"enum": ["now", "round"]},
                                   "score": {"anyOf": [EXPR, {
                                       "type": "object", "minProperties": 1,
                                       "additionalProperties": EXPR}],
                                       "description": "what the end of the game adds to "
                                       "each player's score (`player` is the player), or "
                                       "named parts of it; a section of its own in "
                                       "`rulekit play`"},
                                   "check": {"enum": ["steps", "effects"],
                                             "description": "when the end is checked: after "
                                             "every step of a turn, an action's effects "
                                             "counting as one (steps, the default), or after "
                                             "every effect, also inside an action (effects)"}}},
            "score": EXPR,
            "zero_sum": {"type": "boolean",
                         "description": "the scores of every finished game add up to 0 (one "
                                        "player's gain is the others' loss): `rulekit validate "
                                        "--simulate` checks it, and adapters tell learning "
                                        "frameworks (OpenSpiel) so"},
            "score_bounds": {
                "type": "object", "additionalProperties": False, "minProperties": 1,
                "description": "the least and the most score a player can have, as expressions "
                               "of params and player_count; `rulekit validate --simulate` "
                               "reports scores outside them",
                "properties": {"min": EXPR, "max": EXPR}},
            "levels": _levels(),
            "display": _display(),
        },
        "$defs": {"param": _param(), "choice": _choice(), "step": _step(),
                  "component": _component()},
    }


def schema_text() -> str:
    return json.dumps(game_schema(), indent=2) + "\n"


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(game_schema())


def schema_diagnostics(src: Source,
                       validator: Draft202012Validator | None = None) -> list[Diagnostic]:
    """Every schema violation of the document, located and with a hint where one helps;
    against the game schema, or another `validator` (the schema of tests files).

    It stops looking after one more than MAX_DIAGNOSTICS: an error reports no more, and a
    file of 100,000 unknown keys is not worth 100,000 messages.
    """
    out: list[Diagnostic] = []
    seen = set()
    for err in (validator or _validator()).iter_errors(src.data):
        for d in _explain(src, err):
            key = (d.line, d.col, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
        if len(out) > MAX_DIAGNOSTICS:
            break
    out.sort(key=lambda d: (d.line, d.col))
    return _drop_misspelt_required(out)


def _drop_misspelt_required(diags: list[Diagnostic]) -> list[Diagnostic]:
    """A required key that is missing because it is misspelt is one mistake, not two: the
    unknown key's did-you-mean says it all."""
    meant = {(_parent(d.path), d.hint) for d in diags if d.message.startswith("unknown key")}
    return [d for d in diags if not (
        d.message.endswith("is missing (required)")
        and (_parent(d.path), f"did you mean '{d.path[len(_parent(d.path)):].lstrip('.')}'?")
        in meant)]


def _parent(path: str) -> str:
    return path[:max(path.rfind("."), path.rfind("["), 0)]


#: what stands in for a refused item of a list, by the key holding the list: something
#: that does nothing, so that the items after it keep their places (and positions)
_NO_OP_ITEM = {"options": {"label": "-"}, "triggers": {"when": "false", "do": []}}
_NO_OP_STEP = {"say": ""}


def conforming(data: Any) -> Any:
    """A copy of the document without what the schema refuses.

    The semantic checks expect the shapes the schema gives; over this copy they can
    still check the parts the schema accepted. Refused keys are removed, refused items of
    a list replaced by items that do nothing; missing top-level keys stay missing (the
    compiler has defaults for them).
    """
    data = copy.deepcopy(data)
    for _ in range(8):
        errors = list(_validator().iter_errors(data))
        if not errors or not isinstance(data, dict):
            break
        changed = False
        for err in sorted(errors, key=lambda e: -len(e.absolute_path)):
            path = list(err.absolute_path)
            node = _at(data, path)
            if err.validator == "additionalProperties" and isinstance(node, dict):
                for key in [k for k in node if k not in err.schema.get("properties", {})]:
                    del node[key]
                    changed = True
                continue
            if not path:
                continue
            parent, key = _at(data, path[:-1]), path[-1]
            if isinstance(parent, dict) and key in parent:
                del parent[key]
                changed = True
            elif isinstance(parent, list) and isinstance(key, int) and key < len(parent):
                holder = path[-2] if len(path) >= 2 else None
                stand_in = _NO_OP_ITEM.get(holder, _NO_OP_STEP) if holder != "levels" else None
                if parent[key] != stand_in:
                    parent[key] = copy.deepcopy(stand_in)
                    changed = True
        if not changed:
            break
    return data


def _at(data: Any, path: list) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _explain(src: Source, err: Any) -> list[Diagnostic]:
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = list(err.schema.get("properties", {}))
        out = []
        unknown = (key for key in err.instance if key not in known)
        for key in itertools.islice(unknown, MAX_DIAGNOSTICS + 1):
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else (
                f"allowed here: {', '.join(known)}" if known else None)
            out.append(src.diag(path + (key,), f"unknown key '{cut(str(key))}'", hint, key=True))
        if out:
            return out
    if err.validator == "required":
        key = err.message.split("'")[1] if err.message.count("'") >= 2 else ""
        doc = err.schema.get("properties", {}).get(key, {}).get("description")
        hint = f"add `{key}:`" + (f" ({doc})" if doc else "")
        return [src.diag(path + (key,) if key else path,
                         err.message.replace("is a required property", "is missing (required)"),
                         hint)]
    if err.validator == "enum":
        value = err.instance
        close = difflib.get_close_matches(
            cut(str(value), 200), [str(v) for v in err.validator_value], n=1) \
            if isinstance(value, (str, int, float)) else []
        allowed = ", ".join(map(str, err.validator_value))
        hint = f"did you mean '{close[0]}'?" if close else f"write one of: {allowed}"
        return [src.diag(path, f"{shown(value)} is not one of: {allowed}", hint)]
    if err.validator == "type":
        want = err.validator_value
        hint = _type_hint(err.schema)
        want = " or ".join(want) if isinstance(want, list) else want
        return [src.diag(path, f"expected {want}, got {_json_type(err.instance)}", hint)]
    if err.validator == "anyOf":
        # the alternative of the value's own type says best what is wrong with it
        from jsonschema.exceptions import best_match

        fitting = [e for e in err.context or () if e.validator != "type"]
        if fitting:
            return _explain(src, best_match(fitting))
        ways = ", or ".join(_type_hint(alt).removeprefix("write ") for alt in err.validator_value)
        return [src.diag(path, f"{_json_type(err.instance)} does not fit here", f"write {ways}")]
    return [src.diag(path, _message(err), _hint(err))]


_WRITE = {
    "integer": "a whole number (3)",
    "number": "a number (1.5)",
    "string": "text (quoted if it holds ': ')",
    "boolean": "true or false",
    "array": "a list ([a, b], or one `- item` per line)",
    "object": "a mapping (`key: value` lines indented under this key)",
}


def _type_hint(schema: dict) -> str:
    """How to write a value of the type a (sub)schema wants."""
    description = schema.get("description")
    if schema is EXPR or description == EXPR["description"]:
        return 'write an expression (text such as "x + 1", a number, true or false)'
    want = schema.get("type", "object")
    wants = want if isinstance(want, list) else [want]
    text = ", or ".join(_WRITE.get(w, w) for w in wants)
    return f"write {text}" + (f"; here: {description}" if description else "")


def _message(err: Any) -> str:
    """jsonschema's message in its own words, but with the value quoted cut short: its
    messages quote the whole value, which may be a text of megabytes or a whole section."""
    v, want, value = err.validator, err.validator_value, err.instance
    if v == "const":
        return f"{shown(value)} is not allowed here: expected {shown(want)}"
    if v == "pattern" or (v == "propertyNames" and err.context):
        return f"{shown(value)} is not a valid {err.schema.get('title', 'name')}"
    said = _SAID.get(v)
    if said is not None:
        return f"{shown(value)} {said(want)}"
    return clip(err.message, 200)


#: what jsonschema says after the value it quotes, by keyword, from the keyword's value
_SAID = {
    "minimum": lambda want: f"is less than the minimum of {want!r}",
    "maximum": lambda want: f"is greater than the maximum of {want!r}",
    "exclusiveMinimum": lambda want: f"is less than or equal to the minimum of {want!r}",
    "exclusiveMaximum": lambda want: f"is greater than or equal to the maximum of {want!r}",
    "multipleOf": lambda want: f"is not a multiple of {want!r}",
    "minItems": lambda want: "should be non-empty" if want == 1 else "is too short",
    "minLength": lambda want: "should be non-empty" if want == 1 else "is too short",
    "maxItems": lambda want: "is expected to be empty" if want == 0 else "is too long",
    "maxLength": lambda want: "is expected to be empty" if want == 0 else "is too long",
    "minProperties": lambda want: "should be non-empty" if want == 1
    else "does not have enough properties",
    "maxProperties": lambda want: "is expected to be empty" if want == 0
    else "has too many properties",
    "uniqueItems": lambda want: "has non-unique elements",
    "contains": lambda want: "does not contain the items it needs",
    "anyOf": lambda want: "is not valid under any of the given schemas",
    "oneOf": lambda want: "is not valid under exactly one of the given schemas",
    "not": lambda want: "is not allowed here",
    "type": lambda want: f"is not of type {want!r}",
    "enum": lambda want: f"is not one of {shown(want)}",
}


def _hint(err: Any) -> str | None:
    """A hint for the less common violations: bounds, sizes, names."""
    v, want = err.validator, err.validator_value
    lo, hi = err.schema.get("minimum"), err.schema.get("maximum")
    if v in ("minimum", "maximum"):
        if lo is not None and hi is not None:
            return f"allowed: {lo} to {hi}"
        return f"the least allowed is {lo}" if lo is not None else f"the most allowed is {hi}"
    if v in ("minItems", "minProperties", "minLength"):
        return f"write at least {want} item{'s' if want != 1 else ''} here" if want > 1 \
            else "this may not be empty"
    if v in ("maxItems", "maxProperties", "maxLength"):
        return f"write at most {want} here"
    if v == "pattern" and "title" in err.schema:  # a titled pattern explains itself
        return err.schema.get("description")
    if v in ("pattern", "propertyNames"):
        return "a name starts with a letter and holds letters, digits and '_'"
    if v == "const":
        return f"write {shown(want)}"
    return err.schema.get("description")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}" if len(value) < 30 else "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"
