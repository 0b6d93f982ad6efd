"""Budgets per thread, texts that never show a Python object, generated code that never
shows a file's name as code.

The browser server plays games in a pool of threads: each thread's work is counted on a
meter of its own, so one game can neither lend its budget to another nor exhaust it.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.cli import main
from rulekit.errors import GameFileError
from rulekit.expr import budget

ROOT = Path(__file__).resolve().parent.parent

GAME = """\
name: Text
players: {min: 2, max: 2}
components:
  dice: {kind: dice, dice: {d1: 6}}
flow:
  turn:
    - roll: dice
    - choose:
        pass: pass
        options:
          - for: "k in [1, 2]"
            label: "@LABEL@"
end:
  when: {done: "turn > 3"}
score: "1"
"""


def test_threads_do_not_lend_each_other_budget() -> None:
    """One thread runs out of work while another, under a larger budget, keeps going; a
    third, outside any limit, stays idle whatever the others do."""
    ready = threading.Barrier(3)
    spent = threading.Barrier(3)
    results: dict[str, object] = {}

    def poor() -> None:
        with budget.limit(100, "the poor thread"):
            ready.wait()
            try:
                budget.charge(1_000)
            except budget.BudgetExceeded as ex:
                results["poor"] = str(ex)
            spent.wait()

    def rich() -> None:
        with budget.limit(1_000_000, "the rich thread"):
            ready.wait()
            spent.wait()  # the poor thread has run out by now
            for _ in range(100):
                budget.charge(1_000)
            results["rich"] = budget.meter().left

    def idle() -> None:
        ready.wait()
        spent.wait()
        budget.charge(10_000)
        results["idle"] = budget.meter().left

    here = budget.meter().left  # this thread's meter (other tests may have used it idle)
    threads = [threading.Thread(target=f) for f in (poor, rich, idle)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert "the poor thread" in str(results["poor"])
    assert results["rich"] == 1_000_000 - 100_000
    assert results["idle"] == budget.IDLE - 10_000
    assert budget.meter().left == here  # this thread's meter was never touched


def test_games_in_two_threads_keep_their_own_budgets(tmp_path: Path) -> None:
    """A game whose moves are expensive runs out of work in one thread, while the same
    game with cheap moves plays to its end in another at the same time."""
    heavy = GAME.replace("@LABEL@", "{count(i for i in range(1000) for j in range(1500))}")
    light = GAME.replace("@LABEL@", "take {k}")
    errors: dict[str, str] = {}
    start = threading.Barrier(2)

    def play(name: str, text: str) -> None:
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        game = rulekit.load_game(path)
        state = game.new_game(players=2, seed=1)
        start.wait()
        try:
            while not state.is_over:
                if state.is_chance:
                    state.resolve_chance()
                else:
                    state.apply(state.legal_actions()[0])
        except rulekit.RulekitError as ex:
            errors[name] = str(ex)

    threads = [threading.Thread(target=play, args=a) for a in (("heavy", heavy),
                                                                ("light", light))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert "light" not in errors
    assert "more work than" in errors.get("heavy", "")


@pytest.mark.parametrize("label", ["take {dice} {k}", "take {str(dice)} {k}",
                                   "take {[dice, dice]}", "take {join(', ', [dice])}"])
def test_an_object_without_a_text_is_refused_at_load(tmp_path: Path, label: str) -> None:
    """Once `take <rulekit.components.dice.DiceView object at 0x7f...>`: a heap address in
    the log, which never replays alike."""
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("@LABEL@", label), encoding="utf-8")
    with pytest.raises(GameFileError, match=r"cannot write a Dice: it has no text") as info:
        rulekit.load_game(path)
    (diag,) = info.value.diagnostics
    assert (diag.line, diag.path) == (12, "flow.turn[1].choose.options[0].label")


def test_objects_with_a_text_write_it(tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("@LABEL@", "{active} {[active]} {k}"), encoding="utf-8")
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance()
    labels = [a.label for a in state.legal_actions()]
    assert "player 0 [player 0] 1" in labels, labels


def test_a_file_name_never_shows_as_code_in_compile(tmp_path: Path) -> None:
    odd = tmp_path / "qwixx.yaml\nimport os  # .yaml"
    shutil.copy(ROOT / "games" / "qwixx.yaml", odd)
    result = CliRunner().invoke(main, ["compile", str(odd)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert not any(line.startswith("import os") for line in lines)
    assert any("qwixx.yaml\\nimport os" in line and line.lstrip().startswith("#")
               for line in lines)
