"""The JSON Schema of game files: checked in, printed by `rulekit schema`, and used."""

import json

from click.testing import CliRunner
from jsonschema import Draft202012Validator

from rulekit.cli import main
from rulekit.spec.schema import game_schema, schema_text


def test_checked_in_schema_is_the_generated_one(root):
    assert (root / "schemas" / "game.schema.json").read_text() == schema_text(), (
        "regenerate schemas/game.schema.json from rulekit.spec.schema.schema_text()")


def test_schema_is_valid_draft_2020_12_and_printed_by_the_cli():
    Draft202012Validator.check_schema(game_schema())
    out = CliRunner().invoke(main, ["schema"])
    assert out.exit_code == 0
    assert json.loads(out.output)["$schema"].endswith("2020-12/schema")


def test_every_kind_and_step_is_in_the_schema():
    s = game_schema()
    kinds = s["$defs"]["component"]["properties"]["kind"]["enum"]
    assert {"dice", "cross_sheet"} <= set(kinds)
    steps = s["$defs"]["step"]["properties"]
    assert {"roll", "choose", "together", "if", "for", "run", "set", "add", "cross"} <= set(steps)
