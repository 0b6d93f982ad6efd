"""The progress line of long studies: on a terminal it shows games done, a rate and the
time left; piped, nothing of it appears."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from rulekit.studies.progress import ProgressLine

ROOT = Path(__file__).resolve().parent.parent
GAME = str(ROOT / "games" / "domino7.yaml")
SLOW = ["--games", "8", "--bots", "mcts:30"]


def _run(args: list[str], tty: bool) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (or a pipe); exit code, stdout, stderr."""
    env = os.environ | {"PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    command = [sys.executable, "-m", "rulekit.cli", *args]
    if not tty:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        return done.returncode, done.stdout, done.stderr
    main, child = pty.openpty()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode() if proc.stdout else ""
    code = proc.wait(timeout=120)
    os.close(main)
    return code, out, b"".join(chunks).decode(errors="replace")


@pytest.mark.parametrize("command", [
    ["simulate", GAME],
    ["compare", GAME, "--set-b", "divisor=5"],
    ["sweep", GAME, "--vary", "divisor=[5, 7]"],
    ["simulate", GAME, "--jobs", "2"],  # in a pool of processes
    ["ladder", GAME, "--bots", "random,mcts:150", "--games", "6"],
])
def test_a_long_run_on_a_terminal_shows_games_done_rate_and_time_left(command: list[str]) -> None:
    args = command + (SLOW if command[0] != "ladder" else [])
    args += [] if "--jobs" in command else ["--jobs", "1"]
    code, out, err = _run(args, tty=True)
    assert code == 0, err
    assert "games/s" in err
    assert "/8 games" in err or "/6 games" in err
    assert "games/s" not in out


def test_piped_stderr_and_json_carry_no_progress() -> None:
    code, out, err = _run(["simulate", GAME, *SLOW, "--json"], tty=False)
    assert code == 0
    assert "games/s" not in err and "games/s" not in out
    assert out.lstrip().startswith("{")


def test_the_line_counts_games_and_says_time_left() -> None:
    now = [100.0]
    stream = io.StringIO()
    with ProgressLine(40, stream=stream, force=True, clock=lambda: now[0]) as line:
        now[0] = 110.0
        line.update(10)
        line.draw()
    text = stream.getvalue()
    assert "playing: 10/40 games, 1.0 games/s, about 30s left" in text
    assert text.endswith("\r")  # cleared for the report


def test_off_a_terminal_the_line_draws_nothing() -> None:
    stream = io.StringIO()
    with ProgressLine(5, stream=stream) as line:
        line.update(5)
    assert stream.getvalue() == ""


def test_the_rate_stops_at_the_last_game() -> None:
    now = [0.0]
    stream = io.StringIO()
    with ProgressLine(4, stream=stream, force=True, clock=lambda: now[0]) as line:
        now[0] = 2.0
        line.update(4)
        now[0] = 10.0  # processes or a cluster shutting down
        line.draw()
    assert "playing: 4/4 games, 2.0 games/s" in stream.getvalue()
