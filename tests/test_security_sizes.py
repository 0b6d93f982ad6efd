"""Hostile files are bounded in size as used, and so is every message about them.

A YAML alias repeats what its anchor names: a text of 800 KB anchored once and aliased
20,000 times is a file of 900 KB that reads as 16 GB of text, and everything that looks
at the whole (a schema message quoting the value, a copy, a page showing it) runs out
of memory. And a value of 200 KB that a message quotes makes a message of 200 KB.

Each attack runs the real `rulekit` in a child process with its address space capped at
one gigabyte (as in test_security_budgets.py): it must end within seconds with exit code
1, one message located in the file, and lines of a readable length; never a traceback or
a MemoryError.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulekit.errors import MAX_MESSAGE
from rulekit.spec.source import MAX_EXPANDED_CHARS

#: the most seconds an attack may take, starting Python included
SECONDS = 10
MEMORY = 1 << 30
#: the longest line a message about a long value may print (the file's path included)
LINE = 500

LIMITS = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY}))
from rulekit.cli import main
sys.argv = ["rulekit"] + sys.argv[1:]
main()
"""

GAME = """\
name: Sizes
players: {min: 2, max: 2}
@TOP@
flow:
  turn:
    - say: hi
@STEPS@
score: "@SCORE@"
"""


def game(top: str = "", steps: str = "", score: str = "0") -> str:
    return GAME.replace("@TOP@", top).replace("@STEPS@", steps).replace("@SCORE@", score)


def run_limited(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", LIMITS, *args], cwd=cwd, capture_output=True,
                            text=True, timeout=120, stdin=subprocess.DEVNULL)
    return result, time.monotonic() - start


def refused(tmp_path: Path, text: str, *extra: str, fmt: str = "text", code: int = 1) -> str:
    """The output of `rulekit validate` on the text: exit `code` (1, or 2 for a usage
    mistake) in bounded time, no traceback."""
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    result, seconds = run_limited(["validate", str(path), "--format", fmt, *extra], tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == code, output[:2000]
    assert seconds < SECONDS, f"took {seconds:.1f} s"
    for bad in ("Traceback", "MemoryError", "RecursionError", "internal error"):
        assert bad not in output, output[:2000]
    return output


# ---- a long text, aliased many times ------------------------------------------------------------
TEXT = 800_000
USES = 20_000
ALIASES = ", ".join(["*s"] * USES)
BOMBS = {
    # a place where the schema refuses a list, and so would quote the whole of it
    "in a wrong place": game(f'description: &s "{"x" * TEXT}"', f"    - say: [{ALIASES}]"),
    # a place where the list is valid: nothing refuses it but its size
    "in a valid place": game(f'description: &s "{"x" * TEXT}"\ndisplay:\n  game: [{ALIASES}]'),
    # a short text in lists that each use the one before twice: a small file, 2**30 uses
    "in doubling lists": game(
        f"description: &s {'x' * 10_000}\n"
        + "\n".join(f"l{i}: &l{i} [{'*s' if i == 0 else f'*l{i - 1}'}, "
                    f"{'*s' if i == 0 else f'*l{i - 1}'}]" for i in range(30))),
}


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("case", BOMBS, ids=list(BOMBS))
def test_a_long_text_aliased_many_times_is_refused_at_an_alias(
        tmp_path: Path, case: str, fmt: str) -> None:
    text = BOMBS[case]
    assert len(text) < 1_000_000  # a file rulekit reads: under MAX_CHARS
    output = refused(tmp_path, text, fmt=fmt)
    message = f"the document expands to more than {MAX_EXPANDED_CHARS} characters with its aliases"
    if fmt == "json":
        (report,) = json.loads(output)
        (d,) = report["diagnostics"]
        assert d["message"] == message and "aliases (*name)" in d["hint"]
        line, col = d["line"], d["col"]
    else:
        assert output.count("error:") == 1, output
        found = re.search(r"game\.yaml:(\d+):(\d+): error: (.*)", output)
        assert found and found[3] == message, output
        assert re.search(r"hint: the alias \*\w+ repeats .* aliases \(\*name\) count", output)
        line, col = int(found[1]), int(found[2])
    # at an alias: the first that brings the document over the limit
    assert text.splitlines()[line - 1][col - 1] == "*"
    assert max(len(x) for x in output.splitlines()) < LINE


# ---- a long value in a message ------------------------------------------------------------------
LONG = "q" * 200_000
QUOTED = {
    # schema errors, whose messages quote the value
    "a value that is not one of a list": game(f"end: {{when: 'true', finish: {LONG}}}"),
    "a value that is not the constant": game(f"rulekit: {LONG}"),
    "a name that is not a name": game(f"vars:\n  ? {LONG}-x\n  : {{init: 1}}"),
    "an unknown key": game(f"? {LONG}\n: 1"),
    "a wrong type in a list": game(f"levels: [{{min_score: {LONG}}}]"),
    # semantic checks, whose messages quote the name or the expression
    "an unknown procedure": game(steps=f"    - run: {LONG}"),
    "an unknown variable": game(steps=f"    - set: {{{LONG}: 1}}"),
    "an unknown name in an expression": game(score="n" * 1_900),
    "an expression that does not parse": game(score="1 + (" + "2 + " * 50_000),
    "a bad template": game(steps=f'    - say: "{{{LONG}"'),
    "a param's default that does not fit": game(
        f"params:\n  {'p' * 100}: {{type: int, default: {LONG}}}", score="params." + "p" * 100),
}


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("case", QUOTED, ids=list(QUOTED))
def test_a_message_quotes_a_long_value_cut_short(tmp_path: Path, case: str, fmt: str) -> None:
    text = QUOTED[case]
    output = refused(tmp_path, text, fmt=fmt)
    if fmt == "json":
        (report,) = json.loads(output)
        assert report["diagnostics"], output[:2000]
        for d in report["diagnostics"]:
            assert d["line"] > 0 and len(d["message"]) <= MAX_MESSAGE, d
            assert all(len(str(d[k])) < LINE for k in ("message", "path", "hint")), d
    else:
        assert re.search(r"game\.yaml:\d+:\d+: error: ", output), output[:2000]
        assert max(len(x) for x in output.splitlines()) < LINE, output[:2000]
    assert len(output) < 4_000


def test_a_long_value_given_with_set_is_quoted_cut_short(tmp_path: Path) -> None:
    text = game("params:\n  n: {type: int, default: 1}", score="params.n")
    long = "v" * 100_000  # one argument may hold 128 KB
    for option in (f"n={long}", f"{long}=1", f"n=[{long}]"):
        output = refused(tmp_path, text, "--set", option)
        assert max(len(x) for x in output.splitlines()) < LINE, output[:2000]
        assert "--set" in output and "error:" in output


def test_an_aliased_value_given_with_set_is_bounded(tmp_path: Path) -> None:
    text = game("params:\n  n: {type: list, items: str, default: []}", score="0")
    value = "[&s " + "v" * 50_000 + ", " + ", ".join(["*s"] * 15_000) + "]"
    output = refused(tmp_path, text, "--set", f"n={value}", code=2)  # a usage mistake
    assert "expands to more than" in output and "aliases" in output
    assert max(len(x) for x in output.splitlines()) < LINE


# ---- logs read by `rulekit replay` --------------------------------------------------------------
LOGGED = """\
name: Logged
players: {min: 2, max: 2}
params:
  target: {type: int, default: 6, min: 1, max: 100}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6}}
flow:
  turn:
    - roll: dice
    - say: hi
    - choose:
        options:
          - for: "k in [1, 2]"
            label: "take {k}"
            do:
              - add: {active.points: "k"}
end:
  when: "max(p.points for p in players) >= params.target"
score: "player.points"
"""


@pytest.fixture
def log_lines(tmp_path: Path) -> list[str]:
    """The lines of a finished game's log (header, roll, say, decision, ...), its game
    file beside it."""
    from click.testing import CliRunner

    from rulekit.cli import main

    (tmp_path / "logged.yaml").write_text(LOGGED, encoding="utf-8")
    log = tmp_path / "game.jsonl"
    played = CliRunner().invoke(main, ["play", str(tmp_path / "logged.yaml"), "--auto",
                                       "--log", str(log)])
    assert played.exit_code == 0, played.output
    lines = log.read_text(encoding="utf-8").splitlines()
    assert '"chance"' in lines[1] and '"say"' in lines[2] and '"action"' in lines[3]
    return lines


def replayed(tmp_path: Path, lines: list[str]) -> str:
    """The output of `rulekit replay` on the log: exit 1 in bounded time, no traceback."""
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result, seconds = run_limited(["replay", str(log)], tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[:2000]
    assert seconds < SECONDS, f"took {seconds:.1f} s"
    for bad in ("Traceback", "MemoryError", "internal error"):
        assert bad not in output, output[:2000]
    assert re.search(r"game\.jsonl:\d+: ", output), output[:2000]
    return output


LONG_TEXT = "w" * 90_000  # under the 100,000 characters a log's text may have
ENTRY_ATTACKS = {
    # (line replaced, the entry): each names or holds the long text, a message quotes it
    "a long action": (3, json.dumps({"seat": 0, "action": LONG_TEXT})),
    "a long chance name out of turn": (3, json.dumps({"chance": LONG_TEXT, "outcome": 1})),
    "a long say that differs": (2, json.dumps({"say": LONG_TEXT})),
    "a long outcome": (1, json.dumps({"chance": "roll", "outcome": [LONG_TEXT]})),
    "a long param name": (0, None),
    "a long param value": (0, "value"),
}


@pytest.mark.parametrize("case", ENTRY_ATTACKS, ids=list(ENTRY_ATTACKS))
def test_a_log_entry_is_quoted_cut_short(tmp_path: Path, log_lines: list[str],
                                         case: str) -> None:
    at, entry = ENTRY_ATTACKS[case]
    if at == 0:
        header = json.loads(log_lines[0])
        header["params"] = {LONG_TEXT: 1} if entry is None else {"target": LONG_TEXT}
        entry = json.dumps(header)
    log_lines[at] = entry
    output = replayed(tmp_path, log_lines)
    assert max(len(x) for x in output.splitlines()) < 1_200, output[:2000]
    assert len(output) < 4_000


def test_a_log_line_of_too_many_values_is_refused(tmp_path: Path, log_lines: list[str]) -> None:
    log_lines[1] = json.dumps({"chance": "roll", "outcome": [1] * 200_000})
    output = replayed(tmp_path, log_lines)
    assert "game.jsonl:2: the line holds more than 100000 values" in output


def test_a_log_of_many_small_values_is_refused_in_bounded_memory(
        tmp_path: Path, log_lines: list[str]) -> None:
    # 30 MB of two-letter texts: each line fits, the log as a whole would fill the memory
    line = json.dumps({"chance": "roll", "outcome": ["ab"] * 90_000})
    output = replayed(tmp_path, log_lines[:1] + [line] * (30_000_000 // len(line)))
    assert re.search(r"game\.jsonl:\d+: the log holds more than 2000000 values", output)


def test_a_file_of_many_mistakes_gets_a_page_of_messages(tmp_path: Path) -> None:
    keys = "\n".join(f"k{i}: 1" for i in range(50_000))
    output = refused(tmp_path, game(keys))
    assert output.count("error:") == 101 and len(output) < 40_000
    assert "more problems follow: only the first 100 found are reported" in output
