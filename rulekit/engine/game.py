"""A loaded, checked and compiled game: immutable, shared by all its States."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.engine.build import GameBuild
from rulekit.engine.state import State
from rulekit.errors import GameFileError, RulekitError
from rulekit.spec.load import load_source
from rulekit.spec.params import resolve_params
from rulekit.spec.schema import schema_diagnostics
from rulekit.spec.source import Source

#: a bound on steps per game, so that a flow that never ends stops with an error
DEFAULT_MAX_STEPS = 200_000


class Game:
    def __init__(self, src: Source, params: dict[str, Any], parts: dict[str, Any]) -> None:
        self.source = src
        self.file = src.file
        self.spec = src.data
        self.name: str = src.data.get("name", Path(src.file).stem)
        self.params = params
        self.max_steps = DEFAULT_MAX_STEPS
        for key, value in parts.items():
            setattr(self, key, value)
        self.levels: list[dict] = list(src.data.get("levels") or [])

    def new_game(self, players: int | None = None, seed: int | None = None) -> State:
        """A new game with seats 0..players-1; the same seed and decisions give the same game."""
        if players is None:
            players = self.min_players
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise RulekitError(f"{self.name} is for {self.min_players} to {self.max_players} "
                               f"players, not {players}")
        return State(self, players, seed)

    def render(self, st: State, seat: int | None) -> str:
        parts = []
        for kind in self.components:
            text = kind.render(st, seat)
            if text:
                parts.append(text)
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"<Game {self.name}>"


def check_source(src: Source, overrides: dict[str, Any] | None = None) -> Game:
    """Schema, then params and semantic checks, then compile; every problem is reported."""
    diags = schema_diagnostics(src)
    if diags:
        raise GameFileError(diags)
    params, problems = resolve_params(src, overrides)
    if problems:
        raise GameFileError(problems)
    build = GameBuild(src, params)
    parts = build.build()
    if build.b.diags:
        raise GameFileError(sorted(build.b.diags, key=lambda d: (d.file, d.line, d.col)))
    return Game(src, params, parts)


def load_game(path: str | Path, overrides: dict[str, Any] | None = None) -> Game:
    """Read, check and compile a game file; `overrides` set params by name."""
    return check_source(load_source(path), overrides)
