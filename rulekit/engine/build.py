"""From a checked document to a Game: components built, expressions and flow compiled.

Every problem found here becomes a located diagnostic; the builder collects them
all before it gives up, so a designer sees every mistake of a file at once.
"""

from __future__ import annotations

import difflib
import math
import time
from collections.abc import Callable
from typing import Any

import rulekit.components  # noqa: F401  (registers the kinds)
from rulekit.backends import codegen, flowgen, pysource
from rulekit.components.base import REGISTRY, Kind
from rulekit.components.fixed import LOAD_ERRORS, fixed_value, for_players
from rulekit.engine import labels
from rulekit.engine import steps as S
from rulekit.errors import Diagnostic, GameFileError
from rulekit.expr import (
    ANY,
    BOOL,
    INT,
    NUM,
    STR,
    Compiled,
    ExprError,
    Global,
    ListT,
    ObjT,
    Scope,
    Type,
    budget,
    compile_bindings,
    compile_expr,
    compile_template,
)
from rulekit.expr.budget import charge
from rulekit.spec.source import Path_, Pos, Source

_VAR_TYPES = {bool: BOOL, int: INT, float: NUM, str: STR}

#: how long compiling a game file may take; the shipped games take a tenth of a second
LOAD_SECONDS = 5.0

#: the keys a step may have besides its main key
STEP_MODIFIERS = {"if": ("then", "else"), "for": ("do",), "repeat": ("do",), "choose": (),
                  "together": ()}

#: the flow's own step keys
FLOW_KEYS = ["choose", "together", "if", "for", "repeat", "break", "next_player", "run", "let",
             "set", "add", "say"]


def _all_effects() -> dict[str, tuple[type[Kind], Any]]:
    out = {}
    for cls in REGISTRY.values():
        for name, eff in cls.effects.items():
            out[name] = (cls, eff)
    return out


def _all_chances() -> dict[str, type[Kind]]:
    return {name: cls for cls in REGISTRY.values() for name in cls.chances}


def keywords_short() -> list[str]:
    """The flow's own step keys, for hints (the kinds' effects are listed in the docs)."""
    return [*FLOW_KEYS, *sorted(_all_chances()), "or an effect of a component"]


def step_keywords() -> list[str]:
    """Every main key a step may have: the flow's own and those the kinds offer."""
    return [*FLOW_KEYS, *_all_chances(), *_all_effects()]


class Builder:
    """Compiles the parts of one document, collecting diagnostics."""

    def __init__(self, src: Source, params: dict[str, Any]) -> None:
        self.src = src
        self.params = params
        self.diags: list[Diagnostic] = []
        self.path: Path_ = ()
        self.deadline = time.monotonic() + LOAD_SECONDS

    def _in_time(self, path: Path_) -> None:
        """Stop a load that takes too long: a file of many thousand expressions."""
        if time.monotonic() > self.deadline:
            raise GameFileError([self.src.diag(
                path, f"loading took more than {LOAD_SECONDS:g} s, at this expression",
                "a game file holds rules: thousands of expressions are more than any game needs")])

    # ---- reporting ---------------------------------------------------------------------------
    def error(self, path: Path_, message: str, hint: str | None = None,
              key: bool = False) -> None:
        """Report a problem at the node at path (with `key`: at the key naming it)."""
        self.diags.append(self.src.diag(path, message, hint or self._section_hint(path), key))

    def _section_hint(self, path: Path_) -> str:
        """Where the format describes the part at `path`, for errors without a hint of their own."""
        if len(path) >= 2 and path[0] == "components":
            conf = (self.src.data.get("components") or {}).get(path[1])
            kind = conf.get("kind") if isinstance(conf, dict) else None
            if kind:
                return f"the kind `{kind}` is described in docs/format.md, Components"
        section = {"params": "Params", "vars": "Variables", "flow": "The flow",
                   "triggers": "Triggers", "end": "End and score", "score": "End and score",
                   "levels": "Levels"}.get(str(path[0]) if path else "", "Top level")
        return f"see docs/format.md, {section}"

    def unknown(self, path: Path_, what: str, name: str, known: list[str],
                key: bool = False) -> None:
        close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1)
        hint = f"did you mean '{close[0]}'?" if close else (
            f"known: {', '.join(map(str, known))}" if known else None)
        self.error(path, f"unknown {what} '{name}'", hint, key)

    def where(self, path: Path_) -> str:
        p = self.src.pos(path)
        return f"{p.file}:{p.line}:{p.col}"

    def _expr_error(self, path: Path_, text: str, exc: ExprError, key: bool = False) -> None:
        pos = self.src.key_pos(path) if key else self.src.pos(path)
        line, col = locate_expr_error(pos, exc)
        hint = exc.hint or "the expression language is described in docs/format.md, Expressions"
        self.diags.append(Diagnostic(pos.file, line, col, f"in expression `{_short(text)}`: "
                                     f"{exc.message}", _fmt(path), hint))

    # ---- compiling ---------------------------------------------------------------------------
    def expr(self, path: Path_, value: Any, scope: Scope, expect: Type | None = None,
             key: bool = False) -> Compiled | None:
        """Compile the expression at path (with `key`: the expression is the key there)."""
        self._in_time(path)
        text = _as_text(value)
        try:
            return compile_expr(text, scope, expect)
        except ExprError as exc:
            self._expr_error(path, text, exc, key)
            return None

    def fn(self, path: Path_, value: Any, scope: Scope, expect: Type | None = None) -> S.Fn:
        """A compiled function, or a stand-in after an error (the build fails anyway)."""
        c = self.expr(path, value, scope, expect)
        return c.fn if c is not None else _broken

    def template(self, path: Path_, value: Any, scope: Scope) -> S.Fn:
        c = self.compiled_template(path, value, scope)
        return c.fn if c is not None else _broken

    def compiled_template(self, path: Path_, value: Any, scope: Scope) -> Compiled | None:
        self._in_time(path)
        text = _as_text(value)
        try:
            return compile_template(text, scope)
        except ExprError as exc:
            self._expr_error(path, text, exc)
            return None

    def bindings(self, path: Path_, value: Any, scope: Scope) -> tuple[Callable | None, Scope]:
        self._in_time(path)
        text = _as_text(value)
        try:
            return compile_bindings(text, scope)
        except ExprError as exc:
            self._expr_error(path, text, exc)
            return None, scope


def locate_expr_error(pos: Pos, exc: ExprError) -> tuple[int, int]:
    """The line and column in the file of an error inside the expression written at pos."""
    if pos.style in ("|", ">"):
        return pos.line + exc.line, pos.col + 2
    if exc.line > 1:
        return pos.line + exc.line - 1, exc.column
    return pos.line, pos.col + (1 if pos.style in ('"', "'") else 0) + exc.column - 1


def _broken(st: Any, env: dict) -> Any:
    raise AssertionError("a game with compile errors cannot run")


def _json_kind(value: Any) -> str:
    return "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) \
        else repr(value)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _fmt(path: Path_) -> str:
    from rulekit.spec.source import format_path

    return format_path(path)


class PlayerBase:
    """A seat as expressions see it (`player`, `active`, `players[i]`)."""

    __slots__ = ("st", "seat", "vars", "_views")

    def __init__(self, st: Any, seat: int) -> None:
        self.st = st
        self.seat = seat
        self.vars = st.pvars[seat]
        self._views: dict[int, Any] = {}

    @property
    def is_active(self) -> bool:
        return self.st.active == self.seat

    @property
    def is_start(self) -> bool:
        return self.st.start == self.seat

    def view_of(self, kind: Kind) -> Any:
        """This player's view of a per-player component, made once per state."""
        v = self._views.get(kind.index)
        if v is None:
            v = self._views[kind.index] = kind.player_view(self.st, self.seat)
        return v

    def _rebind(self, st: Any) -> PlayerBase:
        return st.players[self.seat]

    def __str__(self) -> str:
        return f"player {self.seat}"

    def __repr__(self) -> str:
        return f"<player {self.seat}>"


#: names every player has: its own attributes and Python's; no variable or component takes them
PLAYER_NAMES = frozenset(dir(PlayerBase)) | {"seat", "is_active", "is_start", "st", "vars"}
#: the part of the game a turn change changes (`turn`, `round`, `active`, `phase`): not a
#: name a game file can give anything
TURN = " turn"
#: names expressions know in every game
GLOBAL_NAMES = frozenset({"players", "active", "turn", "round", "phase", "player_count", "params",
                          "player"})


def _var_prop(name: str) -> property:
    return property(lambda self: self.vars[name])


class _ViewAttr:
    """A player's view of a per-player component (`player.hand`): made at the first read,
    then kept in the player's own attributes, so that later reads call nothing (a player,
    like its views, belongs to one state)."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def __get__(self, player: PlayerBase | None, owner: type) -> Any:
        if player is None:
            return self
        view = player.view_of(self.kind)
        player.__dict__[self.kind.name] = view
        return view


def _define_prop(fn: S.Fn) -> property:
    local = budget.LOCAL

    def get(self: PlayerBase) -> Any:
        # a read of a value worked out already is a lookup, paid for by the loop or the
        # expression that reads it; working it out costs a unit besides its own loops
        # (charge(1) written out: this runs for every define worked out)
        st = self.st
        key = (fn, self.seat)
        hit = st._defs.get(key)
        if hit is not None and hit[0] == st._version:
            return hit[1]
        m = local.m  # this thread's meter
        m.left -= 1
        if m.left < 0:
            charge(0)
        value = fn(st, {"player": self})
        st._defs[key] = (st._version, value)
        return value

    return property(get)


def _define_global(fn: S.Fn) -> Callable[[Any], Any]:
    local = budget.LOCAL

    def get(st: Any) -> Any:
        hit = st._defs.get(fn)
        if hit is not None and hit[0] == st._version:
            return hit[1]
        m = local.m  # this thread's meter (see _define_prop)
        m.left -= 1
        if m.left < 0:
            charge(0)
        value = fn(st, {})
        st._defs[fn] = (st._version, value)
        return value

    return get


class GameBuild:
    """The compiled parts a Game is made of."""

    def __init__(self, src: Source, params: dict[str, Any]) -> None:
        self.src = src
        self.b = Builder(src, params)
        self.params = params
        self.data = src.data
        self.runs: list[tuple[Path_, S.Run]] = []
        self.private_lines = False
        self.procs: dict[str, tuple[S.Step, ...]] = {}
        #: every step compiled, in the order it was (a block's steps before the block)
        self.all_steps: list[S.Step] = []
        self.kinds: dict[str, Kind] = {}
        #: the source of every generated function, for `rulekit compile`
        self.generated: list[str] = []
        #: a bit for each part of the game (variable, component) that checks read; bit 1
        #: is the start of the game, which no step writes
        self.bits: dict[str, int] = {"": 1}
        #: how many `repeat`s enclose the steps being compiled (a `break` needs one)
        self.loops = 0
        end = self.data.get("end")
        #: `end: {check: effects}`: the end is checked between the steps of an action too
        self.check_effects = isinstance(end, dict) and end.get("check") == "effects"

    def param_lengths(self) -> None:
        """A list param's `length:` (a number, or an expression of the other params) is
        checked against its value, where the value is written (a variant's line)."""
        decls = self.data.get("params") or {}
        for name, decl in decls.items():
            value = self.params.get(name)
            if not isinstance(decl, dict) or "length" not in decl or not isinstance(value, list):
                continue
            n = fixed_value(self.b, ("params", name, "length"), decl["length"], INT)
            if isinstance(n, int) and len(value) != n:
                doc = f", {decl['doc']}" if decl.get("doc") else ""
                given = "" if value == decl.get("default") else "the value set: "
                self.b.error(("params", name, "default") if not given else ("params", name),
                             f"{given}param '{name}' needs {n} values{doc}; got {len(value)}",
                             f"its length is {decl['length']}")

    def build(self) -> dict[str, Any]:
        with pysource.gathering(self.generated):  # the expressions' helpers, shown too
            return self._build()

    def _build(self) -> dict[str, Any]:
        b, data = self.b, self.data
        self.param_lengths()
        out: dict[str, Any] = {"params": self.params}
        players = data.get("players", {})
        out["min_players"] = players.get("min", 1)
        out["max_players"] = players.get("max", out["min_players"])
        if out["min_players"] > out["max_players"]:
            b.error(("players",), "players: min is greater than max",
                    "write the smaller count as min, e.g. players: {min: 2, max: 4}")

        # variables
        gvar_init, pvar_init, resets_p, resets_g = {}, {}, [], []
        gvar_types, pvar_types = {}, {}
        secret: list[str] = []
        for name, decl in (data.get("vars") or {}).items():
            init = decl.get("init", 0)
            t = _VAR_TYPES.get(type(init), ANY)
            if not self.name_is_free(("vars", name), decl.get("per") == "player"):
                continue
            if decl.get("secret") and decl.get("per") != "player":
                b.error(("vars", name, "secret"), "only a player's variable can be secret: "
                        "its owner alone sees it", "add per: player")
            if decl.get("per") == "player":
                if decl.get("secret"):
                    secret.append(name)
                pvar_init[name], pvar_types[name] = init, t
                if decl.get("reset") == "turn":
                    resets_p.append((name, init))
            else:
                gvar_init[name], gvar_types[name] = init, t
                if decl.get("reset") == "turn":
                    resets_g.append((name, init))
        out.update(gvar_init=gvar_init, pvar_init=pvar_init, turn_resets_player=resets_p,
                   turn_resets_game=resets_g, secret_vars=frozenset(secret))

        # components: declare types first, compile their expressions once all names exist
        kinds: list[Kind] = []
        for name, conf in (data.get("components") or {}).items():
            cls = REGISTRY.get(conf.get("kind"))
            if cls is None:
                b.unknown(("components", name, "kind"), "component kind", conf.get("kind"),
                          sorted(REGISTRY))
                continue
            if not self.name_is_free(("components", name), conf.get("per") == "player"):
                continue
            kind = cls(name, conf, conf.get("per") == "player", len(kinds))
            b.path = ("components", name)
            kind.declare(b)
            kinds.append(kind)
        out["components"] = kinds
        clash = set(gvar_types) & {k.name for k in kinds}
        clash |= set(pvar_types) & {k.name for k in kinds if k.per_player}
        for name in sorted(clash):
            b.error(("vars", name), f"'{name}' is both a variable and a component",
                    "rename one of them")

        player_t = ObjT("Player", {"seat": INT, "is_active": BOOL, "is_start": BOOL})
        player_t.attrs.update(pvar_types)
        player_t.printable = True  # "player 1"
        # what reading an attribute of a player depends on: whose turn it is cannot be told
        player_t.reads.update(is_active=None, is_start=None)
        ns: dict[str, Any] = {}
        for name in pvar_init:
            ns[name] = _var_prop(name)
            player_t.reads[name] = frozenset((name,))
            player_t.stored[name] = "vars"
        for kind in kinds:
            if kind.per_player:
                t = kind.player_type()
                if t is not None:
                    player_t.attrs[kind.name] = t
                    player_t.reads[kind.name] = frozenset((kind.name,))
                    ns[kind.name] = _ViewAttr(kind)
        self.player_t = player_t
        b.player_t = player_t
        b.compile_steps = self.steps
        self.kinds = {k.name: k for k in kinds}

        # the players and their count are fixed for a game: a check that reads them (a
        # trigger `for p in players`) depends only on what it reads of each player
        fixed = frozenset()
        # who is active, the turn, the round and the phase change when a turn begins (and
        # nothing else changes them): a check that reads them runs then
        moved = frozenset((TURN,))
        globs: dict[str, Global] = {
            "players": Global(ListT(player_t), lambda st: st.players, "st.players", fixed),
            "active": Global(player_t, lambda st: st.players[st.active],
                             "st.players[st.active]", moved),
            "turn": Global(INT, lambda st: st.turn, "st.turn", moved),
            "round": Global(INT, lambda st: st.round, "st.round", moved),
            "phase": Global(STR, lambda st: st.game.phases[st.phase][0], reads=moved),
            "player_count": Global(INT, lambda st: st.n, "st.n", fixed),
        }
        for name, t in gvar_types.items():
            globs[name] = Global(t, lambda st, n=name: st.gvars[n], reads=frozenset((name,)),
                                 var=name)
        for kind in kinds:
            t = kind.global_type()
            if t is not None:
                globs[kind.name] = Global(t, lambda st, i=kind.index: st.gviews[i],
                                          f"st.gviews[{int(kind.index)}]",
                                          frozenset((kind.name,)))
        self.scope = Scope(self.params, globs, {})
        self.pscope = self.scope.with_local("player", player_t, frozenset())
        out["scope"] = self.scope  # kept: tests evaluate their own expressions in it

        # definitions: named expressions, per player (attributes of a player) or global;
        # their checked trees are kept for the flat backend, which writes them inline
        defines: dict[str, tuple[bool, Any]] = {}
        out["defines"] = defines
        for name, decl in (data.get("define") or {}).items():
            path = ("define", name)
            if isinstance(decl, dict):
                per, text, path = decl.get("per"), decl.get("expr"), path + ("expr",)
            else:
                per, text = None, decl
            if (name in player_t.attrs or name in globs or name in GLOBAL_NAMES
                    or (per == "player" and name in PLAYER_NAMES)):
                b.error(("define", name), f"'{name}' is already defined",
                        "a define needs a name of its own: not a variable, component or "
                        "other define")
                continue
            if per == "player":
                c = b.expr(path, text, self.pscope)
                if c is not None:
                    player_t.attrs[name] = c.type
                    player_t.reads[name] = c.reads
                    ns[name] = _define_prop(c.fn)
                    defines[name] = (True, c)
            else:
                c = b.expr(path, text, self.scope)
                if c is not None:
                    defines[name] = (False, c)
                    made = codegen.define_getter(c, b.where(path))
                    if made is not None:
                        self.generated.append(made[1])
                    # both scopes share one dict of globals: the next define sees this one
                    globs[name] = self.scope.globals[name] = Global(
                        c.type, made[0] if made is not None else _define_global(c.fn),
                        reads=c.reads)
        out["player_class"] = type("Player", (PlayerBase,), ns)

        for kind in kinds:
            b.path = ("components", kind.name)
            kind.compile(b, self.scope)

        # the flow
        flow = data.get("flow") or {}
        procs = flow.get("procedures") or {}
        compiled_procs = self.procs
        self.loops = 1  # a procedure may `break` the `repeat` it runs in (checked when run)
        for name, body in procs.items():
            compiled_procs[name] = self.steps(("flow", "procedures", name), body, self.scope)
        self.loops = 0
        out["setup"] = self.steps(("flow", "setup"), flow.get("setup") or [], self.scope)
        self.untils_checked: list = []
        out["phases"] = self.phases(flow)
        out["untils_checked"] = self.untils_checked  # each phase's `until` tree, for flat
        first = flow.get("first_player")
        if first is not None:
            c = b.expr(("flow", "first_player"), first, self.scope)
            if c is not None:
                out["first_player"] = _seat_of(c)
            out["first_player_checked"] = c  # its checked tree, for the flat backend
        else:
            out["first_player"] = out["first_player_checked"] = None

        # triggers, end, score
        triggers = []
        for i, trig in enumerate(data.get("triggers") or []):
            path = ("triggers", i)
            iterate, scope = (None, self.scope)
            if "for" in trig:
                iterate, scope = b.bindings(path + ("for",), trig["for"], self.scope)
            c = b.expr(path + ("when",), trig.get("when"), scope, BOOL)
            cond = c.fn if c is not None else _broken
            body = self.steps(path + ("do",), trig.get("do") or [], scope)
            for s in body:
                if not s.pure:
                    b.error(path + ("do",), "a trigger may only have effects, "
                                            "not decisions or chance steps",
                            "move the decision or chance step into the flow")
            reads = getattr(iterate, "reads", frozenset()) if iterate is not None else frozenset()
            trigger = S.Trigger(iterate, cond, body, b.where(path))
            trigger.mask = self.mask(None if c is None or reads is None or c.reads is None
                                     else reads | c.reads)
            triggers.append(trigger)
            trigger.gen = c
        out["triggers"] = triggers
        self.resolve_runs(compiled_procs)
        inlined: set[int] = set()  # steps that are part of a generated trigger
        for trigger in triggers if not b.diags else ():
            made = codegen.trigger_function(trigger, trigger.iterate, trigger.gen, trigger.where)
            if made is not None:
                trigger.fire, source = made  # type: ignore[method-assign]
                self.generated.append(source)
                inlined.update(id(s) for s in trigger.steps)
        self.generate_steps(inlined)

        end = data.get("end") or {}
        when = end.get("when")
        conds = []
        whens = [(str(r), ("end", "when", r), t) for r, t in when.items()] if isinstance(
            when, dict) else [("end condition", ("end", "when"), when)] if when is not None else []
        checked = []
        for reason, path, text in whens:
            c = b.expr(path, text, self.scope, BOOL)
            conds.append((reason, c.fn if c is not None else _broken,
                          self.mask(c.reads if c is not None else None), b.where(path)))
            checked.append(c)
        out["end_conditions"] = conds
        out["end_checked"] = checked  # the checked trees, for the flat backend
        # every bit some check reads: a change to none of them checks nothing
        check_mask = 0
        for m in [t.mask for t in triggers] + [m for _r, _f, m, _w in conds]:
            check_mask |= m
        out["check_mask"] = check_mask
        out["end_texts"] = self.end_texts(end.get("text"), [r for r, _f, _m, _w in conds])
        out["finish"] = end.get("finish", "now")
        made = None if b.diags else codegen.checks_function(
            triggers, [(*cond, c) for cond, c in zip(conds, checked)], check_mask,
            out["finish"])
        out["after_step"] = made[0] if made is not None else None
        if made is not None:
            self.generated.append(made[1])
        out["check_effects"] = self.check_effects
        score = b.expr(("score",), data.get("score", 0), self.pscope, NUM)
        out["score"] = score.fn if score is not None else _broken
        out["score_checked"] = score
        out["zero_sum"] = bool(data.get("zero_sum", False))
        out["score_where"] = b.where(("score",))
        # what the end adds, in named parts: part of the score once the game is over
        at_end = end.get("score")
        parts = at_end.items() if isinstance(at_end, dict) else [
            (AT_END, at_end)] if at_end is not None else []
        checked = [(str(name), b.expr(path, value, self.pscope, NUM), b.where(path))
                   for name, value in parts
                   for path in [("end", "score") + ((name,) if name != AT_END else ())]]
        out["end_score"] = [(name, c.fn if c is not None else _broken, where)
                            for name, c, where in checked]
        # their checked trees, for the flat backend, which writes the final scores out
        out["end_score_checked"] = [c for _name, c, _where in checked]
        if parts:
            out["score"] = _plus_at_end(out["score"], [fn for _n, fn, _w in out["end_score"]])
        out["score_bounds"] = self.score_bounds(out["min_players"], out["max_players"])
        #: each part's bit in the steps' `writes` (filled in as the steps compile)
        out["part_bits"] = self.bits

        # what `rulekit play` shows besides the components: lines of the game, of each player
        display = data.get("display") or {}
        for part, scope in (("game", self.scope), ("player", self.pscope),
                            ("summary", self.pscope), ("private", self.pscope)):
            lines = display.get(part) or []
            paths = [("display", part)] if isinstance(lines, str) else [
                ("display", part, i) for i in range(len(lines))]
            lines = [lines] if isinstance(lines, str) else lines
            out[f"display_{part}"] = [(b.template(p, text, scope), b.where(p))
                                      for p, text in zip(paths, lines)]
        out["generated"] = self.generated
        out["private_lines"] = self.private_lines  # `say: {to: ...}`: the log has secrets
        # variables reset at each turn change without a step: they count as changed
        out["turn_reset_mask"] = self.changes(frozenset(
            name for name, _v in out["turn_resets_player"] + out["turn_resets_game"]))
        # a turn beginning (and the variables it resets), where a check reads what it
        # changes: checked before its first step (0: nothing to check, no check called)
        out["turn_mask"] = (self.changes(frozenset((TURN,))) | out["turn_reset_mask"]
                            ) & check_mask
        # one phase without an end and nothing reset: the next turn is the next seat's
        out["plain_turns"] = (len(out["phases"]) == 1 and out["phases"][0][2] is None
                              and not out["turn_resets_player"]
                              and not out["turn_resets_game"])
        # last: the turns call the steps' and options' generated functions made above
        made = None if b.diags else flowgen.turns_function(
            out["phases"], self.check_effects, out["after_step"])
        out["turns"] = made[0] if made is not None else None
        out["turn_bounds"] = flowgen.turn_bounds(out["phases"], out["min_players"],
                                                 out["max_players"]) if made else {}
        if made is not None:
            self.generated.append(made[1])
        return out

    def end_texts(self, text: Any, reasons: list[str]) -> dict[str, tuple[S.Fn, str]]:
        """`end.text`: per end condition, the sentence that tells a person why the game
        ended (a template; one string when `when` is one expression)."""
        b = self.b
        if text is None:
            return {}
        if not isinstance(text, dict):
            return {reasons[0]: (b.template(("end", "text"), text, self.scope),
                                 b.where(("end", "text")))} if reasons else {}
        out = {}
        for reason, value in text.items():
            path = ("end", "text", reason)
            if str(reason) not in reasons:
                b.unknown(path, "end condition", str(reason), reasons, key=True)
                continue
            out[str(reason)] = (b.template(path, value, self.scope), b.where(path))
        return out

    def score_bounds(self, lo: int, hi: int) -> dict[int, tuple[Any, Any]]:
        """`score_bounds`: the least and most score by player count, worked out at load.

        They depend on params and the player count only, so each is a number per count
        the game allows; a bound that is absent is None.
        """
        b = self.b
        decl = self.data.get("score_bounds") or {}
        scope = Scope(self.params, {"player_count": Global(INT, lambda st: st.n)})
        fns = {}
        for key in ("min", "max"):
            if key in decl:
                c = b.expr(("score_bounds", key), decl[key], scope, NUM)
                if c is None:
                    return {}
                fns[key] = c.fn
        out: dict[int, tuple[Any, Any]] = {}
        for n in range(lo, max(lo, hi) + 1):
            bounds = []
            for key in ("min", "max"):
                if key not in fns:
                    bounds.append(None)
                    continue
                try:
                    value = for_players(fns[key], n)
                except LOAD_ERRORS as exc:
                    b.error(("score_bounds", key), f"score_bounds.{key} with {n} players: {exc}",
                            "it may use params and player_count only")
                    return {}
                # an operand of unknown type can slip a text or an infinity past the types
                if (not isinstance(value, (int, float)) or isinstance(value, bool)
                        or not math.isfinite(value)):
                    shown = (repr(value)[:40] if isinstance(value, (str, float))
                             else f"a {type(value).__name__}")
                    b.error(("score_bounds", key), f"score_bounds.{key} with {n} players is "
                            f"{shown}, not a finite number", "write a number, or an expression "
                            "of params and player_count that gives one")
                    return {}
                bounds.append(value)
            if bounds[0] is not None and bounds[1] is not None and bounds[0] > bounds[1]:
                b.error(("score_bounds",), f"score_bounds: min {bounds[0]} is greater than max "
                        f"{bounds[1]} with {n} players", "swap them, or check the params")
                return {}
            out[n] = (bounds[0], bounds[1])
        return out

    def mask(self, reads: frozenset[str] | None) -> int:
        """The bits of the game's parts a check reads (-1, every bit, when they cannot be
        told), and bit 1, the game's start: every check runs at the first check of a game.

        A step marks the bits of what it changes (`changes`), and a trigger or end
        condition is checked after a step only when it reads a part that changed: its
        value cannot have changed otherwise. With generated code off, every check runs
        after every change.
        """
        return self.changes(reads) | 1

    def changes(self, parts: frozenset[str] | None) -> int:
        """The bits of the game's parts a step may change (-1: any)."""
        if parts is None or not codegen.ENABLED:
            return -1
        m = 0
        for name in parts:
            bit = self.bits.get(name)
            if bit is None:
                bit = self.bits[name] = 1 << len(self.bits)
            m |= bit
        return m

    def name_is_free(self, path: Path_, per_player: bool) -> bool:
        """Whether a variable or component may take the name at path; reports it if not."""
        name = path[-1]
        if name in GLOBAL_NAMES or (per_player and name in PLAYER_NAMES):
            whose = "every player" if per_player and name in PLAYER_NAMES else "the game"
            self.b.error(path, f"'{name}' is a name {whose} has already",
                         f"pick another name (taken: {', '.join(sorted(GLOBAL_NAMES))}, and "
                         "for a player seat, is_active, is_start)", key=True)
            return False
        return True

    def phases(self, flow: dict) -> list[tuple[str, tuple[S.Step, ...], S.Fn | None]]:
        """The phases in order: a name, what a turn does, and when the phase is over.

        `flow: turn:` is a game of one phase; `flow: phases:` lists several, each with its
        own turn; when a phase's `until` holds after a turn, the next phase begins.
        """
        b = self.b
        if "phases" in flow and "turn" in flow:
            b.error(("flow", "phases"), "a flow has either `turn:` (one phase) or `phases:`",
                    "move the turn into a phase")
        if "phases" not in flow:
            steps = self.steps(("flow", "turn"), flow.get("turn") or [], self.scope)
            if not steps:
                b.error(("flow",), "the flow has no turn steps",
                        "write what a turn does under flow: turn:, e.g. - roll: dice")
            return [("main", steps, None)]
        out = []
        items = flow.get("phases") or []
        for i, phase in enumerate(items):
            path = ("flow", "phases", i)
            name = str(phase.get("name", f"phase {i + 1}"))
            steps = self.steps(path + ("turn",), phase.get("turn") or [], self.scope)
            if not steps:
                b.error(path, f"phase '{name}' has no turn steps")
            until = c = None
            if "until" in phase:
                c = b.expr(path + ("until",), phase["until"], self.scope, BOOL)
                until = c.fn if c is not None else _broken
            elif i < len(items) - 1:
                b.error(path, f"phase '{name}' never ends, so the phases after it are "
                              "unreachable", "add `until: CONDITION`")
            out.append((name, steps, until))
            self.untils_checked.append(c)
        if not out:
            b.error(("flow", "phases"), "there must be at least one phase")
        return out

    def resolve_runs(self, procs: dict[str, tuple[S.Step, ...]]) -> None:
        """Point every `run:` at its procedure; a run whose procedure only has effects runs inline.

        Purity is found as a fixed point from "impure", so a procedure that runs itself
        stays on the stack machine, where the step budget stops it.
        """
        for path, run in self.runs:
            if run.name not in procs:
                self.b.unknown(path, "procedure", run.name, list(procs))
            else:
                run.steps = procs[run.name]
        changed = True
        while changed:
            changed = False
            for _path, run in self.runs:
                if not run.pure and run.steps and all(s.pure for s in run.steps):
                    run.pure = changed = True

    # ---- steps -------------------------------------------------------------------------------
    def steps(self, path: Path_, items: Any, scope: Scope) -> tuple[S.Step, ...]:
        if not isinstance(items, list):
            items = [items]
        out = []
        for i, item in enumerate(items):
            if (isinstance(item, dict) and set(item) == {"run"} and isinstance(item["run"], str)
                    and item["run"] in self.procs):
                # a procedure compiled already is spliced in: no frame to push at run time
                out.extend(self.procs[item["run"]])
                continue
            if isinstance(item, dict) and "let" in item:
                extra = [k for k in item if k != "let"]
                if extra:
                    self.b.error(path + (i, extra[0]), f"'{extra[0]}' does not belong to a "
                                 "`let` step", "a `let` step only names values: put the rest "
                                 "in steps of their own", key=True)
                entry = scope
                step, scope = self.let_step(path + (i, "let"), item["let"], scope)
            else:
                entry = scope
                step = self.step(path + (i,), item, scope)
            if step is not None:
                step.where = self.b.where(path + (i,))
                step.scope = entry
                out.append(step)
                self.all_steps.append(step)
        return tuple(out)

    def generate_steps(self, done: set[int]) -> None:
        """Every outermost step that only has effects as generated code, where it can be:
        a step inside an if or a loop is part of its block's function, or gets its own
        when the block has a part without source form. Steps in `done` are left as they are."""
        if self.b.diags:
            return
        inner = {id(c) for s in self.all_steps
                 for c in (getattr(s, "then", ()) + getattr(s, "other", ())
                           + getattr(s, "body", ()))}

        def generate(step: S.Step) -> None:
            if id(step) in done:
                return
            done.add(id(step))
            made = codegen.step_function(step, step.where)
            if made is not None:
                step.run, source = made  # type: ignore[method-assign]
                self.generated.append(source)
                return
            for c in getattr(step, "then", ()) + getattr(step, "other", ()) + getattr(
                    step, "body", ()):
                generate(c)

        for step in self.all_steps:
            if id(step) not in inner:
                generate(step)

    def let_step(self, path: Path_, value: Any, scope: Scope) -> tuple[S.Step | None, Scope]:
        """`let: {NAME: EXPR}` names values for the steps after it, in the same list."""
        if not isinstance(value, dict) or not value:
            self.b.error(path, "`let` takes a mapping NAME: expression",
                         'for example let: {n: "dice.d1 + dice.d2"}')
            return None, scope
        lets = []
        gen = []
        for name, text in value.items():
            c = self.b.expr(path + (name,), text, scope)
            if c is not None:
                lets.append((str(name), c.fn))
                scope = scope.with_local(str(name), c.type, c.reads)
                gen.append((str(name), c, scope.pynames[str(name)]))
        step = S.Let(lets)
        step.gen = gen
        return step, scope

    def step(self, path: Path_, item: Any, scope: Scope) -> S.Step | None:
        b = self.b
        if not isinstance(item, dict):
            b.error(path, "a step must be a mapping such as `roll: dice`",
                    f"steps: {', '.join(keywords_short())}")
            return None
        keywords = step_keywords()
        mains = [k for k in item if k in keywords]
        if len(mains) != 1:
            if not mains:
                unknown = [k for k in item if k not in ("then", "else", "do")]
                if unknown:
                    b.unknown(path + (unknown[0],), "step", unknown[0], keywords, key=True)
                else:
                    b.error(path, "this step has no action key",
                            f"steps: {', '.join(keywords_short())}")
            else:
                b.error(path, f"a step has one action key, this one has {', '.join(mains)}",
                        "split it into several steps")
            return None
        key = mains[0]
        extra = [k for k in item if k != key and k not in STEP_MODIFIERS.get(key, ())]
        if extra:
            allowed = STEP_MODIFIERS.get(key, ())
            b.error(path + (extra[0],), f"'{extra[0]}' does not belong to a `{key}` step",
                    f"a `{key}` step takes {', '.join(allowed)} besides `{key}`" if allowed
                    else "one action per step: split it into several steps", key=True)
        value = item[key]
        p = path + (key,)
        if key == "if":
            c = b.expr(p, value, scope, BOOL)
            then = self.steps(path + ("then",), item.get("then") or [], scope)
            other = self.steps(path + ("else",), item.get("else") or [], scope)
            step = S.If(c.fn if c is not None else _broken, then, other)
            step.gen = c
            return step
        if key == "for":
            iterate, inner = b.bindings(p, value, scope)
            body = self.steps(path + ("do",), item.get("do") or [], inner)
            step = S.ForEach(iterate or (lambda st, env: ()), body)
            step.gen = iterate
            return step
        if key == "repeat":
            return self.repeat_step(path, value, item.get("do") or [], scope)
        if key == "break":
            if value is not True:
                b.error(p, "`break` takes `true`: `break: true` ends the innermost `repeat`")
                return None
            if not self.loops:
                b.error(p, "`break` is not inside a `repeat`",
                        "put it in the steps (`do:`) of a `repeat`, or in a procedure run there")
                return None
            return S.Break()
        if key == "next_player":
            who = b.expr(p, value, scope)
            if who is None:
                return None
            if who.type is not self.player_t and who.type is not INT and who.type is not ANY:
                b.error(p, f"`next_player` takes a player or a seat, got {who.type.name}",
                        "for example next_player: active (an extra turn)")
                return None
            step = S.NextPlayer(who.fn)
            step.gen = who  # its checked tree, for the flat backend
            return step
        if key in _all_chances() and isinstance(value, dict):
            return self.targeted_chance(p, key, value, scope)
        if key in ("run", *_all_chances()) and not isinstance(value, str):
            what = "a procedure" if key == "run" else "a component"
            b.error(p, f"`{key}` takes the name of {what}, not {_json_kind(value)}",
                    f"for example {key}: {'scoring' if key == 'run' else 'dice'}")
            return None
        if key == "run":
            run = S.Run(str(value))
            self.runs.append((p, run))
            return run
        if key in ("set", "add"):
            return self.set_step(p, value, scope, key == "add")
        if key == "say":
            to_c = None
            if isinstance(value, dict):  # a private line: {to: PLAYER, text: TEMPLATE}
                self.private_lines = True
                to_c = b.expr(p + ("to",), value.get("to"), scope, self.player_t)
                text = b.compiled_template(p + ("text",), value.get("text"), scope)
            else:
                text = b.compiled_template(p, value, scope)
            step = S.Say(text.fn if text is not None else _broken,
                         None if to_c is None else to_c.fn)
            if isinstance(value, dict) and to_c is None:
                step.to = _broken
            step.gen = (text, to_c)
            return step
        if key in ("choose", "together"):
            return self.choose(p, value, scope, key == "together")
        if key in _all_chances():
            kind = self.kinds.get(value)
            if kind is None:
                b.unknown(p, "component", value, list(self.kinds))
                return None
            chance = type(kind).chances.get(key)
            if chance is None:
                kinds = sorted(c.kind for c in REGISTRY.values() if key in c.chances)
                b.error(p, f"component '{value}' ({kind.kind}) cannot be used with `{key}`",
                        f"`{key}` takes a component of the kind {', '.join(kinds)}")
                return None
            if kind.per_player and chance.target:
                b.error(p, f"'{value}' belongs to each player: say whose is meant",
                        f"for example {key}: {{{chance.target}: player.{value}}}")
                return None
            step = S.ChanceStep(key, kind.index, chance)
            step.writes = self.changes(frozenset((kind.name,)))
            return step
        return self.effect(p, key, value, scope)

    def targeted_chance(self, path: Path_, key: str, value: dict, scope: Scope) -> S.Step | None:
        """A chance step's mapping form: `roll: {dice: EXPR, only: EXPR}`, the component
        given by an expression (a player's dice, one of several) and the kind's arguments."""
        b = self.b
        kinds = [c for c in REGISTRY.values() if key in c.chances and c.chances[key].target]
        if not kinds:
            b.error(path, f"`{key}` takes the name of a component, not a mapping",
                    f"for example {key}: dice")
            return None
        chance = kinds[0].chances[key]
        allowed = [chance.target, *chance.args]
        for arg in value:
            if arg not in allowed:
                b.unknown(path + (arg,), f"argument of `{key}`", arg, allowed, key=True)
        if chance.target not in value:
            b.error(path, f"`{key}` needs {chance.target}: the component, as an expression",
                    f"for example {key}: {{{chance.target}: player.{chance.target}}}")
            return None
        target = b.expr(path + (chance.target,), value[chance.target], scope)
        if target is None:
            return None
        if getattr(target.type, "name", None) != chance.target_type:
            b.error(path + (chance.target,), f"`{key}` needs {chance.target_type} as "
                    f"{chance.target}, got {target.type.name}",
                    f"name a component (or a player's component) of the kind that offers `{key}`")
            return None
        component = next((k for k in self.kinds.values() if isinstance(k, kinds[0])), None)
        if component is None:
            return None
        args = []
        trees = []
        for a, t in chance.args.items():
            c = b.expr(path + (a,), value[a], scope, t) if a in value else None
            args.append(c.fn if c is not None else None)
            trees.append(c)
        step = S.TargetedChance(key, component.index, chance, target.fn, args)
        step.writes = self.changes(target.reads)
        # the checked trees, for the flat backend (an argument not given: None)
        step.gen = (target, trees)
        return step

    def repeat_step(self, path: Path_, value: Any, body: Any, scope: Scope) -> S.Step | None:
        """`repeat: {while: C, until: C, max: N}` with `do: [steps]`: a bounded loop."""
        b = self.b
        p = path + ("repeat",)
        if not isinstance(value, dict):
            b.error(p, "`repeat` takes a mapping: while, until, max (each optional)",
                    "for example repeat: {until: \"turn_total >= 20\", max: 100}")
            return None
        # the checked trees are kept for the flat backend (None: not given)
        trees = {k: b.expr(p + (k,), value[k], scope, t) if k in value else None
                 for k, t in (("while", BOOL), ("until", BOOL), ("max", INT))}
        conds = [(c.fn if c is not None else _broken) if k in value else None
                 for k, c in (("while", trees["while"]), ("until", trees["until"]))]
        cap = ((trees["max"].fn if trees["max"] is not None else _broken) if "max" in value
               else (lambda st, env: S.DEFAULT_REPEAT_MAX))
        if not body:
            b.error(path, "a `repeat` needs steps to repeat", "add do: [steps]")
        self.loops += 1
        try:
            steps = self.steps(path + ("do",), body, scope)
        finally:
            self.loops -= 1
        step = S.Repeat(steps, cap, *conds)
        step.gen = (trees["max"], trees["while"], trees["until"])
        return step

    def set_step(self, path: Path_, value: Any, scope: Scope, add: bool) -> S.Step | None:
        b = self.b
        if not isinstance(value, dict) or len(value) != 1:
            b.error(path, "expected one `NAME: value` (a variable, or PLAYER.variable)",
                    "for example add: {active.points: 1}")
            return None
        (target, expr), = value.items()
        target = str(target)
        who_text, _, var = target.rpartition(".")
        vpath = path + (target,)
        decl = (self.data.get("vars") or {}).get(var) or {}
        var_t = _VAR_TYPES.get(type(decl.get("init", 0)), ANY)
        expect = NUM if add or var_t is INT else var_t
        if not who_text:
            t = self.data.get("vars", {}).get(var)
            if t is None or t.get("per") == "player":
                known = [n for n, d in (self.data.get("vars") or {}).items()
                         if d.get("per") != "player"]
                b.unknown(vpath, "game variable", var, known, key=True)
                return None
            c = b.expr(vpath, expr, scope, expect)
            step = S.SetVar(var, None, c.fn if c is not None else _broken, add)
            step.writes = self.changes(frozenset((var,)))
            step.gen = (None, c)
            return step
        who = b.expr(vpath, who_text, scope, key=True)
        if who is None:
            return None
        if who.type is not self.player_t and who.type is not ANY:
            b.error(vpath, f"'{who_text}' is not a player",
                    "a player variable is set on a player: active.NAME, player.NAME, p.NAME",
                    key=True)
            return None
        decl = (self.data.get("vars") or {}).get(var)
        if decl is None or decl.get("per") != "player":
            known = [n for n, d in (self.data.get("vars") or {}).items()
                     if d.get("per") == "player"]
            b.unknown(vpath, "player variable", var, known, key=True)
            return None
        c = b.expr(vpath, expr, scope, expect)
        step = S.SetVar(var, who.fn, c.fn if c is not None else _broken, add)
        step.writes = self.changes(frozenset((var,)))
        step.gen = (who, c)
        return step

    def effect(self, path: Path_, key: str, value: Any, scope: Scope) -> S.Step | None:
        b = self.b
        found = _all_effects().get(key)
        if found is None:  # not reached through `step`, which knows every key; kept safe
            b.unknown(path, "step", key, step_keywords(), key=True)
            return None
        _cls, eff = found
        if not isinstance(value, dict):
            args = ", ".join(f"{a}: ..." for a in [eff.target, *eff.args])
            b.error(path, f"`{key}` takes a mapping: {', '.join([eff.target, *eff.args])}",
                    f"for example {key}: {{{args}}}")
            return None
        for arg in value:
            if arg != eff.target and arg not in eff.args:
                b.unknown(path + (arg,), f"argument of `{key}`", arg, [eff.target, *eff.args],
                          key=True)
        missing = [a for a in [eff.target, *eff.args] if a not in value and a not in eff.optional]
        if missing:
            add = ", ".join(f"{a}: ..." for a in missing)
            b.error(path, f"`{key}` needs {', '.join(missing)}",
                    f"add {add} to it" + (f" ({eff.doc})" if eff.doc else ""))
            return None
        target = b.expr(path + (eff.target,), value[eff.target], scope)
        if target is None:
            return None
        if target.type is not ANY and getattr(target.type, "name", None) != eff.target_type:
            b.error(path + (eff.target,), f"`{key}` needs a {eff.target_type} as {eff.target}, "
                    f"got {target.type.name}", f"name a component (or a player's component) "
                    f"of the kind that offers `{key}`")
        args = []
        gen = []
        changed = target.reads  # the component the effect acts on, and any it is given
        for a, t in eff.args.items():
            c = b.expr(path + (a,), value[a], scope, t) if a in value else None
            args.append(c.fn if c is not None else (lambda st, env: None))
            gen.append(c)
            if c is not None and isinstance(c.type, ObjT) and c.type.name != "Player":
                changed = None if changed is None or c.reads is None else changed | c.reads
        step = S.Effect(target.fn, eff.method, args)
        step.writes = self.changes(changed)
        step.gen = (target, gen)
        return step

    def choose(self, path: Path_, value: Any, scope: Scope, together: bool) -> S.Step | None:
        b = self.b
        if not isinstance(value, dict):
            b.error(path, "expected a mapping with `options:`",
                    "for example choose: {who: active, pass: pass, options: [...]}")
            return None
        pass_label = value.get("pass")
        if pass_label is True:
            pass_label = "pass"
        elif pass_label is False:
            pass_label = None
        options = []
        inner = scope.with_local("player", self.player_t, frozenset())
        items = value.get("options") or []
        made = [self.option(path + ("options", i), opt, inner) for i, opt in enumerate(items)]
        options = [option for option, _parts in made]
        self.generators(made, pass_label)
        if not options and pass_label is None:
            b.error(path, "a decision needs options (or `pass:`)",
                    "add options: with at least one option (for, if, label, do)")
        if together:
            who = value.get("who", "everyone")
            if who != "everyone":
                b.error(path + ("who",), "`together` takes `who: everyone` (every seat, from "
                        "the active player on)")

            orders: dict[tuple[int, int], list[int]] = {}

            def seats(st: Any, env: dict) -> list[int]:
                # every seat from the active player on; a window only reads its order
                key = (st.n, st.active)
                order = orders.get(key)
                if order is None:
                    n, a = key
                    order = orders[key] = [(a + k) % n for k in range(n)]
                return order

            for key in ("none", "auto"):
                if key in value:
                    b.error(path + (key,), f"`{key}:` belongs to `choose`; in `together` a "
                            "seat without options is skipped")
            step: S.Choose = S.Together(seats, options, pass_label)
        else:
            who = b.expr(path + ("who",), value.get("who", "active"), scope)
            none = None
            if "none" in value:
                none = self.steps(path + ("none",), value["none"] or [], scope)
            step = S.Choose(who.fn if who else _broken, options, pass_label, none,
                            bool(value.get("auto", False)))
            # the active player (the default): its seat is read without evaluating `who`
            step.active = who is not None and who.src == "st.players[st.active]"
            step.who_gen = who  # what the flat backend writes out
        if "help" in value:  # what the choices mean, for people (`?` in `rulekit play`)
            step.help = b.template(path + ("help",), value["help"], inner)
        if "title" in value:  # what the decision is, in a line above the choices
            step.title = b.template(path + ("title",), value["title"], inner)
        return step

    def option(self, path: Path_, opt: Any, scope: Scope) -> tuple[S.Option, tuple | None]:
        """The option, and what its generated code is made from (None: the closure path;
        see `generators`)."""
        b = self.b
        outer = scope
        iterate = None
        if "for" in opt:
            iterate, scope = b.bindings(path + ("for",), opt["for"], scope)
        lets: list[tuple[str, Compiled]] = []
        for name, text in (opt.get("let") or {}).items():
            c = b.expr(path + ("let", name), text, scope)
            if c is not None:
                lets.append((str(name), c))
                scope = scope.with_local(str(name), c.type, c.reads)
        cond = b.expr(path + ("if",), opt["if"], scope, BOOL) if "if" in opt else None
        if "label" not in opt:
            b.error(path, "an option needs a `label:`",
                    'the label names the choice, e.g. label: "{row.name} {n}"')
            label = None
        else:
            label = b.compiled_template(path + ("label",), opt["label"], scope)
        steps = self.steps(path + ("do",), opt.get("do") or [], scope)
        option = S.Option(iterate, [(n, c.fn) for n, c in lets],
                          cond.fn if cond is not None else None,
                          label.fn if label is not None else _broken, steps)
        if self.check_effects:  # the end is checked between an action's steps: a frame each
            option.steps = tuple(option.steps)
        if b.diags or label is None or ("if" in opt and cond is None):
            return option, None
        option.parts = (outer, scope, iterate, lets, cond, label, option.steps, b.where(path))
        return option, option.parts

    def generators(self, made: list[tuple[S.Option, tuple | None]], pass_label: Any) -> None:
        """The generated code of a decision's options. An only option whose label joins
        numbers merges its choices by the numbers, and options whose labels are all forms
        of parts (see labels.label_forms) merge theirs by the parts' keys in random play;
        either only when every option of the decision is generated, since the closure
        path's records are merged by their labels."""
        parts = [p for _o, p in made]
        keyed = forms = None
        if parts and all(p is not None for p in parts):
            keyed = labels.keyed_label(parts[0][5], pass_label) if len(parts) == 1 else None
            if keyed is None:
                forms = labels.label_forms([p[5] for p in parts], pass_label)
        gens = [None if p is None else codegen.option_generator(
            *p, keyed=keyed, by_parts=forms[i] if forms else None) for i, p in enumerate(parts)]
        if (keyed or forms) and any(g is None for g in gens):  # merged by labels after all
            gens = [None if p is None else codegen.option_generator(*p) for p in parts]
        for (option, _p), gen in zip(made, gens):
            if gen is not None:
                option.generate, option.records, source = gen
                self.generated.append(source)


#: the name of `end.score` written as one expression rather than named parts
AT_END = "at the end"


def _plus_at_end(score: S.Fn, parts: list[S.Fn]) -> S.Fn:
    """The score with what the end adds (the parts of `end.score`) once the game is over."""
    def total(st: Any, env: dict) -> Any:
        value = score(st, env)
        if st.over:
            for part in parts:
                value += part(st, env)
        return value

    return total


def _seat_of(c: Compiled) -> Callable[[Any], int]:
    fn = c.fn

    def seat(st: Any) -> int:
        v = fn(st, {})
        return v if isinstance(v, int) else v.seat

    return seat
