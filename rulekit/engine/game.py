"""A loaded, checked and compiled game: immutable, shared by all its States."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.engine import build as building
from rulekit.engine.build import GameBuild
from rulekit.engine.state import RUNTIME_ERRORS, State, _failed
from rulekit.errors import Diagnostic, GameFileError, RulekitError
from rulekit.expr import budget
from rulekit.spec.blame import blame_params
from rulekit.spec.load import load_source
from rulekit.spec.params import resolve_params
from rulekit.spec.schema import conforming, schema_diagnostics
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
        if self.after_step is None:  # the checks on the closure path
            self.after_step = State._after_step
        self.levels: list[dict] = list(src.data.get("levels") or [])

    @functools.cached_property
    def flat(self) -> Any:
        """The game's flat random play (rulekit.backends.flat), None where it does not
        cover the game; made when a playout first asks for it."""
        from rulekit.backends import flat
        return flat.build(self)[0] if flat.ENABLED else None

    @functools.cached_property
    def flat_session(self) -> Any:
        """The game's flat play move by move (rulekit.backends.session), None where the
        flat backend does not cover the game; made when a new game's loop first asks."""
        from rulekit.backends import flat
        return flat.build(self, session=True)[0] if flat.ENABLED else None

    @functools.cached_property
    def hides_information(self) -> bool:
        """Whether a component hides something from some seats (hands, a stock, secret dice);
        asked at every preview and copy, and the components never change."""
        return any(kind.hides_information for kind in self.components)

    @functools.cached_property
    def secret_chances(self) -> frozenset[str]:
        """Names of the chance steps whose outcomes nobody sees (a deal into hands); by
        name, so a name that is secret for one kind is dropped for all (never too little)."""
        return frozenset(name for kind in self.components for name in kind.secret_chances())

    def new_game(self, players: int | None = None, seed: int | None = None) -> State:
        """A new game with seats 0..players-1; the same seed and decisions give the same game."""
        if players is None:
            players = self.min_players
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise RulekitError(f"{self.name} is for {self.min_players} to {self.max_players} "
                               f"players, not {players}")
        st = State(self, players, seed)
        if self.__dict__.get("flat_session", True) is not None:
            # its moves run on the game's flat session until something else reads it
            from rulekit.backends.session import SessionState
            st.__class__ = SessionState
        return st

    def render(self, st: State, seat: int | None, compact: bool = False) -> str:
        """The shared components and the file's `display.game` lines, then one block per
        player: score, their own parts and the `display.player` lines (and the
        `display.private` ones for that player alone); `seat` sees only what it may.
        `compact`: every other player in one line, their `display.summary` (when the file
        has one)."""
        parts = [text for kind in self.components if (text := kind.render(st, seat))]
        parts += self._display(st, self.display_game, None)
        scores = st.scores()
        for p in range(st.n):
            marks = [m for m, on in (("you", p == seat), ("active", p == st.active and not st.over),
                                     ("start player", p == st.start and self.finish == "round"))
                     if on]
            head = f"player {p}{' (' + ', '.join(marks) + ')' if marks else ''}: score {scores[p]}"
            if compact and p != seat and self.display_summary:
                summary = self._display(st, self.display_summary, st.players[p])
                parts.append(" | ".join([head, *summary]))
                continue
            parts.append(head)
            own = [text for kind in self.components if (text := kind.render_player(st, p, seat))]
            own += self.display(st, p, seat)
            parts += ["  " + line for text in own for line in text.split("\n")]
        return "\n".join(parts)

    def display(self, st: State, player: int | None, seat: int | None = None) -> list[str]:
        """The file's `display` lines of the game (player None) or of one player, as a
        person at `seat` sees them: a player's `private` lines only for that player (and
        an observer, None)."""
        if player is None:
            return self._display(st, self.display_game, None)
        lines = self._display(st, self.display_player, st.players[player])
        if seat is None or seat == player:
            lines += self._display(st, self.display_private, st.players[player])
        return lines

    @staticmethod
    def _display(st: State, lines: list, player: Any) -> list[str]:
        """The display lines of the game (player None) or of one player, empty ones left out."""
        env = {} if player is None else {"player": player}
        out = []
        for fn, where in lines:
            try:
                text = fn(st, env)
            except RUNTIME_ERRORS as exc:
                raise _failed(where, "a display line", exc) from exc
            if text.strip():
                out.append(text)
        return out

    def __repr__(self) -> str:
        return f"<Game {self.name}>"


def check_source(src: Source, overrides: dict[str, Any] | None = None) -> Game:
    """Schema, then params and semantic checks, then compile; every problem is reported.

    When the schema finds problems, the semantic checks still run over the document, and
    their findings are reported where they cannot be consequences of the schema's.
    """
    first = schema_diagnostics(src)
    if first and not isinstance(src.data, dict):
        raise GameFileError(first)
    if first:
        try:
            rest = Source(conforming(src.data), src.positions, src.file)
            params, problems = resolve_params(rest, overrides)
            build = GameBuild(rest, params)
            with _loading():
                build.build()
            later = problems + build.b.diags
        except Exception:  # the document is invalid already: this pass is a bonus
            later = []
        raise GameFileError(_sorted(first + independent_of(later, first)))
    params, problems = resolve_params(src, overrides)
    build = GameBuild(src, params)
    with _loading():
        parts = build.build()
    if problems or build.b.diags:
        found = problems + independent_of(build.b.diags, problems)
        raise GameFileError(_sorted(blame_params(src, found)))
    return Game(src, params, parts)


def _loading() -> Any:
    """The budget of a whole load: its work, and its deadline, which holds inside one
    expression too (see budget.limit)."""
    seconds = building.LOAD_SECONDS
    return budget.limit(budget.WORK_PER_LOAD, "loading the game", seconds,
                        f"loading took more than {seconds:g} s, in this expression")


def _sorted(diags: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(diags, key=lambda d: (d.file, d.line, d.col))


#: messages of a name that does not resolve: after an earlier error, likely its consequence
_CASCADES = ("unknown ", "has no attribute", "has no method", "no entry", "never run",
             "is not a player", "cannot be used with")


def independent_of(later: list[Diagnostic], first: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of `later` that cannot be consequences of those in `first`.

    Dropped: those in the same part (the same declaration, the same step) as an earlier
    problem, and names that do not resolve (the declaration may be what was broken).
    """
    if not first:
        return later
    roots = [_part(d.path) for d in first]
    names_may_be_missing = any(_may_hide_names(d) for d in first)
    out = []
    for d in later:
        parts = _split(d.path)
        if any(parts[:len(r)] == r or r[:len(parts)] == parts for r in roots):
            continue
        if names_may_be_missing and any(c in d.message for c in _CASCADES):
            continue
        out.append(d)
    return out


#: top-level keys that declare no name another part of the file could use
_DECLARE_NOTHING = ("name", "description", "rulekit", "extends", "players", "flow", "triggers",
                    "end", "score", "levels", "display")


def _may_hide_names(d: Diagnostic) -> bool:
    """Whether the problem may take a name (a param, variable, procedure ...) out of the file."""
    parts = _split(d.path)
    if not parts or parts[0] not in _DECLARE_NOTHING:
        return True
    if parts[:2] == ["flow", "procedures"] and not any(p.startswith("[") for p in parts):
        return True
    if {"let", "for", "run"} & set(parts):
        return True
    if d.message.startswith("unknown key"):
        hint = d.hint or ""
        return not hint.startswith("did you mean") or any(
            f"'{k}'" in hint for k in ("let", "for", "run"))
    return False


def _split(path: str) -> list[str]:
    return re.findall(r"\[\d+\]|[^.\[\]]+", path)


def _part(path: str) -> list[str]:
    """The declaration, step or top-level key a path lies in."""
    parts = _split(path)
    if parts[:1] in (["flow"], ["triggers"], ["levels"]):
        items = [i for i, p in enumerate(parts) if p.startswith("[")]
        if items:
            return parts[:items[-1] + 1]
        return parts[:3] if parts[:2] == ["flow", "procedures"] else parts[:2]
    if parts[:1] in (["params"], ["vars"], ["components"], ["define"]):
        return parts[:2]
    return parts[:1]


def load_game(path: str | Path, overrides: dict[str, Any] | None = None,
              extends_roots: Sequence[str | Path] = ()) -> Game:
    """Read, check and compile a game file; `overrides` set params by name.

    `extends:` reads only files in the folder of the file that names it (or below);
    `extends_roots` lists further folders the user allows it to read from.
    """
    return check_source(load_source(path, extends_roots), overrides)
