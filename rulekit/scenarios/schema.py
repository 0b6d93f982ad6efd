"""The JSON Schema of tests files: checked in as schemas/tests.schema.json, and used."""

from __future__ import annotations

import json
from functools import lru_cache

from jsonschema import Draft202012Validator

LABEL = {"type": ["string", "integer"], "description": "an action's label"}
LABELS = {"type": "array", "items": LABEL, "maxItems": 10_000}
SEAT = {"type": "integer", "minimum": 0, "maximum": 1000}
OUTCOME = {"description": "a chance outcome as RULES.md gives it (a roll: a mapping of dice "
                          "to faces; a deal: the whole set in dealing order, or "
                          "{hands: [...], stock: [...]})"}

#: the keys of a step that act on the game; a step holds one of them
ACTIONS = ("roll", "deal", "chance", "play")
#: the keys of a step that check the game; a step holds any of them
CHECKS = ("decides", "legal", "legal_includes", "legal_excludes", "over", "end_reason",
          "scores", "expect", "values", "impossible")


def _step() -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {
            "roll": OUTCOME,
            "deal": OUTCOME,
            "chance": OUTCOME,
            "play": {"anyOf": [LABEL, LABELS],
                     "description": "a label, or a list of labels played in turn"},
            "seat": {**SEAT, "description": "the seat that must be deciding (with play:)"},
            "decides": {"type": ["integer", "null"], "minimum": 0, "maximum": 1000,
                        "description": "the seat that decides now (null: nobody, a chance "
                                       "step is due or the game is over)"},
            "legal": {**LABELS, "description": "the legal labels now, exactly (in any order)"},
            "legal_includes": {**LABELS, "description": "labels that must be legal now"},
            "legal_excludes": {**LABELS, "description": "labels that must not be legal now"},
            "over": {"type": "boolean", "description": "whether the game is over"},
            "end_reason": {"type": ["string", "null"], "description": "why the game ended"},
            "scores": {"type": "array", "items": {"type": "integer"}, "maxItems": 1000,
                       "description": "every seat's score, in seat order"},
            "expect": {"type": "string", "minLength": 1,
                       "description": "an expression of the game that must be true now"},
            "values": {"type": "object", "minProperties": 1,
                       "description": "expressions of the game and the value each must have"},
            "impossible": {**OUTCOME, "description": "a chance outcome the due chance step "
                                                     "must refuse (the state stays as it is)"},
        },
    }


def _scenario() -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "doc": {"type": "string", "description": "what the scenario shows"},
            "players": {"type": "integer", "minimum": 1, "maximum": 1000,
                        "description": "players in the game [default: the game's minimum]"},
            "seed": {"type": "integer", "description": "the game's seed [default: 0]"},
            "params": {"type": "object",
                       "description": "params of the game set for this scenario"},
            "steps": {"type": "array", "items": {"$ref": "#/$defs/step"},
                      "description": "chance outcomes, decisions and expectations, in order"},
            "skip": {"type": "string", "minLength": 1,
                     "description": "why a scenario of the base tests does not apply here"},
        },
    }


def tests_schema() -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rulekit.example/schemas/tests.schema.json",
        "title": "rulekit tests file",
        "description": "Scenarios that play a game with given chance outcomes and decisions "
                       "and check what follows; see docs/tests.md.",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "description": {"type": "string"},
            "game": {"type": "string", "minLength": 1,
                     "description": "the game file, in this file's folder or below "
                                    "[default: NAME.yaml for NAME.tests.yaml]"},
            "extends": {"type": "string", "minLength": 1,
                        "description": "a tests file whose scenarios run here too; "
                                       "scenarios of the same name replace them"},
            "scenarios": {"type": "object",
                          "additionalProperties": {"$ref": "#/$defs/scenario"},
                          "description": "scenarios by name"},
        },
        "$defs": {"scenario": _scenario(), "step": _step()},
    }


def schema_text() -> str:
    return json.dumps(tests_schema(), indent=2) + "\n"


@lru_cache(maxsize=1)
def validator() -> Draft202012Validator:
    return Draft202012Validator(tests_schema())
