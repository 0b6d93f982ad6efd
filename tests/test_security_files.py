"""Files outside the game, malformed logs and hostile values (issue 9, items 2 and 4).

A game file, a log and a `--set` value may come from someone else. Each attack here
must end with exit code 1 (2 for a usage error of `validate --set`), a message located
in the file or log (`file:line:col`, `LOG:LINE`), no traceback, within seconds, and
nothing of a file outside the game in the output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import rulekit
from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
QWIXX = ROOT / "games" / "qwixx.yaml"
SECRET = "TOPSECRET-7c1e"
#: the longest an attack may take through the command line, in seconds
SECONDS = 5

TINY = """\
name: Tiny
players: {min: 2, max: 3}
params:
  target: {type: int, default: 10, min: 1, max: 100}
  rate: {type: float, default: 0.5, min: 0, max: 1}
  weights: {type: list, items: float, default: [0.5]}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        pass: pass
        options:
          - for: "k in [1, 2]"
            label: "take {k}"
            do:
              - add: {active.points: "k"}
end:
  when: "max(p.points for p in players) >= params.target"
score: "player.points"
"""


def cli(*args: object, input: str | None = None) -> Result:
    """Run rulekit in this process; it must not crash and must be quick."""
    start = time.perf_counter()
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert time.perf_counter() - start < SECONDS, args
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def cli_process(*args: object) -> subprocess.CompletedProcess:
    """Run rulekit in a child process, killed if it does not end in time: for inputs
    that would block a reader (a pipe) or never end (/dev/zero)."""
    return subprocess.run([sys.executable, "-m", "rulekit.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=20, cwd=ROOT)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the game's folder whose content must never be shown."""
    outside = tmp_path / "outside"
    outside.mkdir()
    path = outside / "secret.yaml"
    path.write_text(f"root: {SECRET}\n{SECRET}: x\n  broken: [\n")
    return path


@pytest.fixture
def game_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "tiny.yaml").write_text(TINY)
    return folder


def variant(folder: Path, ref: str) -> Path:
    path = folder / "variant.yaml"
    path.write_text(f"name: V\nextends: {ref}\n")
    return path


def refused(result: Result, path: Path, message: str) -> None:
    """exit 1, the message at the `extends:` value (line 2, column 10), a hint."""
    assert result.exit_code == 1, result.output
    assert f"{path}:2:10: error: {message}" in result.output
    assert "\n  hint: " in result.output
    assert SECRET not in result.output


# ---- extends: ----------------------------------------------------------------------------------
def test_the_shipped_variants_load_without_any_option() -> None:
    files = sorted((ROOT / "games").glob("*.yaml"))
    assert any("extends:" in f.read_text() for f in files)
    result = cli("validate", *files)
    assert result.exit_code == 0, result.output


def test_extends_with_an_absolute_path_is_refused(game_dir: Path, secret: Path) -> None:
    path = variant(game_dir, str(secret))
    refused(cli("validate", path), path, f"extends: '{secret}' is an absolute path")
    with pytest.raises(rulekit.GameFileError) as err:
        rulekit.load_game(path)
    assert "--allow-extends" in err.value.diagnostics[0].hint


def test_extends_that_leaves_the_folder_is_refused(game_dir: Path, secret: Path) -> None:
    path = variant(game_dir, "../outside/secret.yaml")
    refused(cli("validate", path), path, "extends: '../outside/secret.yaml' leaves the folder")
    # a base further down may not climb out either: the rule holds for every file
    (game_dir / "sub").mkdir()
    (game_dir / "sub" / "mid.yaml").write_text("extends: ../../outside/secret.yaml\n")
    path = variant(game_dir, "sub/mid.yaml")
    result = cli("validate", path)
    assert result.exit_code == 1 and "mid.yaml:1:10: error: extends:" in result.output
    assert SECRET not in result.output


def test_a_link_leading_outside_is_refused(game_dir: Path, secret: Path) -> None:
    (game_dir / "base.yaml").symlink_to(secret)
    path = variant(game_dir, "base.yaml")
    refused(cli("validate", path), path, "extends: 'base.yaml' is a link that leads outside")


def test_proc_and_devices_are_refused(game_dir: Path) -> None:
    path = variant(game_dir, "/proc/self/environ")
    refused(cli("validate", path), path, "extends: '/proc/self/environ' is an absolute path")
    # allowed by the user, a device is still no game file, and is never opened
    (game_dir / "zero.yaml").symlink_to("/dev/zero")
    path = variant(game_dir, "zero.yaml")
    done = cli_process("validate", "--allow-extends", "/dev", path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{path}:2:10: error: extends: 'zero.yaml' is not a game file" in done.stdout


def test_a_pipe_is_refused_without_blocking(game_dir: Path) -> None:
    os.mkfifo(game_dir / "base.yaml")  # opening it to read would wait for a writer
    path = variant(game_dir, "base.yaml")
    done = cli_process("validate", path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{path}:2:10: error: extends: 'base.yaml' is not a regular file" in done.stdout


def test_a_file_that_is_not_yaml_is_not_read_even_next_to_the_game(game_dir: Path) -> None:
    (game_dir / ".env").write_text(f"TOKEN: {SECRET}\n")
    path = variant(game_dir, ".env")
    refused(cli("validate", path), path, "extends: '.env' is not a game file")
    (game_dir / "text.yaml").write_text(f"just a line of {SECRET}\n")  # not a mapping
    path = variant(game_dir, "text.yaml")
    refused(cli("validate", path), path, "extends: 'text.yaml' is not a game file")


def test_allow_extends_widens_the_rule_explicitly(game_dir: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "tiny.yaml").write_text(TINY)
    (game_dir / "tiny.yaml").unlink()
    path = variant(game_dir, "../shared/tiny.yaml")
    assert cli("validate", path).exit_code == 1
    assert cli("validate", "--allow-extends", shared, path).exit_code == 0
    result = cli("simulate", path, "--games", "2", "--allow-extends", shared)
    assert result.exit_code == 0, result.output
    assert rulekit.load_game(path, extends_roots=[shared]).name == "V"
    # a folder allowed is not its parent: the secret next to it stays out of reach
    path = variant(game_dir, "../outside/secret.yaml")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(f"root: {SECRET}\n")
    refused(cli("validate", "--allow-extends", shared, path), path, "extends:")


def test_help_names_the_option() -> None:
    for command in ("validate", "play", "simulate", "replay"):
        assert "--allow-extends" in cli(command, "--help").output


# ---- reading any file: regular files only, bounded in bytes ------------------------------------
@pytest.mark.parametrize("command", [["validate"], ["simulate", "--games", "1"],
                                     ["play", "--auto"]])
def test_a_named_pipe_or_device_as_the_game_file(tmp_path: Path, command: list[str]) -> None:
    fifo = tmp_path / "game.yaml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        done = cli_process(*command, path)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert f"{path}: error: cannot read the file: it is a " in done.stdout + done.stderr


def test_a_file_larger_than_the_limit_is_not_parsed(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"name: x\n" + b"#" * 5_000_000)
    result = cli("validate", path)
    assert result.exit_code == 1
    assert f"{path}:1:1: error: the file has more than 1000000 characters" in result.output


def test_control_characters_and_bad_dates_are_located_not_tracebacks(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(TINY.encode() + b"description: \"a\x00b\"\n")
    result = cli("validate", path)
    assert result.exit_code == 1
    assert f"{path}:24:16: error: the file holds the control character #x0000" in result.output
    path.write_text(TINY + "description: 2001-13-45\n")
    result = cli("validate", path)
    assert result.exit_code == 1
    assert f"{path}:24:14: error: this is not a valid date" in result.output


# ---- replay: which game file -------------------------------------------------------------------
@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A finished game of Tiny, its log next to its game file."""
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "tiny.yaml").write_text(TINY)
    log = folder / "game.jsonl"
    monkeypatch.chdir(folder)
    played = CliRunner().invoke(main, ["play", "tiny.yaml", "--auto", "--log", "game.jsonl"])
    monkeypatch.chdir(tmp_path)
    assert played.exit_code == 0, played.output
    assert json.loads(log.read_text().splitlines()[0])["game"] == "tiny.yaml"
    return log


def with_header(log: Path, **fields: object) -> Path:
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(fields)
    lines[0] = json.dumps(header)
    log.write_text("\n".join(lines) + "\n")
    return log


def test_replay_says_which_game_file_it_loaded(logged: Path) -> None:
    result = cli("replay", logged)
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first == f"game file: {logged.parent / 'tiny.yaml'} (named by the log)"
    result = cli("replay", logged, "--game", logged.parent / "tiny.yaml")
    assert result.output.splitlines()[0].endswith("tiny.yaml (--game)")


@pytest.mark.parametrize("name", ["{secret}", "../outside/secret.yaml", "link.yaml"])
def test_replay_does_not_follow_the_log_out_of_its_folder(
        logged: Path, secret: Path, name: str) -> None:
    (logged.parent / "link.yaml").symlink_to(secret)
    game = name.format(secret=secret)
    with_header(logged, game=game)
    result = cli("replay", logged)
    assert result.exit_code == 1
    assert f"{logged}:1: the log" in result.stderr and "--game" in result.stderr
    assert SECRET not in result.output
    # named by the user, the file is loaded, and must then be a game file
    result = cli("replay", logged, "--game", logged.parent / "tiny.yaml")
    assert result.exit_code == 0, result.output


def test_replay_of_a_log_next_to_no_game_asks_for_game(logged: Path) -> None:
    (logged.parent / "tiny.yaml").unlink()
    result = cli("replay", logged)
    assert result.exit_code == 1
    assert f"{logged}:1: the log's game file 'tiny.yaml' is not found next to the log" \
        in result.stderr and "--game FILE" in result.stderr


@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_replay_of_a_pipe_or_device_is_refused_without_blocking(
        tmp_path: Path, source: str) -> None:
    log = tmp_path / "game.jsonl"
    if source == "fifo":
        os.mkfifo(log)
    else:
        log = Path(source)
    done = cli_process("replay", log)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{log}: cannot read the log: it is a " in done.stderr


def test_replay_of_a_log_over_the_limits(logged: Path, monkeypatch) -> None:
    import rulekit.replay as replay

    monkeypatch.setattr(replay, "MAX_LOG_BYTES", 200)
    result = cli("replay", logged)
    assert result.exit_code == 1
    assert f"{logged}: cannot read the log: it has more than 200 bytes" in result.stderr
    monkeypatch.setattr(replay, "MAX_LOG_BYTES", 10**8)
    monkeypatch.setattr(replay, "MAX_LOG_LINES", 3)
    result = cli("replay", logged)
    assert result.exit_code == 1 and f"{logged}:4: the log has more than 3 lines" in result.stderr


# ---- malformed logs ----------------------------------------------------------------------------
HEADERS = {
    # id: (the header line as JSON text, with {h} the valid header's fields, the message)
    "players-text": ('{h, "players": "2"}', "the header's players must be a whole number"),
    "players-zero": ('{h, "players": 0}', "the header's players must be a whole number"),
    "players-5000-digits": ('{h, "players": ' + "9" * 5000 + "}",
                            "a number with more than 40 digits"),
    "players-too-many": ('{h, "players": 100000}', "Tiny is for 2 to 3 players, not 100000"),
    "seed-inf": ('{h, "seed": 1e400}', "the number 1e400 is too large (not finite)"),
    "seed-5000-digits": ('{h, "seed": ' + "1" * 5000 + "}", "more than 40 digits"),
    "seed-fraction": ('{h, "seed": 1.5}', "the header's seed must be a whole number or null"),
    "seed-nan": ('{h, "seed": NaN}', "NaN is not a number a log may hold"),
    "game-number": ('{h, "game": 7}', "the header's game must be the name of a game file"),
    "game-list": ('{h, "game": ["tiny.yaml"]}', "the header's game must be the name"),
    "params-list": ('{h, "params": [1]}', "the header's params must be an object"),
    "params-nested": ('{h, "params": {"target": {"a": 1}}}', "the header's param 'target'"),
    "params-wrong-type": ('{h, "params": {"target": "lots"}}',
                          "the log's param 'target': expected int, got str 'lots'"),
    "params-out-of-range": ('{h, "params": {"target": 1000}}',
                            "the log's param 'target': 1000 is above the maximum 100"),
    "params-infinite": ('{h, "params": {"rate": -Infinity}}', "-Infinity is not a number"),
    "params-unknown": ('{h, "params": {"nope": 1}}', "the log sets param 'nope', which"),
    "format": ('{h, "rulekit_log": 2}', "the header's rulekit_log must be 1"),
    "format-true": ('{h, "rulekit_log": true}', "the header's rulekit_log must be 1"),
    "unknown-field": ('{h, "extra": 1}', "the header has an unknown field 'extra'"),
    "deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "deep-in-params": ('{h, "params": {"target": ' + "[" * 50 + "]" * 50 + "}}",
                       "nested more than 10 deep"),
    "not-json": ('{h, "players": }', "not JSON: Expecting value"),
}


@pytest.mark.parametrize("header, message", HEADERS.values(), ids=HEADERS)
def test_a_malformed_header_is_a_located_error(logged: Path, header: str, message: str) -> None:
    lines = logged.read_text().splitlines()
    fields = json.dumps(json.loads(lines[0]))[1:-1]
    lines[0] = header.replace("{h,", "{" + fields + ",")
    logged.write_text("\n".join(lines) + "\n")
    result = cli("replay", logged)
    assert result.exit_code == 1, result.output
    assert f"{logged}:1: " in result.stderr and message in result.stderr, result.stderr


DECISION = '{"seat": 0, "action": "pass"'
ENTRIES = {
    # id: (the line put in place of line 3 (a decision; 2 for a chance line), the message)
    "seat-text": ('{"seat": "0", "action": "pass"}', "the seat must be a whole number"),
    "seat-negative": ('{"seat": -1, "action": "pass"}', "the seat must be a whole number"),
    "seat-huge": ('{"seat": ' + "7" * 5000 + ', "action": "pass"}', "more than 40 digits"),
    "seat-infinite": ('{"seat": 1e999, "action": "pass"}', "too large (not finite)"),
    "action-number": ('{"seat": 0, "action": 5}', "the action must be a text"),
    "action-list": ('{"seat": 0, "action": ["pass"]}', "the action must be a text"),
    "forced-text": (DECISION + ', "forced": "yes"}', "forced must be true"),
    "chance-number": ('{"chance": 1, "outcome": {"d1": 1, "d2": 1}}', "the chance must be"),
    "outcome-missing": ('{"chance": "roll"}', "a chance line needs its outcome"),
    "outcome-null": ('{"chance": "roll", "outcome": null}', "a chance line needs its outcome"),
    "outcome-nan": ('{"chance": "roll", "outcome": {"d1": NaN, "d2": 1}}', "NaN is not"),
    "outcome-deep": ('{"chance": "roll", "outcome": ' + "[" * 5000 + "]" * 5000 + "}",
                     "nested too deeply"),
    "outcome-fraction": ('{"chance": "roll", "outcome": {"d1": 1.5, "d2": 1}}',
                         "does not fit the game"),
    "say-number": ('{"say": 5}', "say must be a text"),
    "say-to-text": ('{"say": "psst", "to": "0"}', "to must be a seat"),
    "say-to-negative": ('{"say": "psst", "to": -1}', "to must be a seat"),
    "unknown-kind": ('{"move": "pass"}', "not an entry of a log"),
    "unknown-field": (DECISION + ', "_line": 1}', "unknown field '_line'"),
    "not-an-object": ("[1, 2]", "each line must be a JSON object, not a list"),
    "text-too-long": ('{"say": "' + "x" * 200_000 + '"}', "a text of more than 100000"),
}


@pytest.mark.parametrize("entry, message", ENTRIES.values(), ids=ENTRIES)
def test_a_malformed_entry_is_a_located_error(logged: Path, entry: str, message: str) -> None:
    lines = logged.read_text().splitlines()
    assert '"chance": "roll"' in lines[1] and lines[2].startswith(DECISION[:10])
    line = 2 if '"chance"' in entry else 3
    lines[line - 1] = entry
    logged.write_text("\n".join(lines) + "\n")
    result = cli("replay", logged)
    assert result.exit_code == 1, result.output
    assert f"{logged}:{line}: " in result.stderr and message in result.stderr, result.stderr


def test_a_malformed_result_and_bytes_that_are_not_utf8(logged: Path) -> None:
    lines = logged.read_text().splitlines()
    early = lines[:2] + [lines[-1]] + lines[2:]
    logged.write_text("\n".join(early) + "\n")
    result = cli("replay", logged)
    assert result.exit_code == 1
    assert f"{logged}:4: a line after the result: the result ends the log" in result.stderr
    lines[-1] = '{"result": {"scores": "all", "winners": [0], "end_reason": null}}'
    logged.write_text("\n".join(lines) + "\n")
    result = cli("replay", logged)
    assert result.exit_code == 1
    assert f"{logged}:{len(lines)}: the result's scores must be a list" in result.stderr
    logged.write_bytes(b"\n".join(line.encode() for line in lines[:2]) + b"\n\xff\xfe\n")
    result = cli("replay", logged)
    assert result.exit_code == 1 and f"{logged}:3: not UTF-8 text" in result.stderr


def test_the_api_reads_a_malformed_log_as_a_log_error(logged: Path) -> None:
    from rulekit.replay import LogError, read_log

    with_header(logged, players=True)
    with pytest.raises(LogError) as err:
        read_log(logged)
    assert err.value.line == 1 and isinstance(err.value, rulekit.RulekitError)


# ---- --set values and overrides ----------------------------------------------------------------
def alias_bomb() -> str:
    text, prev = "[&a [1,1,1,1,1,1,1,1,1,1]", "a"
    for name in "bcdefgh":
        text += f", &{name} [{','.join('*' + prev for _ in range(10))}]"
        prev = name
    return text + "]"


SETS = {
    "nan": ("rate=.nan", ".nan is not a finite number"),
    "inf": ("rate=.inf", ".inf is not a finite number"),
    "minus-inf": ("rate=-.inf", "-.inf is not a finite number"),
    "1e400": ("rate=1.0e+400", "1.0e+400 is not a finite number"),
    "nan-in-a-list": ("weights=[0.5, .nan]", ".nan is not a finite number"),
    "5000-digits": ("target=" + "9" * 5000, "number with more than 30 digits"),
    "alias-bomb": ("target=" + alias_bomb(), "expands to more than 200000 nodes"),
    "10000-deep": ("target=" + "[" * 10_000 + "]" * 10_000, "nesting"),
    "python-tag": ("target=!!python/object/apply:os.system [echo hi]", "YAML tag"),
    "python-name": ("target=!!python/name:os.system", "could not determine a constructor"),
}


@pytest.mark.parametrize("option, message", SETS.values(), ids=SETS)
def test_a_hostile_set_value_is_refused_naming_the_option(
        tmp_path: Path, option: str, message: str) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    name = option.split("=")[0]
    for command in (["simulate", "--games", "1"], ["play", "--auto"]):
        result = cli(*command, "--set", option, path)
        assert result.exit_code == 1, result.output
        assert message in result.stderr
        assert f"--set {name}" in result.stderr
    result = cli("validate", "--set", option, path)  # validate: a usage error, as before
    assert result.exit_code == 2 and "'--set'" in result.output and message in result.output


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), [float("nan")],
                                   10**5000], ids=["nan", "inf", "minus-inf", "list", "digits"])
def test_api_overrides_must_be_finite_and_bounded(tmp_path: Path, value: object) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    name = ("target" if isinstance(value, int) else "weights" if isinstance(value, list)
            else "rate")
    with pytest.raises(rulekit.GameFileError) as err:
        rulekit.load_game(path, overrides={name: value})
    (d,) = err.value.diagnostics
    assert d.path == f"params.{name}" and d.line == {"target": 4, "rate": 5, "weights": 6}[name]
    assert "not a finite number" in d.message or "more than 30 digits" in d.message
    assert len(d.message) < 300


# ---- score_bounds ------------------------------------------------------------------------------
@pytest.mark.parametrize("bound", ["\"[1, 'a'][1]\"", "1e300 * 1e300", "\"1 < 2\""])
def test_score_bounds_that_are_not_finite_numbers(tmp_path: Path, bound: str) -> None:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY + f"score_bounds:\n  min: {bound}\n")
    for args in (["validate"], ["validate", "--simulate", "2"]):
        result = cli(*args, path)
        assert result.exit_code == 1, result.output
        assert f"{path}:25:" in result.output, result.output
        assert "at score_bounds.min" in result.output


def test_a_base_copied_next_to_its_variant_keeps_working(tmp_path: Path) -> None:
    shutil.copy(QWIXX, tmp_path)
    path = variant(tmp_path, "qwixx.yaml")
    assert rulekit.load_game(path).name == "V"
