"""`rulekit play` and `rulekit replay` as a person meets them: choices typed through stdin,
pictures of the game, the bots' moves, logs that replay to the same result."""

from __future__ import annotations

import io
import json
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import rulekit
from rulekit.agents import make_agent
from rulekit.cli import main
from rulekit.replay import read_log, rebuild
from rulekit.simulate import derive_seed, play_game

ROOT = Path(__file__).resolve().parent.parent
QWIXX = str(ROOT / "games" / "qwixx.yaml")
LEVELX = str(ROOT / "games" / "levelx.yaml")
DOMINO7 = str(ROOT / "games" / "domino7.yaml")

#: per game: the file, the opening of its `help:` text, how a stop at end of input reads
GAMES = {
    "qwixx": (QWIXX, "Everyone may cross the sum of the white dice",
              "end of input: the game stops at turn"),
    "levelx": (LEVELX, "Split the dice", "end of input: the game stops at turn"),
    "domino7": (DOMINO7, "Lay a tile of your hand where it fits",
                "end of input: the series stops at level 1, turn"),
}


def run(*args: str, input: str | None = None, color: bool = False) -> Result:
    result = CliRunner().invoke(main, list(args), input=input, color=color)
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def last_choices(out: str) -> list[str]:
    """The labels of the last list of choices the person was shown."""
    block = out[out.rindex("your choice"):]
    return re.findall(r"^ +\d+\. (.+)$", block.split("\n> ")[0], re.M)


def last_picture(out: str) -> str:
    """The last picture of the game shown (from its `== ... ==` heading)."""
    start = out.rindex("\n== ")
    end = out.find("\n\n", start + 1)
    return out[start:end if end > 0 else None]


def player_block(picture: str, seat: int) -> str:
    """The lines of one player's block in a picture."""
    m = re.search(rf"^player {seat}\b.*\n((?:  .*\n?)*)", picture, re.M)
    assert m, picture
    return m.group(0)


def a_label(labels: list[str]) -> str:
    """A label to type as text: not the first choice, and not a bare number."""
    return next((lb for lb in labels[1:] if not lb.isdigit()), labels[0])


# ---- typing choices ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_a_person_types_numbers_labels_help_and_mistakes(name: str) -> None:
    file, help_text, stopped = GAMES[name]
    first = last_choices(run("play", file, input="").output)
    second = last_choices(run("play", file, input="1\n").output)
    label = a_label(second)
    result = run("play", file, input=f"?\nzzz\n1\n{label}\n")
    out = result.output
    assert result.exit_code == 0, out
    # `?` explains the choices with the game's own help text, then lists them again
    assert help_text in out
    assert out.count(f"   1. {first[0]}") >= 2
    # a bad entry says why, and the person is asked again
    assert "'zzz' is not a legal choice now" in out
    assert out.index("> zzz") < out.index("is not a legal choice") < out.index("> 1\n")
    # a number picks from the list, a label by its text
    assert f"player 0 (you): {first[0]}" in out
    assert f"player 0 (you): {label}" in out
    # end of input stops cleanly with a short message
    assert out.index(stopped) > out.rindex("\n> ")


def test_a_number_that_is_also_another_label_is_not_guessed() -> None:
    from rulekit.terminal import match_label

    labels = ["5", "6", "10", "5 + 6", "pass"]
    label, why = match_label("5", labels)                 # choice 5 is 'pass', '5' is choice 1
    assert label is None and "5 is ambiguous" in why and "#5" in why and "=5" in why
    assert match_label("#5", labels) == ("pass", "")
    assert match_label("=5", labels) == ("5", "")
    assert match_label("2", labels) == ("6", "")          # no label '2': the number
    assert match_label("1", labels) == ("5", "")
    assert match_label("10", labels) == ("10", "")        # no choice 10: the label
    assert match_label("PASS", labels) == ("pass", "")
    label, why = match_label("5 + 7", labels)
    assert label is None and "'5 + 7' is not a legal choice now. Did you mean '5 + 6'?" in why
    sides = ["3|12 left", "3|12 right", "4|4 left"]
    assert match_label("4|4", sides) == ("4|4 left", "")  # the first words fit one choice
    assert "fits 2 choices" in match_label("3|12", sides)[1]


def test_quit_stops_the_game_and_the_log_holds_what_was_played(tmp_path: Path) -> None:
    log = tmp_path / "q.jsonl"
    result = run("play", QWIXX, "--log", str(log), input="pass\nquit\n")
    assert result.exit_code == 0
    assert "you quit: the game stops at turn" in result.output
    state = rebuild(rulekit.load_game(QWIXX), read_log(log))
    assert not state.is_over
    assert [e["action"] for e in state.log if e.get("seat") == 0] == ["pass"]
    replayed = run("replay", str(log), "--game", QWIXX)  # the log names a file elsewhere
    assert replayed.exit_code == 0
    assert "player 0: pass" in replayed.output
    assert f"the log stops at turn {state.turn}: the game is not over" in replayed.output


# ---- the pictures ------------------------------------------------------------------------------
def test_qwixx_shows_crosses_row_scores_and_penalties(tmp_path: Path) -> None:
    # seat 0 starts: crossing nothing in both actions costs a penalty
    out = run("play", QWIXX, "--seed", "1", input="pass\npass\n").output
    assert "player 0 (you): pass  (-5, score -5)" in out
    mine = player_block(last_picture(out), 0)
    assert "penalties: 1 of 4 (-5 points)" in mine
    assert "row scores: red 0, yellow 0, green 0, blue 0" in mine
    assert "player 0 (you): score -5" in mine
    # a cross shows on the sheet, and the row's score counts it
    log = tmp_path / "q.jsonl"
    out = run("play", QWIXX, "--seed", "1", "--log", str(log), input="red 7\npass\n").output
    state = rebuild(rulekit.load_game(QWIXX), read_log(log))
    sheet = state.view(0)["components"]["sheet"]["sheets"][0]
    assert sheet["red"] == {"crossed": [7], "crosses": 1}
    mine = player_block(last_picture(out), 0)
    assert re.search(r"^    red +(-- +){5}\[ 7\] +8 ", mine, re.M), mine
    assert "row scores: red 1, yellow 0, green 0, blue 0" in mine
    assert f"player 0 (you): score {state.scores()[0]}" in mine


def test_level_x_shows_the_board_chips_left_and_each_players_chips(tmp_path: Path) -> None:
    log = tmp_path / "l.jsonl"
    out = run("play", LEVELX, "--seed", "5", "--log", str(log), input="1\n1\n1\n1\n").output
    state = rebuild(rulekit.load_game(LEVELX), read_log(log))
    view = state.view(0)["components"]
    picture = last_picture(out)
    left = ", ".join(f"{k}: {c}" for k, c in zip(view["chips"]["keys"], view["chips"]["counts"]))
    assert f"chips left: {left} (total {sum(view['chips']['counts'])})" in picture
    assert "bonus left: 15 12 9 6" in picture
    board = view["board"]
    for i, lane in enumerate(board["lanes"]):
        row = re.search(rf"^ +{lane} \| (.*)$", picture, re.M).group(1)
        fields = dict(f.split(": ") for f in re.split(r" *\| *", row.strip()))
        for seat, positions in enumerate(board["positions"]):
            where = positions[i]
            key = ("off" if where == 0 else "X" if where == board["lengths"][i] else str(where))
            assert str(seat) in fields[key].split(), (lane, seat, row)
    for seat in range(2):
        won = ", ".join(f"{k}: {c}" for k, c in zip(view["won"]["keys"],
                                                     view["won"]["counts"][seat]))
        assert f"won: {won}" in player_block(picture, seat)


def test_domino_shows_your_hand_and_no_tile_of_another_hand(tmp_path: Path) -> None:
    log = tmp_path / "d.jsonl"
    out = run("play", DOMINO7, "--log", str(log), input="1\n1\n1\n").output
    assert "deal: done (hidden)" in out and "[[" not in out
    state = rebuild(rulekit.load_game(DOMINO7), read_log(log))
    picture = last_picture(out)
    hands = state.view(0)["components"]["hand"]["hands"]
    shown = re.search(r"your hand: ([^(]*)\(", picture).group(1).split()
    assert shown == hands[0]["tiles"]
    for seat in (1, 2, 3):
        assert f"hand: {hands[seat]['count']} tiles (hidden)" in player_block(picture, seat)
        assert "tiles" not in hands[seat]  # the view hides them: so must the terminal
    hidden = {t for seat in (1, 2, 3) for t in state.view()["components"]["hand"]["hands"][seat]
              ["tiles"]}
    seen = {"|".join(map(str, sorted(map(int, m))))
            for m in re.findall(r"(?<![\d|])(\d+)\|(\d+)(?![\d|])", out)}
    assert hidden and not hidden & seen
    line = state.view(0)["components"]["line"]
    assert f"open ends: left {line['ends']['left']}, right {line['ends']['right']}; " \
           f"end sum {line['end_sum']}" in picture
    assert f"stock: {state.view(0)['components']['hand']['stock']['count']} tiles" in picture
    assert "level 1 of 5 (Novice)" in picture


# ---- bots, logs and replays --------------------------------------------------------------------
def printed_scores(out: str) -> list[int]:
    line = re.findall(r"^scores: (.*)$", out, re.M)[-1]
    return [int(x) for x in re.findall(r"(-?\d+)(?:,|$)", line)]


def api_scores(file: str, players: int, bots: list[str], seed: int, level: int | None) -> list[int]:
    """The same game played straight through the Python API, as `play --auto` seeds it."""
    game = rulekit.load_game(file)
    game_seed = derive_seed(seed, "level", level) if level else seed
    rng = random.Random(derive_seed(seed, "bots", "play", level) if level
                        else derive_seed(seed, "bots", "play"))
    state = game.new_game(players=players, seed=game_seed)
    play_game(state, [make_agent(bots[s % len(bots)]) for s in range(players)], rng)
    return state.scores()


@pytest.mark.parametrize("file, players, bots, level, seed", [
    (QWIXX, 3, ["greedy", "random"], None, 7),
    (LEVELX, 2, ["random"], None, 7),
    # level 4 (greedy opponents) failed with this seed: the series ends there
    (DOMINO7, 4, ["greedy"], 4, 9),
])
def test_auto_play_logs_a_game_that_replays_to_the_same_scores(
        tmp_path: Path, file: str, players: int, bots: list[str], level: int | None,
        seed: int) -> None:
    log = tmp_path / "game.jsonl"
    args = ["play", file, "--auto", "--players", str(players), "--bots", ",".join(bots),
            "--seed", str(seed), "--log", str(log)] + (["--level", str(level)] if level else [])
    played = run(*args)
    assert played.exit_code == 0, played.output
    assert "game ended by: " in played.output and f"log written to {log}" in played.output
    # bots' moves are shown one by one, with the points they made
    assert re.search(r"^player \d \((greedy|random)\): .+  \([+-]\d+, score -?\d+\)$",
                     played.output, re.M)
    replayed = run("replay", str(log), "--game", file)
    assert replayed.exit_code == 0, replayed.output
    expected = api_scores(file, players, bots, seed, level)
    assert printed_scores(played.output) == expected
    assert printed_scores(replayed.output) == expected
    assert re.search(r"^winners?( \(shared\))?: player \d", replayed.output, re.M)


def test_a_tampered_log_is_an_error_that_names_its_line(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert run("play", QWIXX, "--auto", "--seed", "2", "--log", str(log)).exit_code == 0
    lines = log.read_text().splitlines()
    n = next(i for i, line in enumerate(lines, 1) if '"action"' in line and i > 10)
    entry = json.loads(lines[n - 1])
    entry["action"] = "purple 13"
    lines[n - 1] = json.dumps(entry)
    log.write_text("\n".join(lines) + "\n")
    result = run("replay", str(log), "--game", QWIXX)
    assert result.exit_code == 1
    assert f"{log}:{n}: does not fit the game" in result.stderr
    assert "'purple 13' is not a legal action" in result.stderr
    # a log of another game does not fit either: its first roll is impossible there
    other = run("replay", str(log), "--game", LEVELX)
    assert other.exit_code == 1 and f"{log}:2: " in other.stderr


def test_replay_finds_the_game_file_next_to_the_log(tmp_path: Path, monkeypatch) -> None:
    shutil.copy(LEVELX, tmp_path / "levelx.yaml")
    monkeypatch.chdir(tmp_path)
    assert run("play", "levelx.yaml", "--auto", "--log", "game.jsonl").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert run("replay", str(tmp_path / "game.jsonl")).exit_code == 0
    missing = run("replay", "../game.jsonl", "--game", "nowhere.yaml")
    assert missing.exit_code == 1 and "nowhere.yaml" in missing.stderr


def test_colour_only_when_wanted() -> None:
    coloured = run("play", QWIXX, "--auto", "--seed", "3", color=True)
    assert "\x1b[" in coloured.output  # a terminal that shows colours gets them
    plain = run("play", QWIXX, "--auto", "--seed", "3", "--no-color", color=True)
    assert plain.exit_code == 0
    assert "\x1b[" not in plain.output
    assert "winner" in plain.output


class _Interrupted(io.BytesIO):
    """stdin as it reads when the person presses Ctrl-C."""

    def read(self, size: int | None = -1, /) -> bytes:
        if size == 0:  # a probe of the stream's type, not a read
            return b""
        raise KeyboardInterrupt

    read1 = read

    def readinto(self, buffer: object, /) -> int:
        raise KeyboardInterrupt

    readline = read


def test_ctrl_c_stops_cleanly_and_an_unwritable_log_is_said_first(tmp_path: Path) -> None:
    result = run("play", QWIXX, input=_Interrupted())
    assert result.exit_code == 0
    assert "interrupted: the game stops at turn 1." in result.output
    bad = run("play", QWIXX, "--auto", "--log", str(tmp_path / "no" / "such" / "dir.jsonl"))
    assert bad.exit_code == 1
    assert "cannot write the log" in bad.stderr and "turn 1" not in bad.output


def test_help_and_display_texts_are_checked_when_the_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    shutil.copy(QWIXX, tmp_path)  # a base lies next to its variant
    path.write_text("extends: qwixx.yaml\n"
                    "display:\n  player: \"penalties {player.penaltys}\"\n"
                    "flow:\n  turn:\n    - roll: dice\n    - choose:\n"
                    "        pass: pass\n        help: \"{dice.purple}\"\n"
                    "    - run: white_sum\n    - run: colour_sum\n")
    with pytest.raises(rulekit.GameFileError) as err:
        rulekit.load_game(path)
    found = {(d.path, d.line) for d in err.value.diagnostics}
    assert found == {("display.player", 3), ("flow.turn[1].choose.help", 9)}
    assert any(d.hint == "did you mean 'penalties'?" for d in err.value.diagnostics)
