"""Robustness: no bad input crashes rulekit or passes silently.

A table of broken files, one per kind of mistake, each checked through `rulekit validate`
(text and JSON): the located message, the path inside the document, the hint and the exit
code. Then the guards against hostile or careless files, the run-time guards of the flow,
and `rulekit validate --simulate`.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.backends import codegen, flowgen, pysource
from rulekit.check import (
    NEVER_ENDS,
    NO_LEGAL_ACTION,
    NOT_ZERO_SUM,
    SCORE_OUT_OF_BOUNDS,
    check_game,
)
from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent

# A small game that uses every section a mistake can hit: params, vars, a component,
# procedures, a decision, an end, a score and score bounds.
BASE = """\
name: Tiny
players: {min: 2, max: 3}
params:
  target: {type: int, default: 10, min: 1, max: 100, doc: points that end the game}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6}}
flow:
  procedures:
    gain:
      - add: {active.points: "dice.d1 + dice.d2"}
  turn:
    - roll: dice
    - choose:
        pass: pass
        options:
          - for: "k in [1, 2]"
            label: "take {k}"
            do:
              - run: gain
end:
  when: "max(p.points for p in players) >= params.target"
score: "player.points"
score_bounds: {min: 0, max: "params.target + 12"}
"""


def run(*args: object) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def swap(old: str, new: str, text: str = BASE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


@dataclass
class Case:
    """A broken file and the diagnostic it must get.

    `at` is the text the diagnostic points at (its first occurrence in the file, plus
    `offset` columns); None: only the file and a line >= 1 are checked.
    """

    id: str
    text: str
    message: str  # a regular expression the message must match
    hint: str  # a regular expression the hint must match
    at: str | None = None
    offset: int = 0
    path: str | None = None
    sets: list[str] = field(default_factory=list)


def bomb() -> str:
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for name in "bcdefg":
        text += f"{name}: &{name} [{', '.join('*' + prev for _ in range(10))}]\n"
        prev = name
    return BASE + text


CASES = [
    # ---- YAML ---------------------------------------------------------------------------------
    Case("yaml-unclosed-mapping", swap("players: {min: 2, max: 3}", "players: {min: 2, max: 3"),
         r"YAML syntax", r"close the mapping|indentation|quot"),
    Case("yaml-tab", swap("  points: {per", "\tpoints: {per"), r"YAML syntax",
         r"spaces, not tabs", at="\tpoints"),
    Case("yaml-unclosed-quote", swap('score: "player.points"', 'score: "player.points'),
         r"YAML syntax", r"quote is not closed|quote not closed"),
    Case("yaml-colon-in-value", swap("name: Tiny", "name: Tiny: the game"), r"YAML syntax",
         r"quote a value that holds ': '", at=": the game"),
    Case("yaml-undefined-alias", BASE + "extra: *nowhere\n", r"YAML syntax.*alias",
         r"anchor", at="*nowhere"),
    Case("yaml-duplicate-key", BASE + 'score: "0"\n', r"duplicate key 'score'", r"merge",
         at='score: "0"', path="score"),
    Case("yaml-alias-bomb", bomb(), r"expands to more than 200000 nodes", r"aliases"),
    Case("yaml-deep-nesting", BASE + "description: " + "[" * 5000 + "]" * 5000 + "\n",
         r"nesting deeper than 60 levels", r"bracket", at="description: [",
         offset=len("description: ") + 60),
    Case("yaml-empty", "", r"the file is empty", r"name:", at=None),
    Case("yaml-huge-int", swap("default: 10,", "default: 1" + "0" * 40 + ","),
         r"more than 30 digits", r"no rule needs", at="1000", path="params.target.default"),
    Case("yaml-infinite-float", swap("default: 10,", "default: .inf,"),
         r"not a finite number", r"number such as", at=".inf", path="params.target.default"),
    Case("yaml-huge-file", BASE + "description: " + "x" * 1_000_001 + "\n",
         r"more than 1000000 characters", r"rules, not data"),
    Case("yaml-not-a-mapping", "- name\n- players\n", r"expected object, got a list",
         r"mapping", at="- name"),
    # ---- schema -------------------------------------------------------------------------------
    Case("schema-unknown-top-key", swap('score: "player.points"', 'scroe: "player.points"'),
         r"unknown key 'scroe'", r"did you mean 'score'\?", at="scroe", path="scroe"),
    Case("schema-unknown-key-in-component", swap("{kind: dice, dice:", "{kind: dice, dcie:"),
         r"unknown key 'dcie'", r"did you mean 'dice'\?", at="dcie", path="components.dice.dcie"),
    Case("schema-misspelt-step", swap("- roll: dice", "- rol: dice"), r"unknown key 'rol'",
         r"did you mean 'roll'\?", at="rol: dice", path="flow.turn[0].rol"),
    Case("schema-wrong-type", swap("{min: 2, max: 3}", "{min: two, max: 3}"),
         r"expected integer, got string 'two'", r"whole number", at="two", path="players.min"),
    Case("schema-out-of-range", swap("{min: 2, max: 3}", "{min: 2, max: 300}"),
         r"300 is greater than the maximum of 64", r"allowed: 1 to 64", at="300",
         path="players.max"),
    Case("schema-unknown-kind", swap("{kind: dice,", "{kind: dise,"), r"'dise' is not one of",
         r"did you mean 'dice'\?", at="dise", path="components.dice.kind"),
    Case("schema-missing-required", swap('score: "player.points"\n', ""),
         r"'score' is missing \(required\)", r"add `score:`", at="name: Tiny", path="score"),
    Case("schema-bad-name", swap("  target: {type", "  1st: {type"), r"'1st' is not a valid name",
         r"starts with a letter", path="params"),
    Case("schema-missing-param-default", swap("type: int, default: 10,", "type: int,"),
         r"'default' is missing", r"add `default:`", path="params.target.default"),
    # ---- params -------------------------------------------------------------------------------
    Case("param-default-wrong-type", swap("default: 10,", "default: ten,"),
         r"param 'target': expected int, got str 'ten'", r"target takes an int from 1 to 100",
         at="ten", path="params.target.default"),
    Case("param-default-out-of-range", swap("default: 10,", "default: 1000,"),
         r"param 'target': 1000 is above the maximum 100", r"from 1 to 100", at="1000",
         path="params.target.default"),
    # ---- expressions --------------------------------------------------------------------------
    Case("expr-syntax", swap('score: "player.points"', 'score: "player.points +"'),
         r"in expression `player.points \+`: expected an expression after '\+'", r".",
         at='"player.points +"', offset=len('"player.points +'), path="score"),
    Case("expr-unknown-attribute", swap('score: "player.points"', 'score: "player.pionts"'),
         r"has no attribute 'pionts'", r"did you mean 'points'\?", at="pionts", path="score"),
    Case("expr-unknown-name", swap('score: "player.points"', 'score: "bonus + 1"'),
         r"unknown name 'bonus'", r"known here: .*player", at="bonus", path="score"),
    Case("expr-unknown-param", swap(">= params.target", ">= params.targt"),
         r"unknown parameter 'targt'", r"did you mean 'target'\?", at="targt", path="end.when"),
    Case("expr-wrong-type", swap('score: "player.points"', "score: \"'a' + player.points\""),
         r"'\+' needs numbers, got str and int", r"str\(", at="+ player", path="score"),
    Case("expr-condition-not-bool",
         swap('"max(p.points for p in players) >= params.target"', '"max(p.points for p in '
              'players)"'),
         r"expected bool, got int", r"compare it", at="max(p.points", path="end.when"),
    Case("expr-wrong-arity", swap('score: "player.points"', 'score: "abs(player.points, 2)"'),
         r"abs\(\) takes 1 argument, got 2", r"use it as abs\(n\)", at="abs(", path="score"),
    Case("expr-wrong-arity-method", swap('score: "player.points"',
                                         "score: \"player.points + (1 if dice.in_play() else 0)\""),
         r"in_play\(\) takes 1 argument, got 0", r"use it as in_play\(str\)", at="in_play",
         path="score"),
    Case("expr-unknown-function", swap('score: "player.points"', 'score: "maxx(1, 2)"'),
         r"unknown function 'maxx'", r"did you mean 'max'\?", at="maxx", path="score"),
    Case("expr-too-long", swap('score: "player.points"', 'score: "' + "+".join("1" * 1500) + '"'),
         r"expression is too long", r".", at='"1+1', offset=1, path="score"),
    Case("expr-too-deep", swap('score: "player.points"', 'score: "' + "(" * 60 + "1" + ")" * 60
                               + '"'),
         r"nested too deeply", r".", path="score"),
    Case("expr-huge-constant", swap('score: "player.points"', 'score: "10 ** 10 ** 10"'),
         r"too large", r".", path="score"),
    Case("expr-huge-range", swap('score: "player.points"', 'score: "sum(range(10 ** 9))"'),
         r"range\(\) of 1000000000 numbers: at most 100000", r"far fewer", at="range",
         path="score"),
    Case("expr-in-label", swap('label: "take {k}"', 'label: "take {kk}"'), r"unknown name 'kk'",
         r"did you mean 'k'\?", at="kk", path="flow.turn[1].choose.options[0].label"),
    # ---- semantics ----------------------------------------------------------------------------
    Case("unknown-procedure", swap("- run: gain", "- run: gian"), r"unknown procedure 'gian'",
         r"did you mean 'gain'\?", at="gian", path="flow.turn[1].choose.options[0].do[0].run"),
    Case("unknown-component", swap("- roll: dice", "- roll: dcie"), r"unknown component 'dcie'",
         r"did you mean 'dice'\?", at="dcie", path="flow.turn[0].roll"),
    Case("players-min-above-max", swap("{min: 2, max: 3}", "{min: 3, max: 2}"),
         r"min is greater than max", r"smaller count as min", at="{min: 3", path="players"),
    Case("effect-missing-argument", swap('- add: {active.points: "dice.d1 + dice.d2"}',
                                         "- remove_die: {dice: dice}"),
         r"`remove_die` needs die", r"add die: \.\.\.", at="{dice: dice}",
         path="flow.procedures.gain[0].remove_die"),
    Case("unknown-variable", swap("{active.points:", "{active.pionts:"),
         r"unknown player variable 'pionts'", r"did you mean 'points'\?", at="active.pionts",
         path="flow.procedures.gain[0].add.active.pionts"),
    Case("variable-keeps-its-type", swap('{active.points: "dice.d1 + dice.d2"}',
                                         "{active.points: \"'many'\"}"),
         r"expected number, got str", r"needs a number", at="'many'",
         path="flow.procedures.gain[0].add.active.points"),
    Case("decision-without-options", swap("        pass: pass\n        options:\n"
                                          "          - for: \"k in [1, 2]\"\n"
                                          "            label: \"take {k}\"\n"
                                          "            do:\n"
                                          "              - run: gain\n",
                                          "        who: active\n    - run: gain\n"),
         r"a decision needs options", r"add options:", at="who: active",
         path="flow.turn[1].choose"),
    Case("score-bounds-min-above-max", swap('{min: 0, max: "params.target + 12"}',
                                            '{min: 50, max: "params.target + 12"}'),
         r"score_bounds: min 50 is greater than max 22 with 2 players", r"swap them",
         at="{min: 50", path="score_bounds"),
    Case("score-bounds-unknown-name", swap('max: "params.target + 12"', 'max: "turn * 12"'),
         r"unknown name 'turn'", r"known here: params, player_count", at="turn * 12",
         path="score_bounds.max"),
    Case("name-taken-by-every-player", swap("  points: {per: player, init: 0}\n",
                                            "  points: {per: player, init: 0}\n"
                                            "  seat: {per: player, init: 0}\n"),
         r"'seat' is a name every player has already", r"pick another name", at="seat: {per",
         path="vars.seat"),
    Case("name-taken-by-the-game", swap("components:\n", "components:\n"
                                        "  turn: {kind: dice, dice: {d: 6}}\n"),
         r"'turn' is a name the game has already", r"pick another name", at="turn: {kind",
         path="components.turn"),
    Case("die-name-taken", swap("{d1: 6, d2: 6}", "{d1: 6, d2: 6, names: 6}"),
         r"a die cannot be called 'names'", r"rename the die", at="names: 6",
         path="components.dice.dice.names"),
    Case("let-with-another-key", swap("      - add: {active.points:",
                                      "      - let: {n: 1}\n        say: hi\n"
                                      "      - add: {active.points:"),
         r"'say' does not belong to a `let` step", r"steps of their own", at="say: hi",
         path="flow.procedures.gain[0].say"),
    Case("chance-step-of-a-mapping", swap("- roll: dice", "- roll: {dice: 1}"),
         r"`roll` needs Dice as dice, got int", r"name a component", at="1}",
         path="flow.turn[0].roll.dice"),
    Case("chance-step-with-an-unknown-argument",
         swap("- roll: dice", "- roll: {dice: dice, al: 1}"),
         r"unknown key 'al'", r"allowed here: dice, only", at="al: 1",
         path="flow.turn[0].roll.al"),
    # ---- --set --------------------------------------------------------------------------------
    Case("set-unknown-param", BASE, r"--set targt=5: unknown param 'targt'",
         r"did you mean 'target'\?", at="target:", path="params", sets=["targt=5"]),
    Case("set-wrong-type", BASE, r"--set target=lots: param 'target': expected int, got str",
         r"target takes an int from 1 to 100 \(points that end the game\)", at="{type: int",
         path="params.target", sets=["target=lots"]),
    Case("set-out-of-range", BASE, r"--set target=0: param 'target': 0 is below the minimum 1",
         r"from 1 to 100", at="{type: int", path="params.target", sets=["target=0"]),
]


def located(text: str, needle: str, offset: int) -> tuple[int, int]:
    i = text.index(needle)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1 + offset
    return line, col


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_mistake_gets_a_located_message_with_a_hint(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(case.text, encoding="utf-8")
    sets = [a for s in case.sets for a in ("--set", s)]

    result = run("validate", *sets, path)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    result_json = run("validate", "--format", "json", *sets, path)
    assert result_json.exit_code == 1, result_json.output
    (entry,) = json.loads(result_json.stdout)
    assert entry["file"] == str(path) and entry["valid"] is False
    found = [d for d in entry["diagnostics"] if re.search(case.message, d["message"])]
    assert found, f"no diagnostic matches {case.message!r}: {entry['diagnostics']}"
    d = found[0]
    assert d["file"] == str(path) and d["line"] >= 1 and d["col"] >= 1
    assert d["hint"] and re.search(case.hint, d["hint"]), d
    if case.at is not None:
        assert (d["line"], d["col"]) == located(case.text, case.at, case.offset), d
    if case.path is not None:
        assert d["path"] == case.path, d
    # the same diagnostic in the text output: file:line:col: error: message, path, hint
    head = f"{path}:{d['line']}:{d['col']}: error: {d['message']}"
    assert head in result.output
    if d["path"]:
        assert f"\n  at {d['path']}\n" in result.output
    assert f"\n  hint: {d['hint']}" in result.output


def test_the_table_has_one_row_per_mistake() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


# ---- files that cannot be read, usage errors ----------------------------------------------------
def test_a_missing_file_and_a_folder_without_game_files_are_invalid(tmp_path: Path) -> None:
    result = run("validate", "--format", "json", tmp_path / "nowhere.yaml", tmp_path)
    assert result.exit_code == 1
    missing, folder = json.loads(result.stdout)
    assert missing["diagnostics"][0]["message"] == "no such file"
    assert missing["diagnostics"][0]["hint"]
    assert "cannot read" in folder["diagnostics"][0]["message"]
    assert folder["diagnostics"][0]["hint"]


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"name: Caf\xe9\n")
    result = run("validate", path)
    assert result.exit_code == 1 and "UTF-8" in result.output


@pytest.mark.parametrize("args", [
    ["validate"],
    ["validate", "--format", "xml", "games/qwixx.yaml"],
    ["validate", "--set", "no_equals_sign", "games/qwixx.yaml"],
    ["validate", "--set", "target=[1,", "games/qwixx.yaml"],
    ["validate", "--simulate", "0", "games/qwixx.yaml"],
    ["validate", "--simulate", "many", "games/qwixx.yaml"],
])
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_valid_files_exit_0_with_text_and_json(root: Path) -> None:
    files = sorted(str(p) for p in (root / "games").rglob("*.yaml"))
    result = run("validate", *files)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"{f}: ok" for f in files]
    data = json.loads(run("validate", "--format", "json", *files).stdout)
    assert all(e["valid"] and not e["diagnostics"] for e in data)


def test_a_valid_and_an_invalid_file_exit_1(tmp_path: Path, root: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(swap("- roll: dice", "- rol: dice"))
    result = run("validate", "--format", "json", root / "games" / "qwixx.yaml", bad)
    assert result.exit_code == 1
    assert [e["valid"] for e in json.loads(result.stdout)] == [True, False]


def test_validate_set_changes_the_checked_params(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(BASE)
    assert run("validate", "--set", "target=20", path).exit_code == 0
    # the bounds are worked out with the overridden params: 30 > 10 + 12, but not 20 + 12
    bounded = tmp_path / "bounded.yaml"
    bounded.write_text(swap("{min: 0,", "{min: 30,"))
    assert run("validate", bounded).exit_code == 1
    assert run("validate", "--set", "target=20", bounded).exit_code == 0


def test_an_internal_failure_is_a_message_not_a_traceback(monkeypatch, tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(BASE)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something broke")

    monkeypatch.setattr(rulekit, "load_game", broken)
    result = run("validate", path)
    assert result.exit_code == 1
    assert "internal error: RuntimeError: something broke" in result.output
    assert "Traceback" not in result.output


# ---- extends -----------------------------------------------------------------------------------
def test_extends_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "v.yaml"
    path.write_text("extends: nowhere.yaml\nname: V\n")
    data = json.loads(run("validate", "--format", "json", path).stdout)
    (d,) = data[0]["diagnostics"]
    assert "no such file 'nowhere.yaml'" in d["message"] and (d["line"], d["col"]) == (1, 10)
    assert d["path"] == "extends" and "looked for" in d["hint"]


def test_extends_in_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("extends: b.yaml\nname: A\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\nname: B\n")
    result = run("validate", "--format", "json", tmp_path / "a.yaml")
    assert result.exit_code == 1
    (d,) = json.loads(result.stdout)[0]["diagnostics"]
    assert "forms a cycle (a.yaml -> b.yaml -> a.yaml)" in d["message"]
    assert d["path"] == "extends" and d["hint"]


def test_extends_of_itself(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("extends: a.yaml\n")
    result = run("validate", tmp_path / "a.yaml")
    assert result.exit_code == 1 and "cycle" in result.output


def test_an_error_in_a_variant_points_into_the_variant(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(BASE)
    variant = tmp_path / "variant.yaml"
    variant.write_text("extends: base.yaml\nname: Tiny variant\nscore: 'player.pionts'\n")
    data = json.loads(run("validate", "--format", "json", variant).stdout)
    (d,) = data[0]["diagnostics"]
    assert d["file"] == str(variant) and d["line"] == 3 and d["hint"] == "did you mean 'points'?"


# ---- several errors in one file ----------------------------------------------------------------
def test_several_errors_are_all_reported_in_file_order(tmp_path: Path) -> None:
    text = swap('score: "player.points"', 'score: "player.pionts"',
                swap("- run: gain", "- run: gian",
                     swap("dice.d1 + dice.d2", "dice.d1 + * dice.d2")))
    path = tmp_path / "game.yaml"
    path.write_text(text)
    data = json.loads(run("validate", "--format", "json", path).stdout)
    ds = data[0]["diagnostics"]
    assert len(ds) == 3
    assert [d["line"] for d in ds] == sorted(d["line"] for d in ds)
    assert all(d["hint"] for d in ds)


def test_semantic_errors_are_reported_along_with_schema_errors(tmp_path: Path) -> None:
    text = swap("- roll: dice", "- rol: dice",
                swap('score: "player.points"', 'score: "abs(player.points, 2)"'))
    path = tmp_path / "game.yaml"
    path.write_text(text)
    ds = json.loads(run("validate", "--format", "json", path).stdout)[0]["diagnostics"]
    messages = [d["message"] for d in ds]
    assert any("unknown key 'rol'" in m for m in messages)
    assert any("abs() takes 1 argument, got 2" in m for m in messages)
    assert len(ds) == 2  # and nothing that only follows from the misspelt step


def test_no_noise_from_a_broken_declaration(tmp_path: Path) -> None:
    # the misspelt kind takes `dice` out of the game: its uses elsewhere are not reported
    text = swap("{kind: dice,", "{kind: dise,", swap('score: "player.points"',
                                                     'score: "abs(player.points, 2)"'))
    path = tmp_path / "game.yaml"
    path.write_text(text)
    ds = json.loads(run("validate", "--format", "json", path).stdout)[0]["diagnostics"]
    assert [d["path"] for d in ds] == ["components.dice.kind", "score"]


# ---- guards against hostile or careless files --------------------------------------------------
def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    text = "a: &a [" + ", ".join(["x"] * 50) + "]\n"
    prev = "a"
    for name in "bcdefghijk":
        text += f"{name}: &{name} [{', '.join('*' + prev for _ in range(50))}]\n"
        prev = name
    path.write_text(text)
    with pytest.raises(rulekit.GameFileError, match="more than 200000 nodes"):
        rulekit.load_game(path)


@pytest.mark.parametrize("text", [
    "x: " + "[" * 100_000 + "]" * 100_000 + "\n",
    "x: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n",
    "".join("  " * i + f"k{i}:\n" for i in range(900)),
    "x:\n  " + "- " * 100_000 + "1\n",
], ids=["flow-sequences", "flow-mappings", "block-mappings", "compact-sequences"])
def test_deep_nesting_is_refused_with_a_location(text: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    with pytest.raises(rulekit.GameFileError) as exc:
        rulekit.load_game(path)
    (d,) = exc.value.diagnostics
    assert d.message == "nesting deeper than 60 levels"
    assert d.line >= 1 and d.col >= 1 and d.hint


def test_huge_numbers_are_refused(tmp_path: Path) -> None:
    for value in ["1" * 31, "-" + "9" * 40, ".inf", "-.inf", ".nan", "1e999"]:
        path = tmp_path / "huge.yaml"
        path.write_text(swap("default: 10,", f"default: {value},"))
        with pytest.raises(rulekit.GameFileError) as exc:
            rulekit.load_game(path)
        assert exc.value.diagnostics[0].path == "params.target.default", value


def test_a_count_that_fails_for_one_player_count_is_located(tmp_path: Path, root: Path) -> None:
    text = (root / "games" / "domino7.yaml").read_text()
    path = tmp_path / "domino.yaml"
    path.write_text(swap("hand_size: params.hand_size", 'hand_size: "18 // (player_count - 4)"',
                         text))
    data = json.loads(run("validate", "--format", "json", path).stdout)
    (d,) = data[0]["diagnostics"]
    assert d["message"] == "hand_size with 4 players: integer division or modulo by zero"
    assert d["path"] == "components.hand.hand_size" and d["hint"]


# ---- run-time guards of the flow ---------------------------------------------------------------
def tiny_game(tmp_path: Path, text: str) -> rulekit.Game:
    path = tmp_path / "game.yaml"
    path.write_text(text)
    return rulekit.load_game(path)


def play_to_the_end(state: rulekit.State) -> rulekit.State:
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(state.legal_actions()[0])
    return state


def line_of(text: str, needle: str) -> int:
    return located(text, needle, 0)[0]


def test_a_flow_that_never_ends_is_stopped_at_the_step_it_loops_in(tmp_path: Path) -> None:
    text = swap('  when: "max(p.points for p in players) >= params.target"',
                '  when: "max(p.points for p in players) < 0"')
    game = tiny_game(tmp_path, text)
    game.max_steps = 5_000
    state = game.new_game(players=2, seed=1)
    with pytest.raises(rulekit.EndlessFlowError) as exc:
        play_to_the_end(state)
    message = str(exc.value)
    assert "did not end within 5000 steps" in message
    assert re.match(rf"{re.escape(game.file)}:\d+:\d+: ", message)
    assert isinstance(exc.value, rulekit.FlowError)


def test_a_procedure_that_runs_itself_is_named(tmp_path: Path) -> None:
    text = swap("      - add: {active.points:", "      - run: gain\n      - add: {active.points:")
    text = swap('    - roll: dice\n', '    - roll: dice\n    - choose: {pass: go}\n', text)
    game = tiny_game(tmp_path, text)
    state = game.new_game(players=2, seed=1)
    state.resolve_chance()
    with pytest.raises(rulekit.EndlessFlowError, match="runs itself") as exc:
        play_to_the_end(state)
    assert f"{game.file}:{line_of(text, '- run: gain')}:" in str(exc.value)


def test_a_loop_of_pure_steps_counts_against_the_budget(tmp_path: Path) -> None:
    text = swap("    - roll: dice\n",
                '    - roll: dice\n    - for: "i in range(100000), j in range(100000)"\n'
                '      do: [{add: {active.points: 0}}]\n')
    game = tiny_game(tmp_path, text)
    state = game.new_game(players=2, seed=1)
    with pytest.raises(rulekit.EndlessFlowError) as exc:
        state.resolve_chance()
    assert f"{game.file}:{line_of(text, '- for: ')}:" in str(exc.value)


def test_a_trigger_that_never_stops_firing(tmp_path: Path) -> None:
    text = BASE + "triggers:\n  - when: 'true'\n    do: [{add: {active.points: 0}}]\n"
    game = tiny_game(tmp_path, text)
    with pytest.raises(rulekit.EndlessFlowError, match="trigger fired 100 times") as exc:
        play_to_the_end(game.new_game(players=2, seed=1))
    assert f"{game.file}:{line_of(text, '- when:')}:" in str(exc.value)


def test_a_decision_without_a_legal_option_names_its_step(tmp_path: Path) -> None:
    text = swap("        pass: pass\n", "", swap('for: "k in [1, 2]"', 'for: "k in []"'))
    game = tiny_game(tmp_path, text)
    state = game.new_game(players=2, seed=1)
    with pytest.raises(rulekit.NoOptionError) as exc:
        state.resolve_chance()
    assert str(exc.value).startswith(f"{game.file}:{line_of(text, '- choose:')}:")
    assert "no legal option for seat 0" in str(exc.value)


@pytest.mark.parametrize(("change", "needle"), [
    (('"dice.d1 + dice.d2"', '"active.points * 1000000 + 1000000"'), "grow without end"),
    (('"dice.d1 + dice.d2"', '"len(range(player_count * 100000))"'),
     "more than the 100000 allowed"),
    (('"dice.d1 + dice.d2"', '"10 ** (dice.d1 * 1000)"'), "too large a number"),
])
def test_run_time_numbers_are_bounded(change: tuple[str, str], needle: str,
                                      tmp_path: Path) -> None:
    game = tiny_game(tmp_path, swap(*change, swap(">= params.target", "< 0")))  # no end
    with pytest.raises(rulekit.FlowError, match=needle):
        play_to_the_end(game.new_game(players=2, seed=1))


@pytest.mark.parametrize(("component", "step", "needle"), [
    ("board: {kind: track, lanes: [1, 2], lengths: [3, 3]}",
     "advance: {track: board, lane: 7, player: active}",
     "track 'board' has no lane 7; its lanes are 1, 2"),
    ("chips: {kind: supply, keys: [1, 2], count: 3}",
     'add: {active.points: "chips[7]"}',
     "supply 'chips' has no pile 7; its piles are 1, 2"),
    ("chips: {kind: supply, keys: [1, 2], count: 3}\n  won: {kind: supply, per: player, "
     "keys: [1, 2]}",
     "move_token: {from: chips, key: 7, to: active.won}",
     "supply 'chips' has no pile 7; its piles are 1, 2"),
    ("", "remove_die: {dice: dice, die: \"'d9'\"}", "dice 'dice' have no die 'd9'"),
], ids=["track-lane", "supply-read", "supply-move", "dice-name"])
def test_a_building_block_that_refuses_a_step_names_the_step(
        tmp_path: Path, component: str, step: str, needle: str) -> None:
    """A lane, a pile or a die the file does not have: the step that asked for it is named
    with file:line:col, on the generated code and the closures alike, through the API, in
    random play and in `rulekit simulate` (exit 1, no traceback)."""
    text = swap('      - add: {active.points: "dice.d1 + dice.d2"}', f"      - {step}")
    if component:
        text = swap("components:\n", f"components:\n  {component}\n", text)
    path = tmp_path / "game.yaml"
    path.write_text(text)
    where = f"{path}:{line_of(text, '- ' + step)}:9"  # the procedure's step
    messages = []
    for generated in (True, False):
        old = codegen.ENABLED, pysource.FUNCTIONS, flowgen.ENABLED
        codegen.ENABLED = pysource.FUNCTIONS = flowgen.ENABLED = generated
        try:
            game = rulekit.load_game(path)
        finally:
            codegen.ENABLED, pysource.FUNCTIONS, flowgen.ENABLED = old
        state = game.new_game(players=2, seed=1)
        state.resolve_chance()
        with pytest.raises(rulekit.FlowError) as api:
            state.apply("take 1")
        with pytest.raises(rulekit.FlowError) as playout:
            game.new_game(players=2, seed=1).playout(random.Random(1))
        messages += [str(api.value), str(playout.value)]
    assert len(set(messages)) == 1
    assert messages[0] == f"{where}: an action failed while the game ran: {needle}"
    result = run("simulate", path, "--games", "2")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{where}: an action failed while the game ran: {needle}" in result.output


def test_groupings_of_too_many_dice(tmp_path: Path) -> None:
    dice = ", ".join(f"d{i}: 6" for i in range(1, 10))
    text = swap("{d1: 6, d2: 6}", "{" + dice + "}",
                swap('"dice.d1 + dice.d2"', '"len(dice.groupings)"'))
    game = tiny_game(tmp_path, text)
    with pytest.raises(rulekit.FlowError, match="at most 8 dice"):
        play_to_the_end(game.new_game(players=2, seed=1))


# ---- validate --simulate -----------------------------------------------------------------------
def test_simulate_the_shipped_games(root: Path) -> None:
    files = sorted(str(p) for p in (root / "games").rglob("*.yaml") if ".tests." not in p.name)
    result = run("validate", "--simulate", "4", *files)
    assert result.exit_code == 0, result.output
    for f in files:
        assert f"{f}: ok" in result.output
        assert re.search(rf"{re.escape(f)}: 4 random games played \([\d, ]+ players\): "
                         r"no problems", result.output)


def test_simulate_uses_every_player_count_and_the_seeds_in_turn(tmp_path: Path) -> None:
    game = tiny_game(tmp_path, swap('score: "player.points"', 'score: "player_count * 1000"'))
    report = check_game(game, 5)
    assert [(p.game, p.seed, p.players) for p in report.problems] == [
        (1, 0, 2), (2, 1, 3), (3, 2, 2), (4, 3, 3), (5, 4, 2)]
    assert {p.kind for p in report.problems} == {SCORE_OUT_OF_BOUNDS}
    assert "seat 0 scored 2000" in report.problems[0].message


@pytest.mark.parametrize(("change", "kind", "needle"), [
    (('>= params.target"', '< 0"'), NEVER_ENDS, "did not end within"),
    (('for: "k in [1, 2]"', 'for: "k in []"'), NO_LEGAL_ACTION, "no legal option"),
    (('score: "player.points"', 'score: "player.points // (turn - turn)"'), "error",
     "ZeroDivisionError"),
    (('{min: 0, max: "params.target + 12"}', '{min: 0, max: 3}'), SCORE_OUT_OF_BOUNDS,
     "score_bounds allow 0 to 3 with 2 players"),
    (('score: "player.points"', 'zero_sum: true\nscore: "player.points"'), NOT_ZERO_SUM,
     "but the file says zero_sum: true"),
])
def test_simulate_reports_each_kind_of_problem(change: tuple[str, str], kind: str, needle: str,
                                               tmp_path: Path, monkeypatch) -> None:
    text = swap(*change)
    if kind == NO_LEGAL_ACTION:
        text = swap("        pass: pass\n", "", text)
    path = tmp_path / "game.yaml"
    path.write_text(text)
    rulekit.load_game(path)  # the file itself is valid
    # a shorter step budget keeps the endless games quick; the report is the same
    monkeypatch.setattr("rulekit.engine.game.DEFAULT_MAX_STEPS", 3_000)
    result = run("validate", "--simulate", "3", path)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert f"{path}: ok" in result.output
    assert re.search(rf"{re.escape(str(path))}: game 1 \(seed 0, 2 players\): {kind}: .*"
                     + re.escape(needle), result.output), result.output
    assert re.search(r"3 random games played \(2, 3 players\): [1-3] problem\(s\)",
                     result.output)
    result_json = run("validate", "--simulate", "3", "--format", "json", path)
    assert result_json.exit_code == 1
    (entry,) = json.loads(result_json.stdout)
    assert entry["valid"] is True
    problem = entry["simulation"]["problems"][0]
    assert (problem["game"], problem["seed"], problem["players"], problem["kind"]) == \
        (1, 0, 2, kind)


def test_simulate_stops_a_game_that_takes_too_long(tmp_path: Path) -> None:
    # each end check (it reads the turn: checked after every change) is slow but within
    # the budgets: the time limit stops the game. The game's work budget lasts about 0.3 s
    # of these checks on this machine, so the limit is a sixth of that: the deadline must
    # come first on a fast machine too
    text = swap('when: "max(p.points for p in players) >= params.target"',
                'when: "sum(1 for i in range(400) for j in range(400)) < turn - turn"')
    game = tiny_game(tmp_path, text)
    report = check_game(game, 1, time_limit=0.05)
    (problem,) = report.problems
    assert problem.kind == NEVER_ENDS and "more than 0.05 s" in problem.message, problem


def test_simulate_reports_a_score_past_the_work_budget(tmp_path: Path) -> None:
    text = swap('score: "player.points"',
                'score: "player.points + sum(1 for i in range(100000) for j in range(100000))"')
    game = tiny_game(tmp_path, text)
    report = check_game(game, 1, time_limit=30)
    (problem,) = report.problems
    assert problem.kind == "error"
    assert f"{game.file}:{line_of(text, 'score:')}:" in problem.message
    assert "more work than the scores may take" in problem.message


def test_simulate_skips_invalid_files(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(swap("- roll: dice", "- rol: dice"))
    result = run("validate", "--simulate", "2", "--format", "json", path)
    assert result.exit_code == 1
    (entry,) = json.loads(result.stdout)
    assert entry["valid"] is False and "simulation" not in entry


def test_simulate_with_set_checks_the_overridden_game(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(BASE)
    assert run("validate", "--simulate", "3", path).exit_code == 0
    result = run("validate", "--simulate", "3", "--set", "target=100", path)
    assert result.exit_code == 0, result.output
