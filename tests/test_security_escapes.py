"""Text from a game file reaches the terminal with its control characters escaped.

A hostile file writes an ESC sequence that erases the line, a carriage return, a C1
control, a bell and a right-to-left override into its name, description, a die's name,
a label, a `say:` message, its help text, a display line, an end reason and an unknown
key; printed raw, they could
overwrite a diagnostic with a fake "ok" or make text read backwards. Every command shows
them as escapes (`\\x1b[2K\\r ...`), and JSON output keeps the data faithful.

The hostile text is written with YAML's double-quoted escapes, so this file stays printable.
Commands run with colour allowed (so click strips nothing) and `--no-color` where there is
one: any ESC in the output is then one that came from the file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rulekit.cli import main

#: the hostile text as the game file writes it (YAML double-quoted escapes)
EVIL = r"\e[2K\r ok \u202e \x9b \a"
#: how it must be shown
SHOWN = r"\x1b[2K\r ok \u202e \x9b \x07"
#: characters that must never reach the terminal raw
RAW = ("\x1b", "\r", "\u202e", "\x9b", "\x07")

GAME = f"""\
name: "Evil{EVIL}"
description: "Described{EVIL}"
players: {{min: 2, max: 2}}
vars:
  points: {{per: player, init: 0}}
components:
  dice: {{kind: dice, dice: {{"die{EVIL}": 6}}}}
flow:
  turn:
    - roll: dice
    - choose:
        help: "Help{EVIL}"
        options:
          - for: "k in [1, 2]"
            label: "take {{k}}{EVIL}"
            do:
              - add: {{active.points: k}}
              - say: "said{EVIL}"
end:
  when:
    "done{EVIL}": "max(p.points for p in players) >= 6"
score: "player.points"
display:
  game: "shown{EVIL}"
"""


def run(*args: object, input: str | None = None, color: bool = True) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args], input=input, color=color)
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def assert_escaped(out: str) -> None:
    """Nothing raw from the file, and the escaped form is there."""
    for ch in RAW:
        assert ch not in out, (ch, out)
    assert SHOWN in out


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "evil.yaml"
    path.write_text(GAME, encoding="utf-8")
    return path


def test_validate_escapes_an_unknown_key_and_json_keeps_it_faithful(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(GAME + f'"key{EVIL}": 1\n', encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == 1
    assert_escaped(result.output)
    assert re.search(rf"bad\.yaml:\d+:\d+: error: unknown key 'key{re.escape(SHOWN)}'",
                     result.output)
    assert "ok\n" not in result.output  # no line of it reads as a verdict
    data = json.loads(run("validate", "--format", "json", path).stdout)
    message = data[0]["diagnostics"][0]["message"]
    assert "key\x1b[2K\r ok \u202e \x9b \x07" in message


def test_validate_escapes_a_file_name_in_its_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "evil\x1b[2K\r ok.yaml"
    path.write_text("name: [\n", encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\r" not in result.output
    assert r"evil\x1b[2K\r ok.yaml:" in result.output


def test_play_escapes_the_name_labels_messages_help_display_and_end(game: Path) -> None:
    result = run("play", game, "--bots", "random", "--no-color", input="?\n" + "1\n" * 40)
    assert result.exit_code == 0, result.output
    out = result.output
    assert_escaped(out)
    for text in ("Evil", "roll: die", "take 1", "said", "shown", "done"):
        assert text + SHOWN in out, text
    # help and description are laid out anew in words: \r is a space, the rest is escaped
    assert r"Help\x1b[2K ok \u202e \x9b \x07" in out
    assert r"Described\x1b[2K ok \u202e \x9b \x07" in out
    assert re.search(rf"^game over after \d+ turns: done{re.escape(SHOWN)} ", out, re.M)


def test_play_in_colour_adds_only_its_own_colours(game: Path) -> None:
    out = run("play", game, "--bots", "random", input="1\n" * 40).output
    assert "\x1b[" in out                           # colour is on
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)      # rulekit's own colours only
    assert_escaped(plain)


def test_simulate_escapes_the_name_and_end_reasons(game: Path) -> None:
    result = run("simulate", game, "--games", "5")
    assert result.exit_code == 0, result.output
    assert_escaped(result.output)
    assert re.search(rf"^Evil{re.escape(SHOWN)}: 5 games", result.output, re.M)
    assert re.search(rf"^  done{re.escape(SHOWN)} +5 +100\.0% \[56\.5, 100\.0\]$", result.output,
                     re.M)
    data = json.loads(run("simulate", game, "--games", "5", "--json").stdout)
    assert data["game"] == "Evil\x1b[2K\r ok \u202e \x9b \x07"


def test_replay_escapes_the_course_and_the_result(game: Path, tmp_path: Path) -> None:
    log = tmp_path / "evil.jsonl"
    assert run("play", game, "--auto", "--log", log).exit_code == 0
    result = run("replay", log, "--no-color")
    assert result.exit_code == 0, result.output
    assert_escaped(result.output)
    for text in ("Evil", "said", "done"):
        assert text + SHOWN in result.output, text
    assert re.search(rf"^player \d: take \d{re.escape(SHOWN)}", result.output, re.M)


def test_run_time_errors_quoting_a_hostile_file_name_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / "evil\x1b[2K\r ok.yaml"
    path.write_text(GAME.replace(f'game: "shown{EVIL}"', 'game: "{1 // (turn - turn)}"'),
                    encoding="utf-8")
    result = run("play", path, "--bots", "random", "--no-color", input="1\n")
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\r" not in result.output
    assert re.search(r"^error: .*evil\\x1b\[2K\\r ok\.yaml:\d+:\d+: ", result.stderr, re.M)
    # a game that fails under `validate --simulate`: the problem names the file, escaped
    path.write_text(GAME.replace(">= 6", "// (turn - turn) > 0"), encoding="utf-8")
    result = run("validate", "--simulate", "1", path)
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\r" not in result.output
    assert re.search(r"^.*evil\\x1b\[2K\\r ok\.yaml: game 1 \(seed 0", result.output, re.M)
