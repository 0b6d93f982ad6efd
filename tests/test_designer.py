"""What a designer meets when a file is wrong or does nothing: a misspelt param in a
variant, warnings for parts that do nothing (printed; an error only with --strict)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rulekit.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"


def run(*args: object) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(GAMES / "qwixx.yaml", tmp_path)
    return tmp_path


def variant(folder: Path, body: str) -> Path:
    path = folder / "variant.yaml"
    path.write_text("extends: qwixx.yaml\nname: Qwixx variant\n" + body)
    return path


def test_a_misspelt_param_in_a_variant_is_an_error_with_a_did_you_mean(folder: Path) -> None:
    path = variant(folder, "params:\n  max_penalty: {default: 3}\n")
    result = run("validate", path)
    assert result.exit_code == 1
    assert f"{path}:4:3: error: param 'max_penalty' changes nothing" in result.output
    assert "did you mean 'max_penalties'?" in result.output
    assert "'type' is missing" not in result.output
    # the right name changes the game
    assert run("validate", variant(folder, "params:\n  max_penalties: {default: 3}\n")
               ).exit_code == 0


def test_parts_that_do_nothing_are_warnings_and_errors_only_when_strict(folder: Path) -> None:
    path = variant(folder, "params:\n  max_penalty: {type: int, default: 3}\n"
                           "vars:\n  bonus: {per: player, init: 0}\n")
    result = run("validate", path)
    assert result.exit_code == 0
    assert f"{path}: ok (2 warnings)" in result.output
    assert f"{path}:4:3: warning: param 'max_penalty' is never read" in result.output
    assert f"{path}:6:3: warning: var 'bonus' is never set" in result.output
    strict = run("validate", "--strict", path)
    assert strict.exit_code == 1 and "ok" not in strict.output
    (entry,) = json.loads(run("validate", "--format", "json", path).output)
    assert entry["valid"] is True
    assert {d["severity"] for d in entry["diagnostics"]} == {"warning"}


def test_a_procedure_nothing_runs_is_a_warning_at_its_name(folder: Path) -> None:
    path = variant(folder, "flow:\n  procedures:\n    bonus_round:\n      - say: hello\n")
    result = run("validate", path)
    assert result.exit_code == 0, result.output
    assert f"{path}:5:5: warning: procedure 'bonus_round' is never run" in result.output
    assert "`run:` it" in result.output
    assert run("validate", "--strict", path).exit_code == 1
    # a procedure a `run:` names is no warning: the shipped games run all of theirs
    assert "never run" not in run("validate", folder / "qwixx.yaml").output


def test_options_whose_label_leaves_out_a_name_that_tells_them_apart_are_a_warning(
        folder: Path) -> None:
    lines = (folder / "qwixx.yaml").read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if 'label: "{row.name} {n}"' in line)
    lines[at] = lines[at].replace('"{row.name} {n}"', '"cross {n}"')  # which row?
    (folder / "qwixx.yaml").write_text("\n".join(lines))
    result = run("validate", folder / "qwixx.yaml")
    assert result.exit_code == 0
    assert (f"{folder / 'qwixx.yaml'}:{at + 1}:" in result.output
            and "warning: options that differ only in 'row' get the same label"
            in result.output)


def test_the_shipped_games_have_no_warnings() -> None:
    result = run("validate", "--strict", GAMES)
    assert result.exit_code == 0 and "warning" not in result.output


@pytest.mark.parametrize("indent", [3, 5])
def test_a_line_indented_one_space_off_gets_an_indentation_hint_at_that_line(
        tmp_path: Path, indent: int) -> None:
    lines = (GAMES / "qwixx.yaml").read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("    lock: shared"))
    lines[at] = " " * indent + lines[at].lstrip()
    path = tmp_path / "game.yaml"
    path.write_text("\n".join(lines))
    result = run("validate", path)
    assert result.exit_code == 1
    assert f"{path}:{at + 1}:{indent + 1}: error: YAML syntax" in result.output
    assert f"hint: this line is indented {indent} spaces, the lines above it " in result.output
    assert "quote" not in result.output


def test_a_list_param_declares_its_length_from_other_params(tmp_path: Path) -> None:
    shutil.copy(GAMES / "levelx.yaml", tmp_path)
    path = tmp_path / "short.yaml"
    path.write_text("extends: levelx.yaml\nname: Level X short\n"
                    "params:\n  row_lengths: {default: [2, 2, 2]}\n")
    result = run("validate", path)
    assert result.exit_code == 1
    assert (f"{path}:4:26: error: param 'row_lengths' needs 6 values, one per row from the "
            "lowest sum up") in result.output and "; got 3" in result.output
    assert result.output.count("error:") == 1  # what reads the list is not blamed as well
    # the length follows the params it is computed from
    wider = run("validate", GAMES / "levelx.yaml", "--set", "highest_sum=11",
                "--set", "row_lengths=[4, 4, 3, 3, 2, 2, 2]")
    assert "needs 7 values" not in wider.output
    narrow = run("validate", GAMES / "levelx.yaml", "--set", "highest_sum=9")
    assert "the value set" not in narrow.output and "needs 5 values" in narrow.output
