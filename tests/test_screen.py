"""The screen a person decides at, as an 80x24 terminal shows it: for every shipped game
the last 24 lines up to each prompt hold the decision's title and every choice, the
person's own part of the picture and the latest event."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.cli import main
from rulekit.replay import read_log
from rulekit.terminal import choice_keys, describe_entry

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for p in [*ROOT.glob("games/*.yaml"), *ROOT.glob("games/examples/*.yaml")]
               if not p.name.endswith(".tests.yaml"))
#: the most players tried: every game at its fewest and its most, up to ten (Pig's and
#: Yacht's ten, where the others' lines give way to the choices)
MOST = 10


def cases() -> list[tuple[Path, int]]:
    out = []
    for path in FILES:
        game = rulekit.load_game(path)
        for n in sorted({game.min_players, min(game.max_players, MOST)}):
            out.append((path, n))
    return out


def flat(text: str) -> str:
    """Text with its spacing folded, so that a wrapped line still reads as one."""
    return " ".join(text.split())


def expected_screens(path: Path, log: Path) -> list[dict]:
    """At each prompt the person met (a decision of seat 0 with more than one choice),
    what the screen must hold: the title, the choices as listed, the latest event."""
    glog = read_log(log)
    game = rulekit.load_game(path)
    state = game.new_game(players=glog.players, seed=glog.seed)
    secret = state.secret_chances()
    out = []
    for entry in glog.entries:
        if "chance" in entry:
            state.resolve_chance(entry.get("outcome"))
            continue
        if entry.get("forced") or "action" not in entry:
            continue
        labels = [a.label for a in state.legal_actions()]
        if state.current_player == 0 and len(labels) > 1:
            hidden = state.hidden_choices(0)
            seen = [e for e in state.log[:hidden[0] if hidden else None]
                    if e.get("to", 0) == 0]
            latest = describe_entry(seen[-1], lambda s: f"player {s}", secret) if seen else ""
            picture = state.render(0, compact=True)
            own = re.search(r"^player 0 \(you\b.*(?:\n  .*)*", picture, re.M)[0]
            out.append({"own": flat(own), "title": flat(state.decision_title()),
                        "cells": list(zip(choice_keys(labels), labels)),
                        "latest": flat(latest)})
        state.apply(entry["action"])
    return out


@pytest.mark.parametrize("path, players", cases(), ids=lambda v: getattr(v, "stem", str(v)))
def test_every_prompt_s_screen_at_80x24_holds_the_choices_own_part_and_latest_event(
        tmp_path: Path, path: Path, players: int) -> None:
    log = tmp_path / "game.jsonl"
    result = CliRunner().invoke(
        main, ["play", str(path), "--players", str(players), "--bots", "random", "--seed", "4",
               "--log", str(log)], input="#1\n" * 20, env={"COLUMNS": "80", "LINES": "24"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Traceback" not in out
    # a series of levels: the log holds the level played last
    start = max([m.start() for m in re.finditer(r"\n=== .*, level \d+ of", out)], default=-1)
    prompts = [m.start() for m in re.finditer(r"(?m)^> ", out) if m.start() > start]
    wanted = expected_screens(path, log)
    # the last prompt may be the one that met the end of input
    assert prompts and len(prompts) - len(wanted) in (0, 1), (len(prompts), len(wanted))
    for at, want in zip(prompts, wanted):
        screen = out[:at + 2].split("\n")[-24:]
        assert all(len(line) <= 80 for line in screen if not line.startswith("log written")), \
            "\n".join(screen)
        text = flat("\n".join(screen))
        named = re.sub(r"player (\d+) \([^)]*\)", r"player \1", text)  # without the bots' names
        where = f"\n--- screen ---\n{chr(10).join(screen)}"
        assert want["title"] in text, want["title"] + where
        for key, label in want["cells"]:  # under a head shared by a run of labels, the rest
            head, _, rest = label.partition(": ")
            assert (flat(f"{key}. {label}") in text
                    or rest and f"  {head}:" in screen and flat(f"{key}. {rest}") in text), \
                label + where
        assert want["own"] in text, want["own"] + where  # your own part, whole
        assert want["latest"] in named, want["latest"] + where


def play(*args: str, input: str, lines: int = 24) -> str:
    result = CliRunner().invoke(main, ["play", *args], input=input,
                                env={"COLUMNS": "80", "LINES": str(lines)})
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output


LEVELX = str(ROOT / "games" / "levelx.yaml")
QWIXX = str(ROOT / "games" / "qwixx.yaml")
CONNECT = str(ROOT / "games" / "examples" / "connect-four.yaml")


def test_log_shows_every_event_since_the_last_move_and_then_the_choices_again() -> None:
    out = play(LEVELX, "--players", "4", "--bots", "random", "--seed", "3",
               input="a\n" * 3 + "log\n")
    at = out.index("> log\n")
    screen = out[:at].split("\n")[-23:]
    header = next(line for line in screen if line.startswith("since your last move"))
    hidden = int(re.search(r"\((\d+) earlier not shown; 'log' shows all\)", header)[1])
    shown = len(screen) - screen.index(header) - 1
    after = out[at + len("> log\n"):].split("\n")
    assert after[0] == "since your last move:"
    events = after[1:after.index(next(x for x in after if x.startswith("dice ")))]
    assert len(events) >= hidden + 1 and len(events) > shown - 3
    assert events[-1] in screen  # the latest was on the screen too
    assert re.search(r"(?m)^  a\. \S", "\n".join(after))  # then the title and the choices


def test_a_lone_choice_is_shown_and_taken_without_asking(tmp_path: Path) -> None:
    log = tmp_path / "q.jsonl"
    out = play(QWIXX, "--players", "5", "--bots", "random", "--seed", "3", "--log", str(log),
               input="1\n" * 40, lines=100)  # a tall screen: no event is left out
    lone = out.count("only choice: pass")
    assert lone > 0
    mine = [e for e in read_log(log).entries
            if e.get("seat") == 0 and "action" in e and not e.get("forced")]
    assert out.count("\n> ") + lone == len(mine)


def test_dice_never_rolled_show_no_face() -> None:
    state = rulekit.load_game(QWIXX).new_game(players=2, seed=1)
    assert "dice: white1 -  white2 -  red -  yellow -  green -  blue -" in state.render(0)
    state.resolve_chance()
    assert re.search(r"dice: white1 \d  white2 \d  red \d", state.render(0))


def test_a_terminal_pauses_before_the_first_screen_and_between_levels(monkeypatch) -> None:
    from rulekit import terminal

    # Connect Four: four pieces in column 0 win level 1 against random play (this seed)
    piped = play(CONNECT, "--seed", "4", input="#1\n" * 5)
    assert "press Enter" not in piped and "level 1 (Novice) passed" in piped
    monkeypatch.setattr(terminal, "is_tty", lambda stream: True)
    out = play(CONNECT, "--seed", "4", input="\n" + "#1\n" * 4 + "\n#1\n")
    assert out.count("(press Enter to start)") == 2
    first, second = [m.start() for m in re.finditer(r"\(press Enter to start\)", out)]
    assert first < out.index("\n== Connect Four, level 1 of 2")
    # the level's end, its verdict and the next level's banner stay up until Enter
    assert (out.index("level 1 (Novice) passed") < out.index("=== Connect Four, level 2 of 2")
            < second < out.index("\n== Connect Four, level 2 of 2"))
