"""The `rulekit` command as a user meets it: exit codes, messages, reports, a game played."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
QWIXX = str(ROOT / "games" / "qwixx.yaml")


def run(*args: str, input: str | None = None) -> Result:
    result = CliRunner().invoke(main, list(args), input=input)
    # a user never sees a Python traceback, whatever the exit code
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def without_time(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "seconds"}


@pytest.fixture
def broken_yaml(tmp_path: Path) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text("name: Broken\nplayers: {min: 2, max: 3\nparams: [\n")
    return path


@pytest.fixture
def bad_schema(tmp_path: Path) -> Path:
    path = tmp_path / "bad_schema.yaml"
    path.write_text("rulekit: 1\nname: 42\nplayers: many\n")
    return path


# ---- validate ---------------------------------------------------------------------------------
def test_validate_a_good_file() -> None:
    result = run("validate", QWIXX)
    assert result.exit_code == 0
    assert result.output.strip() == f"{QWIXX}: ok"


def test_validate_a_yaml_syntax_error_is_located(broken_yaml: Path) -> None:
    result = run("validate", str(broken_yaml))
    assert result.exit_code == 1
    assert re.search(re.escape(str(broken_yaml)) + r":\d+:\d+: error: ", result.output)


def test_validate_a_schema_error(bad_schema: Path) -> None:
    result = run("validate", str(bad_schema))
    assert result.exit_code == 1
    assert "bad_schema.yaml:" in result.output


def test_validate_a_missing_file_is_an_invalid_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.yaml"
    result = run("validate", str(missing))
    assert result.exit_code == 1
    assert "nowhere.yaml" in result.output


def test_a_missing_log_is_no_such_file_without_a_line_number(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    result = run("replay", str(missing))
    assert result.exit_code == 1
    assert f"{missing}: no such file" in result.output and f"{missing}:1" not in result.output


def test_validate_without_a_file_is_a_usage_error() -> None:
    result = run("validate")
    assert result.exit_code == 2
    assert "Missing argument" in result.output


def test_validate_json_lists_every_file(broken_yaml: Path) -> None:
    result = run("validate", "--format", "json", QWIXX, str(broken_yaml))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [d["file"] for d in data] == [QWIXX, str(broken_yaml)]
    assert [d["valid"] for d in data] == [True, False]
    assert data[0]["diagnostics"] == []
    diag = data[1]["diagnostics"][0]
    assert {"file", "line", "col", "message", "severity", "path", "hint"} <= set(diag)
    assert diag["line"] >= 1 and diag["severity"] == "error"


def test_validate_json_all_valid_exits_0() -> None:
    result = run("validate", "--format", "json", QWIXX)
    assert result.exit_code == 0
    assert json.loads(result.stdout)[0]["valid"] is True


# ---- schema -----------------------------------------------------------------------------------
def test_schema_is_json() -> None:
    result = run("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert isinstance(schema, dict) and "properties" in schema


# ---- simulate ---------------------------------------------------------------------------------
def simulate_json(*extra: str) -> dict:
    result = run("simulate", QWIXX, "--games", "20", "--players", "3", "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_simulate_is_deterministic_for_a_seed() -> None:
    a = simulate_json("--seed", "5", "--bots", "random,greedy")
    b = simulate_json("--seed", "5", "--bots", "random,greedy")
    c = simulate_json("--seed", "6", "--bots", "random,greedy")
    assert without_time(a) == without_time(b)
    assert without_time(a) != without_time(c)
    assert a["games"] == 20 and a["players"] == 3 and a["bots"] == ["random", "greedy"]
    assert len(a["by_seat"]) == 3
    assert [b["bot"] for b in a["by_bot"]] == ["random", "greedy"]
    assert sum(a["end_reasons"].values()) == 20


def test_simulate_set_changes_the_game() -> None:
    default = simulate_json("--seed", "2")
    harsh = simulate_json("--seed", "2", "--set", "penalty_points=30")
    assert harsh["params"]["penalty_points"] == 30
    assert default["params"]["penalty_points"] != 30
    assert (harsh["by_bot"][0]["score"]["mean"]
            < default["by_bot"][0]["score"]["mean"] - 10)


def test_simulate_text_report() -> None:
    result = run("simulate", QWIXX, "--games", "10", "--bots", "greedy,random")
    assert result.exit_code == 0
    out = result.output
    assert "10 games, 2 players" in out
    assert "win rate" in out and "score mean" in out and "95% intervals" in out
    assert "greedy" in out and "random" in out
    assert "turns:" in out and "decisions:" in out and "how games ended:" in out
    assert "games/s" not in out  # no progress line off a terminal


@pytest.mark.parametrize(
    ("option", "needle"),
    [("nosuch_param=3", "nosuch_param"), ("penalty_points=lots", "penalty_points"),
     ("no_equals_sign", "NAME=VALUE")],
)
def test_simulate_bad_set_exits_1(option: str, needle: str) -> None:
    result = run("simulate", QWIXX, "--games", "2", "--set", option)
    assert result.exit_code == 1
    assert needle in result.stderr
    assert result.stdout == ""


def test_simulate_unknown_bot() -> None:
    result = run("simulate", QWIXX, "--games", "2", "--bots", "random,nosuch")
    assert result.exit_code == 2
    assert "unknown bot 'nosuch'" in result.output
    assert "greedy, mcts, random" in result.output


def test_simulate_bad_player_count_and_bad_file(tmp_path: Path) -> None:
    result = run("simulate", QWIXX, "--games", "2", "--players", "9")
    assert result.exit_code == 2  # a usage error, as --seat 5 is
    assert "not 9" in result.stderr
    result = run("simulate", str(tmp_path / "missing.yaml"), "--games", "2")
    assert result.exit_code == 1
    assert "missing.yaml" in result.stderr


# ---- play -------------------------------------------------------------------------------------
def test_play_auto_finishes() -> None:
    result = run("play", QWIXX, "--players", "3", "--bots", "greedy,random", "--auto",
                 "--seed", "3")
    assert result.exit_code == 0
    out = result.output
    assert "player 1 (random): " in out
    assert re.search(r"^roll: white1 \d, white2 \d", out, re.M)
    assert "scores: player 0 (greedy) " in out
    assert re.search(r"^winners?( \(shared\))?: player \d", out, re.M)
    assert "game over after " in out


def test_play_reads_choices_from_a_pipe_and_stops_at_end_of_input() -> None:
    result = run("play", QWIXX, "--bots", "random", "--players", "2", "--seed", "1",
                 input="zzz\n99\n1\npass\n")
    assert result.exit_code == 0
    out = result.output
    assert "'zzz' is not a legal choice" in out
    assert "99 is not a legal choice" in out
    assert "player 0 (you): pass" in out
    assert "player 1 (random): " in out
    assert "end of input" in out


def test_play_at_another_seat() -> None:
    result = run("play", QWIXX, "--players", "3", "--seat", "2", "--bots", "greedy",
                 input="pass\n" * 400)
    assert result.exit_code == 0
    assert "player 2 (you): pass" in result.output
    assert "player 0 (greedy): " in result.output


def test_play_bad_seat_is_a_usage_error() -> None:
    result = run("play", QWIXX, "--players", "2", "--seat", "5")
    assert result.exit_code == 2
    assert "--seat" in result.output


def test_help_starts_without_the_parsers_and_the_schema_validator() -> None:
    # `rulekit --help` should answer at once: no YAML reader, grammar or schema validator
    code = ("import sys\nfrom click.testing import CliRunner\nfrom rulekit.cli import main\n"
            "r = CliRunner().invoke(main, ['--help'])\nassert r.exit_code == 0, r.output\n"
            "print(sorted(m for m in ('yaml', 'lark', 'jsonschema', 'rulekit.engine') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
