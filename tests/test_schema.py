"""The JSON Schema of game files: checked in, printed by `rulekit schema`, and used."""

import json

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from rulekit.cli import main
from rulekit.spec.schema import game_schema, schema_diagnostics, schema_text
from rulekit.spec.source import parse_text


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


# ---- messages quote a long value cut short -----------------------------------------------------
LONG = "q" * 200_000
HEAD = "name: Long\nplayers: {min: 2, max: 2}\nflow: {turn: [{say: hi}]}\nscore: '0'\n"
QUOTING = {
    "enum": f"end: {{when: 'true', finish: {LONG}}}",
    "const": f"rulekit: {LONG}",
    "pattern of a name": f"vars:\n  ? {LONG}-x\n  : {{init: 1}}",
    "unknown key": f"? {LONG}\n: 1",
    "const of a long list": "flow: {turn: [{break: [" + ", ".join([LONG[:1000]] * 150) + "]}]}",
    "maxProperties": f"define: {{a: '1'}}\nflow: {{turn: [{{set: {{a: {LONG}, b: {LONG}}}}}]}}",
}


@pytest.mark.parametrize("case", QUOTING, ids=list(QUOTING))
def test_schema_messages_quote_a_long_value_cut_short(case: str) -> None:
    text = HEAD + QUOTING[case] + "\n"
    if "flow:" in QUOTING[case]:
        text = text.replace("flow: {turn: [{say: hi}]}\n", "")
    src = parse_text(text, "game.yaml")
    diags = schema_diagnostics(src)
    assert diags
    for d in diags:
        assert len(d.message) <= 200 and len(d.path) <= 200, d
        assert LONG[:1000] not in (d.hint or ""), d
    assert any("characters" in d.message or "..." in d.message for d in diags)
