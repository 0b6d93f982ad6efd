"""`rulekit test`: the scenarios of tests files, their located failures and diagnostics,
`extends:` between tests files, and games recorded as scenarios."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rulekit.cli import main
from rulekit.scenarios.schema import schema_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def qwixx(tmp_path: Path) -> Path:
    """A copy of Qwixx in a folder of its own, for tests files written by the test."""
    shutil.copy(GAMES / "qwixx.yaml", tmp_path / "qwixx.yaml")
    return tmp_path / "qwixx.yaml"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


ROLL = "{white1: 3, white2: 4, red: 1, yellow: 1, green: 1, blue: 1}"


# ---- the shipped games -------------------------------------------------------------------------
def test_every_shipped_game_passes_its_scenarios():
    result = run("test", str(GAMES))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not any(line.startswith("FAIL") for line in lines)
    for base in ("qwixx", "levelx", "domino7"):
        own = [line for line in lines if line.startswith(f"ok    {GAMES / base}.tests.yaml")]
        assert len(own) >= 10, base
    # every variant has a tests file of its own
    for variant in GAMES.glob("*-*.yaml"):
        if not variant.name.endswith(".tests.yaml"):
            assert (GAMES / (variant.stem + ".tests.yaml")).is_file(), variant


def test_a_game_file_runs_the_tests_beside_it_and_json_reports_each_scenario():
    result = run("test", "--format", "json", str(GAMES / "levelx.yaml"))
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["ok"] and len(report["scenarios"]) >= 10
    assert {s["file"] for s in report["scenarios"]} == {str(GAMES / "levelx.tests.yaml")}


def test_the_checked_in_schema_is_the_generated_one():
    assert (ROOT / "schemas" / "tests.schema.json").read_text() == schema_text(), (
        "regenerate schemas/tests.schema.json from rulekit.scenarios.schema.schema_text()")


# ---- failures ----------------------------------------------------------------------------------
def test_a_failing_expectation_is_reported_at_its_line_with_expected_and_actual(qwixx):
    write(qwixx.with_name("qwixx.tests.yaml"), f"""\
scenarios:
  white sum:
    players: 2
    steps:
      - roll: {ROLL}
      - legal: [red 7, yellow 7, green 7, blue 7, pass]
      - play: [red 7, pass, pass]
      - scores: [1, 0]
  wrong score:
    players: 2
    steps:
      - roll: {ROLL}
      - play: [red 7, pass, pass]
      - scores: [3, 0]
""")
    result = run("test", str(qwixx))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("ok ") and lines[0].endswith("white sum")
    assert lines[1].startswith("FAIL") and lines[1].endswith("wrong score")
    assert lines[2] == (f"{qwixx.with_name('qwixx.tests.yaml')}:14:17: scenario wrong score: "
                        "expected scores [3, 0], got [1, 0]")
    assert lines[-1] == "2 scenarios: 1 passed, 1 failed"


def test_an_illegal_decision_or_the_wrong_seat_fails_the_scenario_there(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), f"""\
scenarios:
  illegal:
    steps:
      - roll: {ROLL}
      - play: red 8
  seat:
    steps:
      - roll: {ROLL}
      - play: red 7
        seat: 1
  not a roll:
    steps:
      - play: pass
""")
    out = run("test", str(tests)).output
    assert f"{tests}:5:15: scenario illegal: 'red 8' is not a legal action for seat 0; " \
           "legal: red 7, yellow 7, green 7, blue 7, pass" in out
    assert f"{tests}:10:15: scenario seat: expected seat 1 to decide, got seat 0" in out
    assert f"{tests}:13:15: scenario not a roll: expected a decision (pass), got a chance " \
           "step is due" in out


def test_an_expression_is_evaluated_on_the_state_and_its_value_reported(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), f"""\
scenarios:
  values:
    steps:
      - roll: {ROLL}
      - play: [red 7, pass, pass]
      - expect: "players[0].sheet.rows[0].crosses == 1 and players[0].penalties == 0"
      - values:
          "players[0].penalties": 0
          "[r.crosses for r in players[0].sheet.rows]": [1, 0, 0, 1]
  "false":
    steps:
      - expect: "turn == 2"
""")
    out = run("test", str(tests)).output
    assert out.splitlines()[0].startswith("FAIL")     # the expect step held, values did not
    assert ("scenario values: expected `[r.crosses for r in players[0].sheet.rows]` = "
            "[1, 0, 0, 1], got [1, 0, 0, 0]") in out
    assert f"{tests}:12:17: scenario false: expected `turn == 2` to be true, got false" in out


def test_an_expression_error_points_at_its_column(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), """\
scenarios:
  typo:
    steps:
      - expect: "players[0].penaltys == 0"
""")
    result = run("test", str(tests))
    assert result.exit_code == 1
    # the column of `penaltys`: 17 (the quote) + 1 + len("players[0].")
    assert f"{tests}:4:29: scenario typo: in `players[0].penaltys == 0`:" in result.output


def test_labels_and_outcomes_are_data_never_code(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), """\
scenarios:
  label:
    steps:
      - roll: {white1: 3, white2: 4, red: 1, yellow: 1, green: 1, blue: 1}
      - play: "__import__('os').system('touch pwned')"
  outcome:
    steps:
      - roll: "__import__('os')"
""")
    result = run("test", str(tests))
    assert result.exit_code == 1
    assert "is not a legal action for seat 0" in result.output
    assert "impossible roll outcome" in result.output
    assert not (qwixx.parent / "pwned").exists() and not Path("pwned").exists()


# ---- the file's own mistakes -------------------------------------------------------------------
def test_a_misspelt_key_is_located_with_a_suggestion(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), f"""\
scenarios:
  typo:
    steps:
      - roll: {ROLL}
      - legall: [pass]
""")
    result = run("test", str(tests))
    assert result.exit_code == 1
    assert f"{tests}:5:9: error: unknown key 'legall'" in result.output
    assert "did you mean 'legal'?" in result.output
    assert "Traceback" not in result.output
    write(tests, "scenarios:\n  no: {steps: [{over: false}]}\n")
    assert f"{tests}:2:3: error: the scenario name False is read as a bool, not as text" \
        in run("test", str(tests)).output


def test_a_step_that_does_two_things_is_refused(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), f"""\
scenarios:
  two:
    steps:
      - roll: {ROLL}
        legal: [pass]
""")
    result = run("test", str(tests))
    assert result.exit_code == 1
    assert f"{tests}:4:9: error: a step does one thing: roll, legal belong in separate " \
           "steps" in result.output


def test_paths_without_tests_and_usage_mistakes(qwixx, tmp_path):
    result = run("test", str(qwixx))
    assert result.exit_code == 1
    assert "no tests for this game: write qwixx.tests.yaml beside it" in result.output
    assert run("test", str(tmp_path / "missing.yaml")).exit_code == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no *.tests.yaml files" in run("test", str(empty)).output
    assert run("test").exit_code == 2
    assert run("test", "--format", "xml", str(qwixx)).exit_code == 2


def test_a_broken_yaml_file_is_one_located_message(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), "scenarios:\n  a: [\n")
    result = run("test", str(tests))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.startswith(f"{tests}:")


# ---- extends -----------------------------------------------------------------------------------
def test_a_variant_runs_the_base_scenarios_and_replaces_skips_or_changes_some(qwixx):
    shutil.copy(GAMES / "qwixx.yaml", qwixx.with_name("base.yaml"))
    write(qwixx.with_name("base.tests.yaml"), f"""\
scenarios:
  kept:
    steps:
      - roll: {ROLL}
      - legal_includes: [red 7]
  replaced:
    steps:
      - over: true
  skipped:
    steps:
      - over: true
  penalty:
    steps:
      - roll: {ROLL}
      - play: [pass, pass, pass]
      - scores: [-5, 0]
""")
    write(qwixx.with_name("qwixx.tests.yaml"), """\
extends: base.tests.yaml
scenarios:
  replaced:
    steps:
      - over: false
  skipped:
    skip: does not apply to this variant
  penalty:
    params: {penalty_points: 2}
""")
    result = run("test", str(qwixx))
    assert result.exit_code == 1, result.output
    assert result.output.count("ok    ") == 2                    # kept, replaced
    # the changed params hold, the base's steps stay: the failure is at the base's line
    assert (f"{qwixx.with_name('base.tests.yaml')}:16:17: scenario penalty: expected scores "
            "[-5, 0], got [-2, 0]") in result.output
    assert result.output.splitlines()[-1] == ("3 scenarios: 2 passed, 1 failed, 1 of the base "
                                              "tests skipped")


def test_extends_and_game_stay_in_the_folder_of_the_tests_file(tmp_path):
    inner = tmp_path / "inner"
    inner.mkdir()
    shutil.copy(GAMES / "qwixx.yaml", inner / "qwixx.yaml")
    write(tmp_path / "outside.tests.yaml", "scenarios: {a: {steps: [{over: false}]}}\n")
    tests = write(inner / "qwixx.tests.yaml", "extends: ../outside.tests.yaml\n")
    result = run("test", str(tests))
    assert result.exit_code == 1
    assert f"{tests}:1:10: error: extends: '../outside.tests.yaml' leaves the folder of " \
           "this file" in result.output
    write(tests, "game: /etc/passwd\nscenarios: {a: {steps: [{over: false}]}}\n")
    assert "game: '/etc/passwd' is an absolute path" in run("test", str(tests)).output
    # a folder the user allows may be read
    write(tests, "extends: ../outside.tests.yaml\n")
    assert run("test", "--allow-extends", str(tmp_path), str(tests)).exit_code == 0


# ---- deals -------------------------------------------------------------------------------------
def test_a_deal_written_as_hands_must_have_hands_of_one_size(tmp_path):
    shutil.copy(GAMES / "domino7.yaml", tmp_path / "domino7.yaml")
    tests = write(tmp_path / "domino7.tests.yaml", """\
scenarios:
  uneven:
    params: {highest_pip: 4, hand_size: 3}
    steps:
      - deal: {hands: [[4|4, 0|1, 1|1], [2|4, 0|0], [1|3, 0|3, 3|3], [1|2, 2|2, 2|3]]}
  not a tile:
    params: {highest_pip: 4, hand_size: 3}
    steps:
      - deal: {hands: [[4|4, 0|1, x]]}
""")
    out = run("test", str(tests)).output
    assert "scenario uneven: the hands hold 3, 2, 3, 3 tiles: every hand holds the same " \
           "number" in out
    assert 'scenario not a tile: "x" is not a tile: write a|b or [a, b]' in out


# ---- recording ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["qwixx", "levelx"])
def test_a_played_game_recorded_as_a_test_passes_and_fails_when_the_rules_change(
        tmp_path, name):
    game = tmp_path / f"{name}.yaml"
    shutil.copy(GAMES / f"{name}.yaml", game)
    test = tmp_path / "recorded.tests.yaml"
    log = tmp_path / "game.jsonl"
    played = run("play", str(game), "--auto", "--seed", "4", "--log", str(log),
                 "--record-test", str(test))
    assert played.exit_code == 0 and f"test written to {test}" in played.output
    result = run("test", str(test))
    assert result.exit_code == 0, result.output
    text = test.read_text()
    assert "legal:" in text and "seat:" in text and "scores:" in text
    # the replayed game gives the same scenario
    again = tmp_path / "again.tests.yaml"
    assert run("replay", str(log), "--record-test", str(again)).exit_code == 0
    assert again.read_text().split("\n", 1)[1] == text.split("\n", 1)[1]
    # a changed rule fails the recorded test
    rule = {"qwixx": ("penalty_points: {type: int, default: 5",
                      "penalty_points: {type: int, default: 4"),
            "levelx": ("default: [15, 12, 9, 6]", "default: [16, 12, 9, 6]")}[name]
    game.write_text(game.read_text().replace(*rule))
    assert run("test", str(test)).exit_code == 1


def test_a_game_stopped_early_is_recorded_as_not_over(qwixx):
    test = qwixx.with_name("stopped.tests.yaml")
    result = CliRunner().invoke(main, ["play", str(qwixx), "--bots", "random",
                                       "--record-test", str(test)], input="red 7\n")
    assert result.exit_code == 0
    assert "over: false" in test.read_text()
    assert run("test", str(test)).exit_code == 0


def test_an_outcome_expected_impossible_that_is_taken_fails(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), f"""\
scenarios:
  faces:
    steps:
      - impossible: {{white1: 7, white2: 4, red: 1, yellow: 1, green: 1, blue: 1}}
      - impossible: {ROLL}
""")
    out = run("test", str(tests)).output
    assert f"{tests}:5:21: scenario faces: expected " in out
    assert "to be impossible, but it was taken" in out


def test_a_game_file_without_tests_is_no_error_for_the_hook(qwixx):
    result = run("test", "--untested-ok", str(qwixx))
    assert result.exit_code == 0 and "0 scenarios" in result.output
    # the hook names each changed file: a tests file and its game run once
    both = run("test", str(GAMES / "levelx.yaml"), str(GAMES / "levelx.tests.yaml"))
    alone = run("test", str(GAMES / "levelx.yaml"))
    assert both.output == alone.output


def test_validate_checks_a_tests_file_against_its_own_schema(qwixx):
    tests = write(qwixx.with_name("qwixx.tests.yaml"), "scenarios: {a: {stepz: []}}\n")
    result = run("validate", str(qwixx), str(tests))
    assert result.exit_code == 1
    assert f"{qwixx}: ok" in result.output
    assert f"{tests}:1:17: error: unknown key 'stepz'" in result.output
    write(tests, "scenarios: {a: {steps: [{over: false}]}}\n")
    assert run("validate", "--simulate", "1", str(qwixx), str(tests)).exit_code == 0


def test_a_file_cannot_make_the_game_compile_without_end(qwixx):
    names = "\n".join(f"  s{k}: {{params: {{penalty_points: {k}}}, steps: [{{over: false}}]}}"
                      for k in range(70))
    tests = write(qwixx.with_name("qwixx.tests.yaml"), f"scenarios:\n{names}\n")
    result = run("test", str(tests))
    assert result.exit_code == 1
    assert result.output.count("ok    ") == 64
    assert "scenario s64: a tests file may set at most 64 different params" in result.output
