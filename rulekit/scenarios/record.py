"""`--record-test FILE`: a game just played (or replayed) written as a scenario.

The scenario imposes the game's chance outcomes, plays its decisions by label with the
seat that made them, and expects the legal labels before each decision and the result
at the end: a game that showed a rule becomes a test in one command.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from rulekit.engine.state import State
from rulekit.errors import RulekitError

#: chance steps written under their own name; any other is written as `chance:`
_NAMED = ("roll", "deal")


def scenario_of(state: State) -> dict:
    """The scenario of a game: its log replayed on a new game of the same setting."""
    again = state.game.new_game(players=state.n, seed=state.seed)
    steps: list[dict[str, Any]] = []
    for entry in state.log:
        if "chance" in entry:
            key = entry["chance"] if entry["chance"] in _NAMED else "chance"
            steps.append({key: entry["outcome"]})
            again.resolve_chance(entry["outcome"])
        elif "action" in entry and not entry.get("forced"):
            steps.append({"legal": [a.label for a in again.legal_actions()]})
            steps.append({"play": entry["action"], "seat": entry["seat"]})
            again.apply(entry["action"])
    end: dict[str, Any] = {"over": state.is_over}
    if state.is_over:
        end["end_reason"] = state.end_reason
    end["scores"] = state.scores()
    steps.append(end)
    out: dict[str, Any] = {"players": state.n}
    if state.seed is not None:
        out["seed"] = state.seed
    return out | {"steps": steps}


def write_scenario(path: str | Path, state: State, game_file: str | Path,
                   overrides: dict[str, Any] | None = None) -> None:
    """Write the game as a tests file holding one scenario; the file names the game
    relative to itself (a tests file reads a game in its folder or below)."""
    scenario = scenario_of(state)
    if overrides:
        scenario = {"players": scenario.pop("players"), "params": dict(overrides)} | scenario
    name = f"recorded game, seed {state.seed}" if state.seed is not None else "recorded game"
    folder = os.path.dirname(os.path.abspath(path))
    doc = {"game": os.path.relpath(os.path.abspath(game_file), folder).replace(os.sep, "/"),
           "scenarios": {name: scenario}}
    text = ("# recorded by rulekit; run it with `rulekit test " + Path(path).name + "`\n"
            + yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100,
                             allow_unicode=True))
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RulekitError(f"cannot write the test {path}: {exc.strerror}") from None
