"""The example games in games/examples/, written in YAML only, as a designer meets them:
each is valid, plays through with random bots at every player count it allows, and plays
in the terminal to a result."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import run

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "games" / "examples").glob("*.yaml"))


def test_every_example_is_valid_and_plays_through_at_every_player_count():
    result = run("validate", "--strict", "--simulate", "12", *map(str, EXAMPLES))
    assert result.exit_code == 0, result.output
    assert result.output.count("no problems") == len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_plays_in_the_terminal_to_a_result(path: Path):
    result = run("play", str(path), "--auto", "--seed", "2", "--bots", "greedy", "--no-color")
    assert result.exit_code == 0, result.output
    assert "game over after" in result.output and "winner" in result.output
