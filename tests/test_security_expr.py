"""Hostile expressions: a game file can read only what the game's types declare.

Every escape route into Python that expressions once had (dunder attributes, string
methods such as `format`, attribute chains on values of unknown type) is tried in every
place an expression or template can stand. Each must be a load error located in the
file, with exit code 1, no traceback, and nothing executed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.cli import main
from rulekit.errors import GameFileError

# One place per `@name@` marker; each marker is replaced by a harmless value or a payload.
BASE = """\
name: Tiny
players: {min: 2, max: 3}
params:
  target: {type: int, default: 10, min: 1, max: 100}
vars:
  points: {per: player, init: 0}
components:
  dice: {kind: dice, dice: {d1: 6, d2: 6}}
  bonus: {kind: stack, items: "@stack@"}
define:
  total: "@define@"
  mine: {per: player, expr: "@define_player@"}
flow:
  first_player: "@first_player@"
  turn:
    - roll: dice
    - let: {s: "@let@"}
    - if: "@if@"
      then:
        - say: "@say@"
    - choose:
        who: "@who@"
        pass: pass
        help: "@help@"
        options:
          - for: "k in @for@"
            if: "@option_if@"
            label: "@label@"
            do:
              - add: {active.points: "@add@"}
triggers:
  - when: "@trigger@"
    do:
      - add: {active.points: 0}
end:
  when: "@end@"
score: "@score@"
score_bounds: {min: 0, max: "@bounds@"}
display:
  game: ["@display_game@"]
  player: ["@display_player@"]
"""

HARMLESS = {
    "stack": "[3, 2, 1]", "define": "params.target", "define_player": "player.points",
    "first_player": "players[0]", "let": "dice.d1", "if": "s > 3", "say": "{s} is high",
    "who": "active", "help": "take a number", "for": "[1, 2]", "option_if": "k > 0",
    "label": "take {k}", "add": "k", "trigger": "turn > 100",
    "end": "max(p.points for p in players) >= params.target", "score": "player.points",
    "bounds": "params.target + 12", "display_game": "turn {turn}",
    "display_player": "points {player.points}",
}
#: places that hold a template: a payload goes between braces there
TEMPLATES = {"say", "help", "label", "display_game", "display_player"}

CANARY = "rulekit-canary"

# The chain that ran a shell command before types were enforced: from an untyped value to
# `object.__subclasses__()`, to a class whose module imported os, to os.system.
EXPLOIT = ("[c for c in [0, ''][1].__class__.__mro__[1].__subclasses__() "
           "if c.__name__ == '_wrap_close'][0].__init__.__globals__['sys']"
           ".modules['os'].system('touch " + CANARY + "')")

PAYLOADS = {
    "exploit-chain": EXPLOIT,
    "dunder-on-mixed-list": "[0, ''][1].__class__",
    "dunder-on-conditional": "(0 if turn > 0 else '').__class__",
    "builtin-import": "__import__('os')",
    "format-method": "'{0.__class__}'.format(1)",
    "str-method": "'x'.upper()",
    "untyped-mixed-list": "[0, ''][1].mro",
    "untyped-conditional": "(0 if turn > 0 else 'a').mro",
    "empty-list-element": "first([]).mro",
    "mixed-list-concat": "([0] + [''])[1].mro",
    "undeclared-python-attr": "players[0].st",
    "undeclared-method": "active.view_of(1)",
    "private-method": "players[0]._rebind(1)",
    "int-attribute": "params.target.real",
    # a Python repr in a game's text: a heap address in labels and logs
    "object-repr": "str(dice)",
    "object-repr-in-a-list": "str([dice, dice])",
    "object-repr-joined": "join(',', [dice])",
}

PLACES = sorted(HARMLESS)


def game_text(place: str | None = None, payload: str = "") -> str:
    text = BASE
    for name, value in HARMLESS.items():
        if name == place:
            value = "{" + payload + "}" if name in TEMPLATES else payload
        text = text.replace(f"@{name}@", value.replace('"', '\\"'))
    return text


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def run(*args: object) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def payload_line(text: str, place: str) -> int:
    """The 1-based line of the marker of `place` in BASE (where the payload stands)."""
    return next(i for i, line in enumerate(BASE.splitlines(), 1) if f"@{place}@" in line)


def test_the_harmless_game_is_valid(tmp_path: Path) -> None:
    path = write(tmp_path, game_text())
    result = run("validate", path)
    assert result.exit_code == 0, result.output
    game = rulekit.load_game(path)
    state = game.new_game(players=2, seed=1)
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(state.legal_actions()[0])
    assert "turn" in state.render(0)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_escape_routes_are_load_errors_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   place: str, name: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, game_text(place, PAYLOADS[name]))
    result = run("validate", path)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    line = payload_line(BASE, place)
    assert re.search(rf"game\.yaml:{line}:\d+: error: ", result.output), result.output
    assert not (tmp_path / CANARY).exists()


@pytest.mark.parametrize("command", [
    ["simulate", "--games", "2"],
    ["play", "--auto"],
    ["validate", "--simulate", "2"],
])
def test_the_exploit_runs_in_no_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    for place in ("say", "score", "bounds", "display_player"):
        path = write(tmp_path, game_text(place, EXPLOIT))
        result = run(command[0], path, *command[1:])
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        assert not (tmp_path / CANARY).exists()


def test_the_api_raises_a_game_file_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, game_text("score", EXPLOIT))
    with pytest.raises(GameFileError) as info:
        rulekit.load_game(path)
    (diag,) = info.value.diagnostics
    assert diag.line == payload_line(BASE, "score")
    assert "cannot start with '_'" in diag.message
    assert not (tmp_path / CANARY).exists()


@pytest.mark.parametrize("payload, message", [
    ("[0, ''][1].mro", "a list holds one type of element, got int and str"),
    ("(0 if turn > 0 else 'a').mro", "'if ... else' gives int or str: one type is needed"),
    ("first([]).mro", "nothing has no attribute 'mro'"),
    ("'{0}'.format(1)", "str has no method 'format'"),
    ("players[0].st", "Player has no attribute 'st'"),
    ("active.view_of(1)", "Player has no method 'view_of'"),
    ("x.__class__", "a name cannot start with '_'"),
    ("dice", "a template cannot write a Dice: it has no text of its own"),
    ("str([[dice]])", "str() cannot write a Dice: it has no text of its own"),
])
def test_each_route_is_refused_with_its_reason(tmp_path: Path, payload: str,
                                               message: str) -> None:
    result = run("validate", write(tmp_path, game_text("say", payload)))
    assert result.exit_code == 1
    assert message in result.output, result.output


@pytest.mark.parametrize("section, entry", [
    ("vars", "  __class__: {init: 0}"),
    ("vars", "  _hidden: {per: player, init: 0}"),
    ("params", "  _p: {type: int, default: 1}"),
])
def test_names_with_a_leading_underscore_are_refused(tmp_path: Path, section: str,
                                                     entry: str) -> None:
    text = game_text().replace(f"{section}:\n", f"{section}:\n{entry}\n", 1)
    result = run("validate", write(tmp_path, text))
    assert result.exit_code == 1, result.output
    assert re.search(r"game\.yaml:\d+:\d+: error: .* is not a valid name", result.output)
    assert "starts with a letter" in result.output
