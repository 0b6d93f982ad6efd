"""Playing a suite's scenarios against the game and saying which expectation failed.

Everything in a scenario is data: labels and outcomes go to the State API as they are,
expressions are compiled in the game's own scope (checked, side-effect free) and read
the state without changing it. A failing step is reported at its `file:line:col`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulekit.engine.build import locate_expr_error
from rulekit.engine.game import Game, check_source
from rulekit.engine.state import RUNTIME_ERRORS, State
from rulekit.errors import Diagnostic, GameFileError, RulekitError
from rulekit.expr import BOOL, ExprError, budget, compile_expr
from rulekit.scenarios.schema import ACTIONS, CHECKS
from rulekit.scenarios.suite import Scenario, Suite
from rulekit.spec.load import load_source
from rulekit.spec.source import Path_, Source
from rulekit.text import printable

#: distinct params settings per tests file: each is a compile of the game (a budget)
MAX_SETTINGS = 64


@dataclass
class Outcome:
    """How one scenario went: passed, or the first step that failed and why."""

    file: str
    scenario: str
    failures: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def lines(self) -> list[str]:
        """`ok`/`FAIL` with the name, then `file:line:col: scenario NAME: ...` per failure."""
        mark = "ok  " if self.ok else "FAIL"
        head = f"{mark}  {printable(self.file)}: {printable(self.scenario)}"
        return [head] + [printable(f"{d.file}:{d.line}:{d.col}: scenario {self.scenario}: "
                                   f"{d.message}") for d in self.failures]

    def as_dict(self) -> dict:
        return {"file": self.file, "scenario": self.scenario, "ok": self.ok,
                "failures": [d.as_dict() for d in self.failures]}


class _Failed(Exception):
    """A step did not go as the scenario says; carries where and why."""

    def __init__(self, diag: Diagnostic) -> None:
        self.diag = diag


def run_suite(suite: Suite, source: Source | None = None,
              extends_roots: Sequence[str | Path] = (), fail_fast: bool = False
              ) -> list[Outcome]:
    """Run every scenario of the suite against its game (or against `source`, a game
    document already read: the mutation tests hand in changed rules); with `fail_fast`,
    stop after the first scenario that fails."""
    if source is None:
        source = load_source(suite.game, extends_roots)
    games: dict[str, Game | RulekitError] = {}
    out = []
    for sc in suite.scenarios:
        outcome = Outcome(suite.file, sc.name)
        try:
            _Run(sc, _game(games, source, sc)).run()
        except _Failed as f:
            outcome.failures.append(f.diag)
        out.append(outcome)
        if fail_fast and not outcome.ok:
            break
    return out


def _game(games: dict, source: Source, sc: Scenario) -> Game:
    """The game with the scenario's params (compiled once per distinct setting)."""
    params = sc.data.get("params") or {}
    key = json.dumps(params, sort_keys=True)
    if key not in games and len(games) >= MAX_SETTINGS:
        raise _Failed(sc.diag(("params",), f"a tests file may set at most {MAX_SETTINGS} "
                                           "different params (each compiles the game anew)"))
    if key not in games:
        try:
            games[key] = check_source(source, params or None)
        except RulekitError as exc:
            games[key] = exc
    game = games[key]
    if isinstance(game, RulekitError):
        if isinstance(game, GameFileError) and game.diagnostics:
            why = "; ".join(d.message for d in game.diagnostics[:3])
        else:
            why = str(game)
        where = ("params",) if params else ()
        raise _Failed(sc.diag(where, f"the game does not load with these params: {why}"))
    return game


class _Run:
    """One scenario being played, step by step."""

    def __init__(self, sc: Scenario, game: Game) -> None:
        self.sc = sc
        self.game = game
        self.state: State | None = None

    def fail(self, rel: Path_, message: str) -> _Failed:
        return _Failed(self.sc.diag(rel, message))

    def run(self) -> None:
        sc = self.sc
        players = sc.data.get("players", self.game.min_players)
        try:
            self.state = self.game.new_game(players=players, seed=sc.data.get("seed", 0))
        except RulekitError as exc:
            raise self.fail(("players",) if "players" in sc.data else (), str(exc)) from None
        for i, step in enumerate(sc.data["steps"]):
            act = next((k for k in ACTIONS if k in step), None)
            if act == "play":
                self.play(("steps", i), step)
            elif act is not None:
                self.chance(("steps", i, act), act, step[act])
            else:
                for key in CHECKS:
                    if key in step:
                        self.check(("steps", i, key), key, step[key])

    # ---- acting -----------------------------------------------------------------------------
    def chance(self, at: Path_, key: str, outcome: Any) -> None:
        st = self.state
        if not st.is_chance:
            raise self.fail(at, f"expected a chance step ({key}), got {_now(st)}")
        if isinstance(outcome, dict) and "hands" in outcome:
            outcome = self.expand_deal(at, outcome)
        try:
            st.resolve_chance(outcome)
        except RulekitError as exc:
            raise self.fail(at, str(exc)) from None
        done = st.log[_last_chance(st)]
        if key != "chance" and done["chance"] != key:
            raise self.fail(at, f"expected a {key}, got a {done['chance']}")

    def expand_deal(self, at: Path_, deal: dict) -> list:
        """`{hands: [[...], ...], stock: [...]}` -> the whole set in dealing order: the hands
        in seat order, the stock from its front, then the tiles not named in the set's order.

        The set is learnt from a deal sampled on a copy of the state, so any set works.
        """
        hands, stock = deal.get("hands"), deal.get("stock", [])
        if (set(deal) - {"hands", "stock"} or not isinstance(hands, list)
                or not all(isinstance(h, list) for h in hands) or not isinstance(stock, list)):
            raise self.fail(at, "a deal written by hands is {hands: [[tiles of seat 0], "
                                "...], stock: [tiles drawn first, ...]}")
        if len({len(h) for h in hands}) > 1:
            raise self.fail(at, f"the hands hold {', '.join(str(len(h)) for h in hands)} "
                                "tiles: every hand holds the same number")
        whole = self.state.clone().resolve_chance()
        if not isinstance(whole, list):
            raise self.fail(at, "this chance step is not a deal of a set")
        items = [t for h in hands for t in h] + stock
        if whole and all(isinstance(c, str) for c in whole):
            return self.expand_cards(at, items, whole)
        named = []
        for item in items:
            tile = _tile(item)
            if tile is None:
                raise self.fail(at, f"{json.dumps(item)} is not a tile: write a|b or [a, b]")
            named.append(tile)
        keys = {tuple(sorted(t)) for t in named}
        rest = sorted((list(t) for t in whole if tuple(sorted(t)) not in keys),
                      key=lambda t: tuple(sorted(t)))
        return named + rest

    def expand_cards(self, at: Path_, items: list, whole: list[str]) -> list[str]:
        """Cards named in a deal written by hands, then the others sorted by name."""
        deck = set(whole)
        for item in items:
            if not isinstance(item, str) or item not in deck:
                raise self.fail(at, f"{json.dumps(item)} is not a card of the deck: write its "
                                    "name, rank then suit (QH)")
        named = set(items)
        return list(items) + sorted(c for c in whole if c not in named)

    def play(self, at: Path_, step: dict) -> None:
        labels = step["play"] if isinstance(step["play"], list) else [step["play"]]
        many = isinstance(step["play"], list)
        st = self.state
        for j, label in enumerate(labels):
            where = at + (("play", j) if many else ("play",))
            label = str(label)
            if st.is_over or st.is_chance:
                raise self.fail(where, f"expected a decision ({label}), got {_now(st)}")
            if "seat" in step and st.current_player != step["seat"]:
                raise self.fail(at + ("seat",), f"expected seat {step['seat']} to decide, "
                                f"got seat {st.current_player}")
            try:
                st.apply(label)
            except RulekitError as exc:
                raise self.fail(where, str(exc)) from None

    # ---- checking ---------------------------------------------------------------------------
    def check(self, at: Path_, key: str, want: Any) -> None:
        st = self.state
        if key == "decides":
            got = st.current_player
            if got != want:
                raise self.fail(at, f"expected seat {want} to decide, got "
                                + (f"seat {got}" if got is not None else _now(st)))
        elif key.startswith("legal"):
            self.check_legal(at, key, [str(x) for x in want])
        elif key == "over":
            if st.is_over != want:
                raise self.fail(at, f"expected over: {_show(want)}, got {_show(st.is_over)}"
                                + (f" ({st.end_reason})" if st.is_over else ""))
        elif key == "end_reason":
            if st.end_reason != want:
                raise self.fail(at, f"expected end_reason {_show(want)}, got "
                                f"{_show(st.end_reason)}")
        elif key == "scores":
            got = self.guard(at, "the scores", st.scores)
            if got != want:
                raise self.fail(at, f"expected scores {_show(want)}, got {_show(got)}")
        elif key == "expect":
            got = self.evaluate(at, want, BOOL)
            if got is not True:
                raise self.fail(at, f"expected `{want}` to be true, got {_show(got)}")
        elif key == "impossible":
            if not st.is_chance:
                raise self.fail(at, f"expected a chance step to refuse {_show(want)}, got "
                                f"{_now(st)}")
            try:
                st.clone().resolve_chance(want)
            except RulekitError:
                return
            raise self.fail(at, f"expected {_show(want)} to be impossible, but it was taken")
        else:  # values
            for text, value in want.items():
                got = _plain(self.evaluate(at + (text,), str(text), None, key=True))
                if got != value:
                    raise self.fail(at + (text,), f"expected `{text}` = {_show(value)}, "
                                                  f"got {_show(got)}")

    def check_legal(self, at: Path_, key: str, want: list[str]) -> None:
        st = self.state
        if st.is_over or st.is_chance:
            raise self.fail(at, f"expected a decision with {key} {_show(want)}, got {_now(st)}")
        legal = [a.label for a in st.legal_actions()]
        if key == "legal" and sorted(legal) != sorted(want):
            missing = [x for x in want if x not in legal]
            extra = [x for x in legal if x not in want]
            more = "; ".join(p for p in (f"missing {_show(missing)}" if missing else "",
                                         f"not expected {_show(extra)}" if extra else "") if p)
            raise self.fail(at, f"expected legal {_show(want)}, got {_show(legal)} ({more})")
        if key == "legal_includes" and (missing := [x for x in want if x not in legal]):
            raise self.fail(at, f"expected {_show(missing)} to be legal, got {_show(legal)}")
        if key == "legal_excludes" and (there := [x for x in want if x in legal]):
            raise self.fail(at, f"expected {_show(there)} not to be legal, got {_show(legal)}")

    def evaluate(self, at: Path_, text: str, expect: Any, key: bool = False) -> Any:
        """The value of an expression of the game on the state, which it does not change."""
        try:
            fn = compile_expr(text, self.game.scope, expect).fn
        except ExprError as exc:
            src = self.sc.source(at)
            full = self.sc.path + at
            pos = src.key_pos(full) if key else src.pos(full)
            line, col = locate_expr_error(pos, exc)
            raise _Failed(Diagnostic(pos.file, line, col, f"in `{text}`: {exc.message}",
                                     hint=exc.hint)) from None
        return self.guard(at, f"`{text}`", lambda: fn(self.state, {}))

    def guard(self, at: Path_, what: str, run: Any) -> Any:
        try:
            with budget.limit(budget.WORK_PER_CALL, what):
                return run()
        except RulekitError as exc:
            raise self.fail(at, f"{what}: {exc}") from None
        except RUNTIME_ERRORS as exc:
            raise self.fail(at, f"{what} failed: {type(exc).__name__}: {exc}") from None


def _last_chance(st: State) -> int:
    return max(i for i, e in enumerate(st.log) if "chance" in e)


def _tile(item: Any) -> list[int] | None:
    """`a|b` or `[a, b]` as a pair of whole numbers."""
    if isinstance(item, str) and item.count("|") == 1:
        a, b = item.split("|")
        if a.strip().isdigit() and b.strip().isdigit() and len(item) < 20:
            return [int(a), int(b)]
    if (isinstance(item, list) and len(item) == 2
            and all(type(x) is int for x in item)):
        return list(item)
    return None


def _now(st: State) -> str:
    if st.is_over:
        return f"the game is over ({st.end_reason})"
    if st.is_chance:
        return "a chance step is due"
    return f"a decision of seat {st.current_player}"


def _plain(value: Any) -> Any:
    """A value of the game as plain data: lists, numbers, text (a tile as `a|b`)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def _show(value: Any) -> str:
    return json.dumps(_plain(value), ensure_ascii=False)
