"""What a person reads comes from the game file: end texts, decision titles and prompts,
announcements; the engine renders them the same way for every game."""

from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.cli import main

GAMES = Path(__file__).resolve().parent.parent / "games"
QWIXX = GAMES / "qwixx.yaml"


def diagnostics(tmp_path: Path, text: str) -> list:
    path = tmp_path / "game.yaml"
    path.write_text(text)
    with pytest.raises(rulekit.GameFileError) as exc:
        rulekit.load_game(path)
    return exc.value.diagnostics


def test_the_end_is_told_in_the_game_files_words():
    state = rulekit.load_game(QWIXX).new_game(players=2, seed=1)
    while not state.is_over:  # everybody passes: the active player takes a penalty each turn
        state.resolve_chance() if state.is_chance else state.apply("pass")
    assert state.end_reason == "penalties" and state.turn == 7
    assert state.end_text() == "player 0 took penalty number 4"
    out = CliRunner().invoke(main, ["play", str(QWIXX), "--seed", "1", "--bots", "random"],
                             input="pass\n" * 40).output
    assert "\ngame over after 7 turns: player 0 took penalty number 4\n" in out


def test_a_text_for_an_end_condition_that_does_not_exist_is_located(tmp_path):
    text = QWIXX.read_text().replace('    locks: "{len', '    lokcs: "{len')
    (d,) = diagnostics(tmp_path, text)
    assert d.message == "unknown end condition 'lokcs'" and d.hint == "did you mean 'locks'?"
    assert text.splitlines()[d.line - 1].startswith("    lokcs:")
