"""The command line's conventions: exit codes (1 invalid input, 2 usage, 130 Ctrl-C), what
a game argument may be (a file, a folder, `-`, a shipped game's name), `python -m rulekit`,
and the games shipped inside a built wheel."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rulekit.cli import main

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
QWIXX = GAMES / "qwixx.yaml"


def run(*args: object, input: str | bytes | None = None) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args], input=input)
    assert "Traceback" not in result.output
    return result


def child(*args: object, cwd: Path = ROOT, env: dict | None = None) -> subprocess.Popen:
    # Ctrl-C as in a terminal, even when the tests run in a background job that ignores it
    return subprocess.Popen([sys.executable, "-m", "rulekit", *map(str, args)], cwd=cwd,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---- exit codes --------------------------------------------------------------------------------
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to wait")
@pytest.mark.parametrize("command", [["play", QWIXX, "--bots", "random", "--seed", "1"],
                                     ["simulate", QWIXX, "--games", "100000"]])
def test_ctrl_c_exits_with_130_and_one_line(command: list) -> None:
    proc = child(*command)
    if command[0] == "play":  # the game waits for the person
        seen = ""
        while not seen.endswith("\n> "):
            seen += proc.stdout.read(1)
    else:  # well into the simulation
        deadline = time.monotonic() + 60
        while cpu_seconds(proc.pid) < 1.5 and time.monotonic() < deadline:
            time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err and "interrupted" in out + err


@pytest.mark.parametrize("args, option", [
    (["play", QWIXX, "--players", "9"], "'--players'"),
    (["simulate", QWIXX, "--players", "1", "--games", "1"], "'--players'"),
    (["play", QWIXX, "--players", "2", "--seat", "5"], "'--seat'"),
    (["play", QWIXX, "--level", "2"], "'--level'"),
])
def test_an_option_out_of_the_games_range_is_a_usage_error(args: list, option: str) -> None:
    result = run(*args, input="")
    assert result.exit_code == 2, result.output
    assert f"Invalid value for {option}" in result.output
    if option == "'--level'":
        assert "Qwixx has no levels" in result.output


def test_a_missing_file_is_said_without_a_line_number(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.yaml"
    for command in ("play", "validate", "simulate"):
        result = run(command, missing)
        assert result.exit_code == 1
        assert f"{missing}: error: no such file\n" in result.output


# ---- what a game argument may be ---------------------------------------------------------------
def test_validate_checks_every_game_file_of_a_folder(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(QWIXX.read_text())
    (tmp_path / "bad.yaml").write_text(QWIXX.read_text().replace("score:", "scroe:"))
    (tmp_path / "notes.txt").write_text("not a game")
    result = run("validate", tmp_path)
    assert result.exit_code == 1
    assert f"{tmp_path / 'good.yaml'}: ok" in result.output
    assert f"{tmp_path / 'bad.yaml'}:" in result.output and "unknown key 'scroe'" in result.output
    assert "notes.txt" not in result.output
    shipped = run("validate", GAMES)
    assert shipped.exit_code == 0
    assert shipped.output.count(": ok\n") == len(list(GAMES.glob("*.yaml")))


def test_validate_reads_standard_input_with_a_dash() -> None:
    assert run("validate", "-", input=QWIXX.read_bytes()).exit_code == 0
    broken = QWIXX.read_text().replace("players: {min: 2, max: 5}", "players: {min: 2, max: 5")
    result = run("validate", "-", input=broken)
    assert result.exit_code == 1 and "<stdin>:" in result.output and "YAML syntax" in result.output


def test_a_shipped_game_is_found_by_name_from_anywhere(tmp_path: Path) -> None:
    proc = child("play", "qwixx", "--auto", "--seed", "3", cwd=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.startswith("Qwixx, 2 players") and "game over after" in out


def test_an_example_is_found_by_name_and_a_wrong_name_is_answered_with_the_names(
        tmp_path: Path) -> None:
    proc = child("play", "pig", "--auto", "--seed", "3", cwd=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.startswith("Pig, 2 players") and "game over after" in out
    proc = child("play", "pgi", cwd=tmp_path)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err
    assert "pgi: error: no such file, nor a shipped game of that name" in err
    assert "did you mean 'pig'?" in err and "qwixx" in err and "connect-four" in err


def test_the_built_wheel_ships_the_games_and_finds_them_by_name(tmp_path: Path) -> None:
    """Built as pip builds it, unpacked as pip installs it (a pure-Python wheel), and run
    from a folder far from the repository."""
    source = tmp_path / "source"  # a copy: the build leaves nothing in the repository
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".*cache", ".hypothesis",
        "tests", "benchmarks"))
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                            str(wheels), str(source)], capture_output=True, text=True,
                           timeout=300)
    if built.returncode != 0 and "No matching distribution" in built.stderr:
        pytest.skip("no build backend can be installed here")
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("rulekit-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        z.extractall(site)
    assert {f"rulekit/games/{p.name}" for p in GAMES.glob("*.yaml")} <= names
    assert {f"rulekit/games/examples/{p.name}" for p in GAMES.glob("examples/*.yaml")} <= names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = child("play", "levelx", "--auto", "--seed", "2", cwd=elsewhere, env=env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Level X, 2 players" in out and "game over after" in out
    proc = child("play", "pig", "--auto", "--seed", "2", cwd=elsewhere, env=env)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.startswith("Pig, 2 players"), err
    found = subprocess.run([sys.executable, "-c", "import rulekit; print(rulekit.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True)
    assert found.stdout.startswith(str(site))
