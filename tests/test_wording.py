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


LEVELX = GAMES / "levelx.yaml"


def qwixx_roll(state, w1, w2):
    state.resolve_chance({"white1": w1, "white2": w2, "red": 1, "yellow": 1, "green": 1,
                          "blue": 1})


def test_qwixx_names_each_decision_and_says_when_passing_costs_a_penalty():
    game = rulekit.load_game(QWIXX)
    state = game.new_game(players=2, seed=1)
    qwixx_roll(state, 3, 4)
    assert state.decision_title() == "white sum 7: everyone may cross it"
    state.apply("pass")
    state.apply("pass")
    assert state.current_player == 0
    title = state.decision_title()
    assert title.startswith("white + colour: the active player only")
    assert "passing now costs a penalty" in title
    crossed = game.new_game(players=2, seed=1)
    qwixx_roll(crossed, 3, 4)
    crossed.apply("red 7")
    crossed.apply("pass")
    assert crossed.decision_title() == "white + colour: the active player only"
    # the terminal shows the title right above the choices
    out = CliRunner().invoke(main, ["play", str(QWIXX), "--bots", "random", "--seed", "1"],
                             input="").output
    assert "\nwhite sum " in out and ": everyone may cross it\n   1. " in out


def test_qwixx_says_why_the_active_player_loses_points():
    game = rulekit.load_game(QWIXX, overrides={"penalty_points": 4})
    state = game.new_game(players=2, seed=1)
    qwixx_roll(state, 3, 4)
    for _ in range(3):  # both pass the white sum, the active player the colour action too
        state.apply("pass")
    assert state.scores() == [-4, 0]
    assert [e["say"] for e in state.log if "say" in e] == [
        "player 0 crossed nothing this turn: penalty 1 of 4, -4 points"]


def test_qwixx_announces_a_lock_and_the_die_that_leaves():
    game = rulekit.load_game(QWIXX)
    for seed in range(40):
        out = CliRunner().invoke(main, ["play", str(QWIXX), "--auto", "--seed", str(seed),
                                        "--bots", "greedy"]).output
        locks = [line for line in out.splitlines() if " locks " in line]
        if locks:
            break
    else:
        pytest.fail("no lock in 40 greedy games")
    row = locks[0].split(" locks ")[1].split(";")[0]
    assert locks[0].endswith(f"locks {row}; the {row} die leaves the game")
    dice_after = out[out.index(locks[0]):].split("\ndice: ")[1].split("\n")[0]
    assert f"{row} --" in dice_after and game.name == "Qwixx"


def test_level_x_says_what_each_move_earned_and_it_adds_up():
    out = CliRunner().invoke(main, ["play", str(LEVELX), "--auto", "--seed", "2",
                                    "--bots", "greedy"]).output
    gains = said = 0
    lines = out.splitlines()
    for k, line in enumerate(lines):
        if "(+" in line and line.startswith("player "):
            gain = int(line.split("(+")[1].split(",")[0])
            explained = 0
            for after in lines[k + 1:]:
                if "takes a chip" in after:
                    explained += int(after.split("takes a chip (")[1].split(" ")[0])
                elif "takes the bonus tile " in after:
                    explained += int(after.rsplit(" ", 1)[1])
                else:
                    break
            assert explained == gain, (line, lines[k + 1:k + 4])
            gains += gain
            said += 1
    assert said > 5 and gains > 0
    # `?` explains how chips and bonus tiles are earned
    help_out = CliRunner().invoke(main, ["play", str(LEVELX), "--bots", "random", "--seed", "2"],
                                  input="?\n").output
    assert "A complete set (a chip of every row) earns the" in " ".join(help_out.split())


@pytest.mark.parametrize("capacity, words", [(1, "holds 1 pawn"), (2, "holds 2 pawns")])
def test_counts_in_the_help_and_the_picture_take_the_plural(capacity, words):
    out = CliRunner().invoke(main, ["play", str(LEVELX), "--bots", "random", "--seed", "1", "--set",
                                    f"x_capacity={capacity}"], input="?\n").output
    assert f"X: the last field, {words}):" in out        # the picture
    assert f"X {words}," in " ".join(out.split())        # the game's help
    assert "1 pawns" not in out


def test_every_shipped_game_cites_its_rules_in_docs_rules_md():
    rules = (GAMES.parent / "docs" / "rules.md").read_text()
    for file in ("qwixx.yaml", "levelx.yaml", "domino7.yaml"):
        game = rulekit.load_game(GAMES / file)
        cited = (GAMES / file).read_text().splitlines()[1]
        assert cited.startswith(f"# Rules: the {game.name} section of docs/rules.md.")
        assert f"\n## {game.name} (`games/{file}`" in rules
