"""The flat backend: a game's random play as one generated function over plain lists.

Where today's generated turns (flowgen) still run the engine's general machine (views,
option records, the work meter per decision, change bits, a check after every step that
changed something), the flat backend writes a game's whole random play, from a turn's
chance step (or, in a game whose turns begin with a decision, from that decision: the
first turn's, once the machine has dealt) to the end, as straight-line code over the
components' own lists, the players' variables as one list each, and ints: options are
tuples in a list, a pick is one draw, the end conditions are tested after the steps that
may change what they read. Steps the machine runs in frames of their own (`none:` steps,
blocks that may pause, an option played by itself) are counted against the step budget
and followed by the end checks exactly where the machine's frames are; defines are
written where they are read.

It plays the games the machine plays, draw for draw, and it gives a game back rather
than ever playing it differently: it works on a copy of what it changes and keeps both
RNGs' states, and whatever the machine would have stopped on (a budget that might run
out, an error, a step it does not cover) makes it hand the untouched state back, so the
machine plays that game instead and fails with its own located message. The work budget
is kept by a bound: every step is charged a cost computed from the game's structure
(the longest lists it loops over, the lists its `in`s scan), which is far above what the
machine's meter charges; a turn is charged every step and check written for it, and where
turns follow each other without a pause, the work of one call of the machine is bounded
too.

A `repeat` is a loop of rounds (a `break` in it a Python `break`), each round charged
against the budgets as it begins. The flat play starts where a playout does: at a chance
step or a decision of the active player, at the top of a turn or in a `repeat` there (the
machine's frames then the turn's and the repeat's, one in another): each such place is
numbered in the order of the turn's steps and found from the frames (`FlatGame.sites`);
the steps before it are skipped (`entry <= N`), a repeat resumes at the round its frame
counted, and the names the steps before it bound (`let`) are read from the frame.

A game it does not cover (a building block without a flat form, a step it has no code
for) keeps the machine's path; `rulekit compile --backend flat FILE` shows the module or
says why not. Every name in the source is the generator's own and every value from the
file is a constant, as in the other backends.

The intermediate form is the writer's: lines over named lists and ints, with the
building blocks' reads and effects given as expressions of those lists by each kind's
`flat_*` methods, so that a native emitter can follow the same plan.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from rulekit.backends import pysource
from rulekit.engine import labels
from rulekit.engine import steps as S
from rulekit.engine.state import _CALLS, _late, _rebind_action, replay_moves
from rulekit.expr import budget, runtime
from rulekit.expr.types import BOOL, INT, STR, ListT, ObjT, Type

#: False: playouts run on the machine's path (the differential tests compare both)
ENABLED = True
#: the most lines a game's flat function may have (a game of very many options: the machine)
MOST_LINES = 4000
#: what a step is charged against the work budget, per element of the longest loop it runs
UNITS_PER_ELEMENT = 100
#: what a step is charged at least
UNITS_PER_STEP = 1000
#: the most times triggers may fire in a turn (more: the machine plays the game)
TRIGGER_RUNS = 32


#: more than the characters of any whole number a game can hold: a variable's at most 30
#: digits, a literal's 333, a product's 1000 bits (about 302 digits), sums a few bits more
_INT_CHARS = 1000
#: how deeply defines that read defines are written where they are read, and how long one
#: may come out (a define read twice by each of a chain of others doubles at each step)
MOST_DEFINES_DEEP = 40
MOST_DEFINE_CHARS = 20_000
#: what a step is charged per element an `in` may scan, per element of its longest loop (the
#: machine charges one unit per element scanned)
UNITS_PER_SCAN = 2


class Uncovered(Exception):
    """Something the flat backend does not cover: the game keeps the machine's path."""


class GiveBack(Exception):
    """Raised in a flat game: the machine plays this game instead (its state untouched)."""


class V:
    """A value in the flat code: its source, its type, and for a building block (or a part
    of one, such as a row) the kind it belongs to, the source of its owner's seat, and its
    static size when it is a list the code loops over."""

    __slots__ = ("src", "type", "kind", "seat", "size", "elem", "length")

    def __init__(self, src: str | None, type_: Type, kind: Any = None, seat: str | None = None,
                 size: int | None = None, elem: V | None = None) -> None:
        self.src = src
        self.type = type_
        self.kind = kind
        self.seat = seat
        self.size = size
        self.elem = elem  # what an element of this list is like (kind, seat), if known
        self.length: str | None = None  # the list's length without building it, if known

    def need(self) -> str:
        if self.src is None:
            raise Uncovered(f"a {getattr(self.type, 'name', '?')} used as a value")
        return self.src


def _check_int(x: Any) -> Any:
    """A variable's new value, as SetVar checks it: out of range, the machine says so."""
    if x.__class__ is int:
        if not -S.MAX_INT < x < S.MAX_INT:
            raise GiveBack
    elif x.__class__ is float and not math.isfinite(x):
        raise GiveBack
    return x


class FlatGame:
    """A game's flat play: `play(st, rng, randrange, study)` plays `st` (at a turn's chance
    step or decision, at the top of the turn or in its `repeat`) to the end and returns
    (decisions, options, most options), or None when the machine must play it; `source` is
    the module."""

    def __init__(self, source: str, play: Any, entries: frozenset[int],
                 decisions: frozenset[int] = frozenset(), sites: dict | None = None) -> None:
        self.source = source
        self.consts: dict[str, Any] = {}
        #: the places the flat play may start at, each numbered by its place in the turn's
        #: steps (a turn's top-level steps 0, 1, ..., the steps of a `repeat` after it)
        self.entries = entries
        #: the entries that are a `choose` of the active player (the others are chance steps)
        self.decisions = decisions
        #: each entry by the machine's stack standing there: (id(frame.steps), frame.i) of
        #: each frame (the turn's, a `repeat`'s), as `_site` reads them
        self.sites: dict = sites or {}
        self._play = play

    def _site(self, stack: list) -> int | None:
        """The entry the machine's frames stand at, or None."""
        if len(stack) == 1:
            top = stack[0]
            return self.sites.get(((id(top.steps), top.i),)) if top.__class__ is S.SeqFrame \
                else None
        key = []
        for f in stack:
            if f.__class__ is not S.SeqFrame:
                return None
            key.append((id(f.steps), f.i))
        return self.sites.get(tuple(key))

    def play(self, st: Any, rng: random.Random, randrange: Any, study: bool,
             log: bool = True) -> tuple[int, int, int, bool] | None:
        """Play `st` on from an entry (a turn's chance step or decision, at its top or in
        its `repeat`) to the end: (decisions, options, most options, True); or, given back,
        the counts of the moves the engine replayed and False (the engine plays on); None
        where the flat play cannot start here.

        The moves are recorded, not logged: with `log`, the state's log is written from
        them when it is read (State.log); without, they are left out of it."""
        stack = st._stack
        if not stack or stack[0].__class__ is not S.SeqFrame:
            return None
        top = stack[0]
        if (self.decisions and top.role == "setup" and len(stack) == 1
                and not self._deal(st, top)):
            return None
        stack = st._stack
        top = stack[0]
        i = self._site(stack)
        if i is None or top.role != "turn":
            return None
        if i in self.decisions:
            # a turn's decision is due: the flat play asks it anew and picks
            pending = st._pending
            if (pending is None or pending.window is not None
                    or pending.seat != st.active or st._pending_chance is not None
                    or st._ending or st._next_seat is not None or st._unlogged is not None):
                return None
        else:
            last = stack[-1]
            if (st._pending is not None or i not in self.entries
                    or st._pending_chance is not last.steps[last.i - 1] or st._ending
                    or st._next_seat is not None or st._unlogged is not None):
                return None
        grng = st.rng or st._new_rng()
        getbits = None
        if (getattr(randrange, "__func__", None) is _RANDBELOW
                and randrange.__self__.getrandbits.__class__ is _BUILTIN):
            getbits = randrange.__self__.getrandbits
        saved = [kind.copy_state(s) for kind, s in zip(st.game.components, st.comps)]
        start = st._moves_start(saved) if log else None
        if start is not None and st._pending is not None:
            # the decision due, its options bound to the copy the log is replayed from
            d = st._pending
            start._pending = S.Decision.copied(d.seat, d, None,
                                               lambda a: _rebind_action(a, start))
        moves: list = []
        try:
            made, options, most = self._play(st, grng, randrange, getbits, study, i, moves,
                                             saved)
        except (GiveBack, ArithmeticError, LookupError, TypeError, ValueError, AttributeError,
                RecursionError, budget.BudgetExceeded):
            made, options, most = moves.pop()
            replay_moves(st, moves)
            return made, options, most, False
        if start is not None:
            st._unlogged = (start, moves)
        return made, options, most, True

    @staticmethod
    def _deal(st: Any, top: Any) -> bool:
        """A game whose turns begin with a decision stands, when it is made, at the setup's
        last step, a chance step (the deal): the machine resolves it as a playout's move
        does (its draw, its log, its budget of one call), and runs on to the first turn's
        decision, where the flat play starts. False where the setup is elsewhere."""
        step = st._pending_chance
        if (step is None or st._pending is not None or top.i != len(top.steps)
                or top.steps[-1] is not step):
            return False
        meter = budget.meter()
        old, old_what = meter.left, meter.what
        units, what = st._work_left, _CALLS["resolve_chance"]
        if units >= budget.WORK_PER_CALL:
            units = budget.WORK_PER_CALL
        else:
            what = _late(what)
        meter.left, meter.what = units, what
        try:
            st._chance(step, None)
        finally:
            st._work_left -= units - meter.left
            meter.left, meter.what = old, old_what
        return not st.over and len(st._stack) == 1


#: Random._randbelow of a plain Random, and the type of its C methods: what the flat code
#: writes out
_RANDBELOW = getattr(random.Random, "_randbelow_with_getrandbits", None)
_BUILTIN = type(random.Random().getrandbits)


class _Writer:
    """The generated function's lines, its constants and its temporaries."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self._ids: dict[int, str] = {}
        self.n = 0

    def c(self, value: Any) -> str:
        """A module constant holding value (every value from the file goes through here)."""
        if value is None or value is True or value is False:
            return repr(value)
        if value.__class__ is int:
            return f"({value})"
        name = self._ids.get(id(value))
        if name is None:
            name = self._ids[id(value)] = f"K{len(self._ids)}"
            self.consts[name] = value
        return name

    def t(self, stem: str = "t") -> str:
        self.n += 1
        return f"{stem}{self.n}"

    def add(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)
        if len(self.lines) > MOST_LINES:
            raise Uncovered("a game this large: more than "
                            f"{MOST_LINES} lines of flat code")


class _Gen:
    """Writes one game's flat play."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.w = _Writer()
        self.kinds = {}
        for kind in game.components:
            if not hasattr(kind, "flat_types"):
                raise Uncovered(f"component '{kind.name}' ({kind.kind})")
            for t in kind.flat_types():
                self.kinds[id(t)] = kind
        self.pvar_names = list(game.pvar_init)
        self.gvar_names = list(game.gvar_init)
        self.longest = 1  # the most elements a step loops over (for the work bound)
        self.scans = 0  # the elements the `in`s of a step may scan, per loop element
        self.widest = 1  # the most elements any step loops over
        self.cost = 0  # the work bound of every step written so far (each once)
        self.calls = False  # turns may pass without a pause: the work of a call is counted
        self.defines: dict[str, tuple[bool, Any]] = getattr(game, "defines", None) or {}
        self.decisions: frozenset[int] = frozenset()
        self._defining: set[str] = set()
        self.firing = False  # writing a trigger's steps
        self.firing_work = 0  # the most work one firing of a trigger may charge
        self.trigger_mask = 0  # the parts some trigger reads
        for trigger in game.triggers:
            self.trigger_mask |= trigger.mask
        self.end = [(reason, c, mask) for (reason, _f, mask, _w), c in
                    zip(game.end_conditions, game.end_checked, strict=True)]
        self.player_type = game.scope.globals["active"].type
        # the entries (see FlatGame.sites): where the steps being written stand among the
        # machine's frames (None: in a frame the flat play does not start in), the place of
        # the step being written, the next place's number, and each entry's names to read
        # from the machine's frame as it starts there
        self.chain: list | None = None
        self.at = 0
        self.pos = 0
        self.sites: dict = {}
        self.entry_ids: set[int] = set()
        self.decision_ids: set[int] = set()
        self.site_lets: dict[int, list] = {}
        #: what a Python `break` ends here: None outside a `repeat`'s loop (or in a loop
        #: of its own, a `for`'s), "break" in it
        self.brk: str | None = None
        #: each `repeat`'s steps per round: (its constant's name, the round's steps, the
        #: enclosing repeat's constant's name or None)
        self.round_steps: list[tuple[str, int, str | None]] = []
        self.round_of: str | None = None
        self.has_repeats = False
        self.repeats = 0  # the repeats written so far
        self.rounds_work = 0  # the charges of a round of each repeat, summed

    # ---- what a kind's flat form writes with (so that no kind imports a backend) -----------
    @staticmethod
    def value(src: str | None, type_: Type, kind: Any = None, seat: str | None = None,
              size: int | None = None, elem: V | None = None) -> V:
        return V(src, type_, kind, seat, size, elem)

    @staticmethod
    def uncovered(what: str) -> Uncovered:
        return Uncovered(what)

    def record(self, d: int, src: str) -> None:
        """A chance step's outcome, as its kind's `flat_outcome` reads it back."""
        self.w.add(d, f"moves.append({src})")

    # ---- expressions ---------------------------------------------------------------------
    def ex(self, node: Any, env: dict[str, V]) -> V:
        op = node.op
        if op == "const":
            return self.const(node.value, node.type)
        handler = getattr(self, "_" + op, None)
        if handler is None:
            raise Uncovered(f"the expression form '{op}'")
        return handler(node, env)

    def const(self, value: Any, type_: Type) -> V:
        size = len(value) if isinstance(value, list) else None
        return V(self.w.c(value), type_, size=size)

    def _local(self, node: Any, env: dict[str, V]) -> V:
        v = env.get(node.data)
        if v is None:
            raise Uncovered(f"the name '{node.data}' here")
        return v

    def _global(self, node: Any, env: dict[str, V]) -> V:
        name, glob = node.data
        src = glob.src
        if src == "st.players":
            return V("PLAYERS", node.type, size=self.game.max_players,
                     elem=V(None, node.type.elem))
        if src == "st.players[st.active]":
            return V("active", node.type)
        if src == "st.turn":
            return V("turn", INT)
        if src == "st.round":
            return V("rnd", INT)
        if src == "st.n":
            return V("n", INT)
        if glob.var is not None:
            return V(f"g{self.gvar_names.index(glob.var)}", node.type)
        kind = self.kinds.get(id(node.type))
        if kind is not None and src == f"st.gviews[{int(kind.index)}]":
            return V(None, node.type, kind)
        define = self.defines.get(name)
        if (define is not None and not define[0]
                and self.game.scope.globals.get(name) is glob):
            return self.define(name, define[1], {})
        raise Uncovered(f"the name '{name}'")

    def define(self, name: str, c: Any, env: dict[str, V]) -> V:
        """A define read: its expression written where it is read (a define's value is the
        same wherever it is worked out on the same state, which is when the machine reuses
        it)."""
        if name in self._defining:
            raise Uncovered(f"the define '{name}', which reads itself")
        if len(self._defining) >= MOST_DEFINES_DEEP:
            raise Uncovered(f"defines that read defines more than {MOST_DEFINES_DEEP} deep")
        self._defining.add(name)
        try:
            v = self.expr(c, env)
        finally:
            self._defining.discard(name)
        if v.src is not None and len(v.src) > MOST_DEFINE_CHARS:
            # defines that read others several times each (doubling): written out, their
            # source would grow without end
            raise Uncovered(f"the define '{name}', more than {MOST_DEFINE_CHARS} characters "
                            "of code where it is read")
        return v

    def _attr(self, node: Any, env: dict[str, V]) -> V:
        base = self.ex(node.kids[0], env)
        name = node.data
        t = base.type
        if isinstance(t, ObjT) and t.name == "Player" and base.kind is None:
            seat = base.need()
            if name == "seat":
                return V(seat, INT)
            if t.stored.get(name) == "vars":
                return V(f"p{self.pvar_names.index(name)}[{seat}]", node.type)
            if name == "is_active":
                return V(f"({seat} == active)", BOOL)
            if name == "is_start":
                return V(f"({seat} == start)", BOOL)
            kind = self.kinds.get(id(node.type))
            if kind is not None:
                return V(None, node.type, kind, seat)
            define = self.defines.get(name)
            if define is not None and define[0] and t.stored.get(name) is None:
                return self.define(name, define[1], {"player": V(seat, t)})
            raise Uncovered(f"a player's '{name}'")
        if base.kind is not None:
            return base.kind.flat_attr(self, base, name, node.type)
        raise Uncovered(f"the attribute '{name}' of {getattr(t, 'name', t)}")

    def _index(self, node: Any, env: dict[str, V]) -> V:
        base = self.ex(node.kids[0], env)
        key = self.ex(node.kids[1], env)
        if base.kind is not None:
            return base.kind.flat_index(self, base, key, node.type)
        return V(f"{base.need()}[{key.need()}]", node.type)

    def _method(self, node: Any, env: dict[str, V]) -> V:
        base = self.ex(node.kids[0], env)
        args = [self.ex(k, env) for k in node.kids[1:]]
        if base.kind is None:
            raise Uncovered(f"the method '{node.data}'")
        return base.kind.flat_method(self, base, node.data, args, node.type)

    def _list(self, node: Any, env: dict[str, V]) -> V:
        items = [self.ex(k, env).need() for k in node.kids]
        return V("[" + ", ".join(items) + "]", node.type, size=len(items))

    def _cond(self, node: Any, env: dict[str, V]) -> V:
        a, c, b = (self.ex(k, env) for k in node.kids)
        return V(f"({a.need()} if {c.need()} else {b.need()})", node.type,
                 size=max(a.size or 0, b.size or 0) or None)

    def _and(self, node: Any, env: dict[str, V]) -> V:
        return self._boolop(node, env, " and ")

    def _or(self, node: Any, env: dict[str, V]) -> V:
        return self._boolop(node, env, " or ")

    def _boolop(self, node: Any, env: dict[str, V], word: str) -> V:
        parts = []
        for k in node.kids:
            v = self.ex(k, env)
            parts.append(v.need() if k.type is BOOL else f"bool({v.need()})")
        return V("(" + word.join(parts) + ")", BOOL)

    def _not(self, node: Any, env: dict[str, V]) -> V:
        return V(f"(not {self.ex(node.kids[0], env).need()})", BOOL)

    def _neg(self, node: Any, env: dict[str, V]) -> V:
        return V(f"(-{self.ex(node.kids[0], env).need()})", node.type)

    _PLAIN = {"+", "-", "*", "//", "%", "==", "!=", "<", "<=", ">", ">="}

    def _binop(self, node: Any, env: dict[str, V]) -> V:
        op = node.data
        empty = self._emptiness(node, env)
        if empty is not None:
            return empty
        left, right = (self.ex(k, env) for k in node.kids)
        plain = (INT, BOOL)
        if op in self._PLAIN and left.type in plain and right.type in plain:
            return V(f"({left.need()} {op} {right.need()})", node.type)
        if op in ("==", "!=") and left.type is STR and right.type is STR:
            return V(f"({left.need()} {op} {right.need()})", node.type)
        if op in ("in", "not in") and isinstance(right.type, ListT) and (
                left.type in (INT, STR, BOOL) or left.kind is not None
                and getattr(left.kind, "flat_same", None) and left.kind.flat_same(left.type)):
            if right.size is None:
                raise Uncovered(f"'{op}' a list whose length the game does not bound")
            self.scans += right.size
            return V(f"({left.need()} {op} {right.need()})", node.type)
        if (op == "+" and isinstance(left.type, ListT) and isinstance(right.type, ListT)
                and left.size is not None and right.size is not None
                and left.size + right.size <= budget.MAX_LIST
                and not isinstance(node.type.elem, ListT)):
            elem = left.elem if left.size else right.elem
            return V(f"({left.need()} + {right.need()})", node.type,
                     size=left.size + right.size, elem=elem)
        raise Uncovered(f"'{op}' on {left.type.name} and {right.type.name}")

    def _emptiness(self, node: Any, env: dict[str, V]) -> V | None:
        """`len(xs) > 0`, `len(xs) != 0` and `len(xs) == 0` of a list or text, as its
        truth: the same value without a call (an option's `if` asks it of every one)."""
        op = node.data
        a, b = node.kids
        if (op not in (">", "!=", "==") or b.op != "const" or b.value != 0
                or type(b.value) is not int or a.op != "call" or a.data[0] != "len"
                or a.data[1] is not None or len(a.kids) != 1
                or not (isinstance(a.kids[0].type, ListT) or a.kids[0].type is STR)):
            return None
        xs = self.ex(a.kids[0], env)
        if xs.length is not None:  # a length known without the list: as len() has it
            return None
        return V(f"({'not' if op == '==' else 'not not'} {xs.need()})", BOOL)

    def _compare(self, node: Any, env: dict[str, V]) -> V:
        vals = [self.ex(k, env) for k in node.kids]
        if any(v.type not in (INT, BOOL) for v in vals) or any(
                op not in self._PLAIN for op in node.data):
            raise Uncovered("a chained comparison of these values")
        parts = [vals[0].need()]
        for op, v in zip(node.data, vals[1:]):
            parts += [op, v.need()]
        return V("(" + " ".join(parts) + ")", BOOL)

    def clauses(self, levels: list, env: dict[str, V]) -> tuple[str, dict[str, V]]:
        """The `for ... in ... if ...` clauses of a comprehension, with the names they bind."""
        inner = dict(env)
        out = []
        size = 1
        for name, it, conds in levels:
            lst = self.ex(it, inner)
            if lst.size is None:
                raise Uncovered("a loop over a list whose length the game does not bound")
            size *= max(lst.size, 1)
            var = self.w.t("v")
            elem = lst.elem
            inner[name] = V(var, it.type.elem, elem.kind if elem else None,
                            elem.seat if elem else None, elem.size if elem else None,
                            elem.elem if elem else None)
            out.append(f"for {var} in {lst.need()}")
            for c in conds:
                out.append(f"if {self.ex(c, inner).need()}")
        self.longest = max(self.longest, size)
        self.last_size = size
        return " ".join(out), inner

    def _comp(self, node: Any, env: dict[str, V]) -> V:
        levels, body = node.data
        text, inner = self.clauses(levels, env)
        size = self.last_size  # at most one element per round of its loops
        return V(f"[{self.ex(body, inner).need()} {text}]", node.type, size=size)

    def _gen(self, gen: Any, env: dict[str, V]) -> str:
        levels, body = gen.node.data
        text, inner = self.clauses(levels, env)
        return f"({self.ex(body, inner).need()} {text})"

    def _per_player(self, gen: Any, env: dict[str, V]) -> str | None:
        """`p.VAR for p in players` is the variable's list itself."""
        levels, body = gen.node.data
        if len(levels) != 1 or levels[0][2]:
            return None
        name, it, _conds = levels[0]
        if self.ex(it, env).src != "PLAYERS":
            return None
        probe = dict(env)
        probe[name] = V("SEAT", it.type.elem)
        m = re.fullmatch(r"(p\d+)\[SEAT\]", self.ex(body, probe).src or "")
        return m.group(1) if m else None

    def _over_seats(self, gen: Any, env: dict[str, V], word: str) -> str | None:
        """`any(... for p in players)` of a game played by a fixed number of players, its
        rounds written out (as any() and all(), it stops at the first that decides)."""
        n = self.game.max_players
        if self.game.min_players != n or n > 8:
            return None
        levels, body = gen.node.data
        if len(levels) != 1 or levels[0][2] or body.type is not BOOL:
            return None
        name, it, _conds = levels[0]
        if self.ex(it, env).src != "PLAYERS":
            return None
        parts = []
        for k in range(n):
            inner = dict(env)
            inner[name] = V(f"({k})", it.type.elem)
            parts.append(self.ex(body, inner).need())
        self.longest = max(self.longest, n)
        return "(" + word.join(parts) + ")"

    def _call(self, node: Any, env: dict[str, V]) -> V:
        name, gen = node.data
        args = node.kids
        if name in ("any", "all") and gen is not None:
            unrolled = self._over_seats(gen, env, " or " if name == "any" else " and ")
            if unrolled is not None:
                return V(unrolled, node.type)
        if name in ("sum", "max", "min", "any", "all") and len(args) == 1:
            if gen is not None:
                whole = self._per_player(gen, env)
                if whole is not None:  # max(p.penalties for p in players): the list itself
                    return V(f"{name}({whole})", node.type)
                return V(f"{name}{self._gen(gen, env)}", node.type)
            v = self.ex(args[0], env)
            if v.size is None and name in ("sum", "any", "all"):
                pass
            return V(f"{name}({v.need()})", node.type)
        if name in ("max", "min") and len(args) >= 2:
            srcs = [self.ex(a, env).need() for a in args]
            if any(a.type is not INT for a in args):
                raise Uncovered(f"{name}() of these values")
            return V(f"{name}({', '.join(srcs)})", node.type)
        if name in ("len", "count") and len(args) == 1:  # count(): the elements
            if gen is not None:
                return V(f"len([0 {self.clauses(gen.node.data[0], env)[0]}])", INT)
            v = self.ex(args[0], env)
            return V(v.length or f"len({v.need()})", INT)
        if name == "abs" and len(args) == 1 and args[0].type is INT:
            return V(f"abs({self.ex(args[0], env).need()})", INT)
        if name == "str" and len(args) == 1:
            return V(self.text(self.ex(args[0], env)), STR)
        if name == "join" and len(args) == 2:
            return self._join(args, env)
        if name == "range" and len(args) == 1 and gen is None and args[0].type is INT:
            # range(n) over an int a building block bounds (as its `size`)
            n = self.ex(args[0], env)
            if n.size is None or n.size > budget.MAX_LIST:
                raise Uncovered("range() of a number the game does not bound")
            return V(f"list(range({n.need()}))", node.type, size=n.size)
        raise Uncovered(f"the function {name}()")

    def _join(self, args: list, env: dict[str, V]) -> V:
        """join(sep, xs) of whole numbers or texts, by the function the machine calls for
        it: of at most labels.JOIN_PARTS parts it charges no work (more: the machine)."""
        sep, xs = (self.ex(a, env) for a in args)
        elem = getattr(args[1].type, "elem", None)
        if elem is INT:
            fn = runtime.join_ints
        elif elem is STR:
            fn = runtime.join_str
        else:
            raise Uncovered("join() of these values")
        if xs.size is None or xs.size > labels.JOIN_PARTS:
            raise Uncovered("join() of a list whose length the game does not bound")
        if (elem is INT and args[0].op == "const" and isinstance(args[0].value, str)
                and xs.size * (_INT_CHARS + len(args[0].value)) <= budget.MAX_STR):
            # numbers, too few to write more than a string may hold: join_ints's work
            return V(f"{sep.need()}.join(map(str, {xs.need()}))", STR)
        return V(f"{self.w.c(fn)}({sep.need()}, {xs.need()})", STR)

    def text(self, v: V) -> str:
        """The source of a value as text, as templates and str() write it."""
        t = v.type
        if t is STR:
            return v.need()
        if t is INT:
            return f"str({v.need()})"
        if v.kind is not None:
            return v.kind.flat_attr(self, v, "name", STR).need()
        if isinstance(t, ObjT) and t.name == "Player":
            return f"('player ' + str({v.need()}))"
        return f"{self.w.c(runtime.render)}({v.need()})"

    def template(self, c: Any, env: dict[str, V]) -> str:
        tag, parts = c.node
        assert tag == "template"
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(self.w.c(part))
            else:
                node, _render = part
                out.append(self.text(self.ex(node, env)))
        if not out:
            return "''"
        return "(" + " + ".join(out) + ")"

    def expr(self, c: Any, env: dict[str, V]) -> V:
        if c is None or c.node is None:
            raise Uncovered("an expression that did not compile")
        return self.ex(c.node, env)

    # ---- steps ------------------------------------------------------------------------------
    def steps(self, steps: tuple, env: dict[str, V], d: int, framed: bool) -> int:
        """Write steps at depth d; framed: each is a step of a frame (counted against the
        step budget, the end checked after it). Returns the most steps counted."""
        count = 0
        for step in steps:
            count += self.step(step, env, d, framed)
            if framed:
                self.checks(step, d)
        return count

    def checks(self, step: Any, d: int) -> None:
        """The triggers and end conditions after a step of a frame, each if the step may
        change what it reads (otherwise it is still false, as at its last check), and only
        when a step that may did run since the last check (`chg`, see `changed`): the
        machine checks after a step only what reads a part it marked changed."""
        at = len(self.w.lines)
        self.check_after(self.writes(step), d + 1)
        if len(self.w.lines) > at:
            self.w.lines.insert(at, "    " * d + "if chg:")
            self.w.lines.insert(at + 1, "    " * (d + 1) + "chg = False")

    def changed(self, step: Any, d: int) -> None:
        """After a step that changes parts of the game itself (an effect, a variable set,
        a chance step), mark `chg` if a check reads any of them (as the machine marks its
        `_dirty` bits)."""
        if getattr(step, "writes", -1) & self.game.check_mask:
            self.w.add(d, "chg = True")

    def check_after(self, writes: int, d: int) -> None:
        """The checks after a change of the parts `writes`: the triggers (`fire`), then
        the end conditions that read what the change or the triggers may have changed;
        their work bounded as a step's."""
        saved = self.own_begin()
        fired = self.fire(writes, d)
        if fired:  # the triggers' conditions are worked out twice more
            self.cost += 2 * len(self.game.triggers) * (UNITS_PER_STEP
                                                        + UNITS_PER_ELEMENT * self.longest)
        self.own_end(saved)
        writes |= fired
        for reason, c, mask in self.end:
            if writes & mask:
                self.w.add(d, f"if {self.end_expr(c)}:")
                self.ending(d + 1, reason)

    # ---- triggers ----------------------------------------------------------------------------
    def trigger_loops(self, trigger: Any, d: int) -> tuple[dict[str, V], int, str]:
        """A trigger's `for` loops (each list worked out as its loop starts, as the
        machine's bindings do) and its condition: the env inside, the depth and the
        condition's source."""
        w = self.w
        env: dict[str, V] = {}
        it = trigger.iterate
        if it is not None:
            if not getattr(it, "nodes", None):
                raise Uncovered("a trigger's `for` that did not compile")
            size = 1
            for name, node in it.nodes:
                lst = self.ex(node, env)
                if lst.size is None:
                    raise Uncovered("a trigger's `for` over a list whose length the game "
                                    "does not bound")
                size *= max(lst.size, 1)
                self.longest = max(self.longest, size)
                var = w.t("v")
                elem = lst.elem
                env[name] = V(var, node.type.elem, elem.kind if elem else None,
                              elem.seat if elem else None, elem.size if elem else None,
                              elem.elem if elem else None)
                w.add(d, f"for {var} in {lst.need()}:")
                d += 1
        return env, d, self.expr(trigger.gen, env).need()

    def fire(self, writes: int, d: int) -> int:
        """The triggers after a change of the parts `writes`, as the machine fires them
        (State._after_step): each in turn, for each of its bindings while its condition
        holds, at most MAX_TRIGGER_FIRINGS times. Returns the parts they may change.

        The machine fires a trigger only when a part it reads changed since its last
        check, and a trigger sees what later triggers changed only at the next check.
        Both come to the same as firing all of them here as long as, after every check,
        no trigger's condition holds for any binding (each is "settled": then a trigger
        not fired by the machine would have done nothing): the flat code makes sure of
        that after each check where a trigger fired (and when it starts), and gives the
        game back otherwise."""
        triggers = self.game.triggers
        if not triggers or not writes & self.trigger_mask:
            return 0
        w = self.w
        fired = w.t("fired")
        w.add(d, f"{fired} = False")
        changes = 0
        for trigger in triggers:
            env, depth, cond = self.trigger_loops(trigger, d)
            nf = w.t("nf")
            w.add(depth, f"{nf} = 0")
            w.add(depth, f"while {cond}:")
            w.add(depth + 1, f"{nf} += 1")
            w.add(depth + 1, f"if {nf} > {S.MAX_TRIGGER_FIRINGS}: raise GiveBack")
            # the firings a turn may have: beyond, the machine plays the game
            w.add(depth + 1, "trig -= 1")
            w.add(depth + 1, "if trig < 0: raise GiveBack")
            w.add(depth + 1, f"{fired} = True")
            cost, firing = self.cost, self.firing
            self.firing = True
            try:
                self.steps(tuple(trigger.steps), env, depth + 1, False)
                run = self.cost - cost + UNITS_PER_STEP
            finally:
                self.cost, self.firing = cost, firing
            # each firing charged as it happens (a turn has few), so that the bound of a
            # turn need not count the most firings every turn
            self.firing_work = max(self.firing_work, run)
            w.add(depth + 1, f"work -= {run}" + (f"; cw += {run}" if self.calls else ""))
            w.add(depth + 1, "if work < 0" + (" or cw > CALL_WORK" if self.calls else "")
                  + ": raise GiveBack")
            changes |= self._union(tuple(trigger.steps))
        w.add(d, f"if {fired}:")
        self.settled(d + 1)
        return changes

    def settled(self, d: int) -> None:
        """Give the game back unless no trigger's condition holds for any binding."""
        for trigger in self.game.triggers:
            _env, depth, cond = self.trigger_loops(trigger, d)
            self.w.add(depth, f"if {cond}: raise GiveBack")

    def end_expr(self, c: Any) -> str:
        """An end condition's source, its work counted as a step's."""
        saved = self.own_begin()
        src = self.expr(c, {}).need()
        self.own_end(saved)
        return src

    def own_begin(self) -> tuple[int, int]:
        """A step (or check) begins: its own loops and scans are counted from here."""
        saved = self.longest, self.scans
        self.longest, self.scans = 1, 0
        return saved

    def own_end(self, saved: tuple[int, int]) -> None:
        """It ends: its work bound, from its own loops (the steps inside it count theirs),
        is added to `cost`."""
        self.cost += (UNITS_PER_STEP + UNITS_PER_ELEMENT * self.longest
                      + UNITS_PER_SCAN * self.longest * self.scans)
        self.widest = max(self.widest, self.longest)
        self.longest, self.scans = saved

    def ending(self, d: int, reason: str) -> None:
        w = self.w
        if self.game.finish == "now":
            w.add(d, f"reason = {w.c(reason)}")
            w.add(d, "raise Over")
        else:
            w.add(d, "if not ending:")
            w.add(d + 1, f"ending = True; reason = {w.c(reason)}")

    def writes(self, step: Any) -> int:
        """The parts a step may change, as the engine's bits (-1: any)."""
        if isinstance(step, (S.Let, S.Say)):
            return 0
        if isinstance(step, S.If):
            return self._union(step.then + step.other)
        if isinstance(step, S.Run):
            return self._union(step.steps)
        if isinstance(step, S.Repeat):
            return self._union(step.steps[:-1])
        if isinstance(step, S.Break):
            return 0
        if isinstance(step, S.Choose):
            return self._union(tuple(s for o in step.options for s in o.steps)
                               + (step.none or ()))
        if isinstance(step, S.ForEach):
            return self._union(step.body)
        if isinstance(step, S.Effect) and step.gen is not None and step.gen[0] is not None:
            kind = self.kinds.get(id(step.gen[0].type))
            if kind is not None and getattr(kind, "flat_runs_steps", True) is False:
                return step.writes  # a building block's effect that runs no steps of its own
        if isinstance(step, S.Effect) and getattr(step, "nested", True):
            return -1  # a building block's effect may run steps of its own (on_lock)
        return getattr(step, "writes", -1)

    def _union(self, steps: tuple) -> int:
        m = 0
        for s in steps:
            m |= self.writes(s)
        return m

    def step(self, step: Any, env: dict[str, V], d: int, framed: bool) -> int:
        """Write a step (see `steps`), its work bound counted in `cost`."""
        saved = self.own_begin()
        count = self._step(step, env, d, framed)
        self.own_end(saved)
        return count

    def _step(self, step: Any, env: dict[str, V], d: int, framed: bool) -> int:
        w = self.w
        kind = type(step)
        if kind is S.Repeat:
            if not framed:
                raise Uncovered("a `repeat` here")
            return self.repeat(step, env, d, True)
        if framed:
            w.add(d, "steps -= 1")
        if kind is S.Break:
            if not framed or self.brk is None or self.firing:
                raise Uncovered("a `break` here (in a `for` or a trigger)")
            w.add(d, self.brk)
            return 1
        if kind is S.Let:
            for name, c, _py in step.gen:
                var = w.t("x")
                v = self.expr(c, env)
                w.add(d, f"{var} = {v.need()}")
                env[name] = V(var, v.type, v.kind, v.seat, v.size, v.elem)
            return 1
        if kind is S.If:
            w.add(d, f"if {self.expr(step.gen, env).need()}:")
            a = self.steps(step.then, dict(env), d + 1, framed and not step.pure)
            w.add(d + 1, "pass")
            w.add(d, "else:")
            b = self.steps(step.other, dict(env), d + 1, framed and not step.pure)
            w.add(d + 1, "pass")
            return 1 + max(a, b)
        if kind is S.Run:
            if not step.steps:
                return 1
            return 1 + self.steps(step.steps, env, d, framed and not step.pure)
        if kind is S.Say:
            text, to = step.gen
            seat = None
            if to is not None:  # a private line: the seat it is for, in the log
                who = self.expr(to, env)
                if who.kind is not None or not (isinstance(who.type, ObjT)
                                                and who.type.name == "Player"):
                    raise Uncovered("a private `say` to this value")
                seat = who.need()
            var = w.t("s")
            w.add(d, f"{var} = {self.template(text, env)}")
            w.add(d, f"logc += len({var})")
            w.add(d, f"if logc > {budget.MAX_LOG_CHARS}: raise GiveBack")
            if seat is not None:  # the seat it is for, as the machine works it out
                w.add(d, f"{w.t('q')} = {seat}")
            return 1
        if kind is S.SetVar:
            who, c = step.gen
            if who is None:
                target = f"g{self.gvar_names.index(step.name)}"
            else:
                seat = self.expr(who, env)
                if seat.kind is not None or not (isinstance(seat.type, ObjT)
                                                 and seat.type.name == "Player"):
                    raise Uncovered("a variable of something other than a player")
                target = f"p{self.pvar_names.index(step.name)}[{seat.need()}]"
            value = self.expr(c, env).need()
            var = w.t("x")
            w.add(d, f"{var} = {target} + {value}" if step.add else f"{var} = {value}")
            if not step.add and re.fullmatch(r"\(-?\d{1,20}\)", value):
                pass  # a whole number of the file, well within the bounds
            elif c.type is not BOOL and c.type is not STR:
                w.add(d, f"if {var}.__class__ is not int or not {-S.MAX_INT} < {var} < "
                      f"{S.MAX_INT}: {var} = check_int({var})")
            w.add(d, f"{target} = {var}")
            self.changed(step, d)
            return 1
        if kind is S.Effect:
            target, args = step.gen
            t = self.expr(target, env)
            if t.kind is None:
                raise Uncovered("an effect on this value")
            t.kind.flat_effect(self, step.method, t,
                               [None if a is None else self.expr(a, env) for a in args], env, d)
            self.changed(step, d)
            return 1
        if kind is S.TargetedChance:
            # `roll: {dice: EXPR, only: ...}`: prepared, then drawn, as the machine does
            kd = self.game.components[step.component]
            target, trees = step.gen
            t = self.expr(target, env)
            if (t.kind is not kd or not hasattr(kd, "flat_prepare")
                    or not hasattr(kd, "flat_chance") or not hasattr(kd, "flat_outcome")):
                raise Uncovered(f"`{step.name}` of this {kd.kind}")
            kd.flat_prepare(self, step.name, t,
                            [None if c is None else self.expr(c, env) for c in trees], d)
            kd.flat_chance(self, step.name, d)
            self.changed(step, d)
            return 1
        if kind is S.ChanceStep:
            kd = self.game.components[step.component]
            if not hasattr(kd, "flat_chance") or not hasattr(kd, "flat_outcome"):
                raise Uncovered(f"`{step.name}` of {kd.kind}")
            kd.flat_chance(self, step.name, d)
            self.changed(step, d)
            return 1
        if kind is S.ForEach and step.pure:
            return self.for_each(step, env, d, None)
        if kind is S.Together:
            return self.together(step, env, d)
        if kind is S.Choose:
            return self.choose(step, env, d)
        raise Uncovered(f"the step {kind.__name__}")

    # ---- decisions --------------------------------------------------------------------------
    def options(self, step: Any, env: dict[str, V], seat: str, d: int) -> list:
        """The loops that make a decision's options as (option, payload) in `out`, each
        once: merged by their labels' keys where the labels are one to one in their parts
        (labels.label_forms), by their labels otherwise, and not looked up where no two
        can be equal. Returns each option's names and the env its effects see."""
        w = self.w
        if any(opt.parts is None for opt in step.options):
            raise Uncovered("an option that did not compile")
        forms = labels.label_forms([opt.parts[5] for opt in step.options], step.pass_label)
        w.add(d, "out = []")
        lookups = False
        made = []
        total = 0
        body_at = len(w.lines)
        for k, opt in enumerate(step.options):
            _outer, scope, iterate, lets, cond, label, steps, _where = opt.parts
            inner = dict(env)
            inner["player"] = V(seat, scope.locals["player"])
            depth = d
            size = 1
            names = []
            loops = []
            if iterate is not None:
                for (name, node), promise in zip(iterate.nodes, iterate.promises):
                    lst = self.ex(node, inner)
                    if lst.size is None:
                        raise Uncovered("options over a list whose length is not bounded")
                    size *= max(lst.size, 1)
                    var = w.t("v")
                    elem = lst.elem
                    inner[name] = V(var, node.type.elem, elem.kind if elem else None,
                                    elem.seat if elem else None, elem.size if elem else None,
                                    elem.elem if elem else None)
                    names.append(name)
                    loops.append((name, promise[0]))
                    w.add(depth, f"for {var} in {lst.need()}:")
                    depth += 1
            for name, c in lets:
                var = w.t("x")
                v = self.expr(c, inner)
                w.add(depth, f"{var} = {v.need()}")
                inner[name] = V(var, v.type, v.kind, v.seat, v.size, v.elem)
                names.append(name)
            if cond is not None:
                w.add(depth, f"if {self.expr(cond, inner).need()}:")
                depth += 1
            payload = "(" + "".join(inner[nm].need() + ", " for nm in names) + ")"
            record = f"out.append(({k}, {payload}))"
            if forms is not None:
                form = forms[k]
                parts = [p for p in label.node[1] if not isinstance(p, str)]
                keys = [self.key(self.ex(node, inner)) for node, _r in parts]
                if form.tag is not None:
                    keys.insert(0, str(form.tag))
                local = {node.data for node, _r in parts if node.op == "local"}
                distinct = (not form.shared and all(ok for _n, ok in loops)
                            and {nm for nm, _ok in loops} <= local)
                key = "(" + "".join(k_ + ", " for k_ in keys) + ")"
            else:  # a label of a list's numbers (see keyed_unique): no lookup either
                distinct = self.keyed_unique(step, label, iterate)
                key = "" if distinct else self.template(label, inner)
            if distinct:
                w.add(depth, record)
            else:
                lookups = True
                kv = w.t("key")
                w.add(depth, f"{kv} = {key}")
                w.add(depth, f"if {kv} not in seen:")
                w.add(depth + 1, f"seen.add({kv})")
                w.add(depth + 1, record)
            total += size
            self.longest = max(self.longest, size)
            made.append((names, inner, steps, label))
        if lookups:
            w.lines.insert(body_at, "    " * d + "seen = set()")
        if total + 1 > budget.MAX_OPTIONS:
            raise Uncovered("a decision of more options than the budget allows")
        if step.pass_label is not None:
            if forms is not None or not lookups:  # no option's label can be the pass label
                w.add(d, "out.append((-1, ()))")
            else:
                w.add(d, f"if {w.c(step.pass_label)} not in seen: out.append((-1, ()))")
        return made

    def keyed_unique(self, step: Any, label: Any, iterate: Any) -> bool:
        """Whether the options of a decision's only option generator, `for: xs in LIST`
        labelled `PREFIX{join(SEP, xs)}SUFFIX` with numbers, all have labels no other
        option and not the pass label has, as the machine takes them (codegen's `unique`
        of labels.keyed_label): LIST is promised to hold no two equal lists, each of at most
        JOIN_PARTS numbers of few digits, and SEP tells numbers apart."""
        if len(step.options) != 1 or iterate is None or len(iterate.nodes) != 1:
            return False
        keyed = labels.keyed_label(label, step.pass_label)
        if keyed is None:
            return False
        parts = [p for p in label.node[1] if not isinstance(p, str)]
        if len(parts) != 1:
            return False
        node = parts[0][0]
        if node.op != "call" or node.data[0] != "join" or len(node.kids) != 2:
            return False
        xs = node.kids[1]
        if xs.op != "local" or xs.data != iterate.nodes[0][0]:
            return False
        distinct, numbers = iterate.promises[0]
        return bool(distinct and numbers is not None and numbers[0] <= labels.JOIN_PARTS
                    and numbers[1] <= keyed[2])

    def key(self, v: V) -> str:
        """A label part's key: its value, or the text of an object that keeps one."""
        if v.type in (INT, STR, BOOL):
            return v.need()
        return self.text(v)

    def unpack(self, names: list, inner: dict[str, V], seat: str, d: int) -> dict[str, V]:
        """The env of the option played, its names read from its payload `pl`."""
        w = self.w
        env = dict(inner)
        env["player"] = V(seat, inner["player"].type)
        if names:
            fresh = []
            for nm in names:
                v = inner[nm]
                if v.seat is not None and v.seat != inner["player"].src:
                    raise Uncovered("an option over another player's parts")
                var = w.t("y")
                fresh.append(var)
                env[nm] = V(var, v.type, v.kind, None if v.seat is None else seat,
                            v.size, v.elem)
            w.add(d, f"{''.join(f + ', ' for f in fresh)}= pl")
        return env

    def pick(self, d: int) -> None:
        """The draw of an option of `out`, recorded among the moves."""
        w = self.w
        w.add(d, "made += 1")
        w.add(d, "size = len(out)")
        w.add(d, "if study:")
        w.add(d + 1, "options += size")
        w.add(d + 1, "if size > most: most = size")
        w.add(d, "if size == 1 and not study:")
        w.add(d + 1, "i = 0")
        # Random._randbelow written out where the RNG is a plain one: the same draws
        w.add(d, "elif getbits is not None:")
        w.add(d + 1, "bits = size.bit_length()")
        w.add(d + 1, "i = getbits(bits)")
        w.add(d + 1, "while i >= size: i = getbits(bits)")
        w.add(d, "else:")
        w.add(d + 1, "i = randrange(size)")
        w.add(d, "moves.append(i)")
        w.add(d, "which, pl = out[i]")

    def effects(self, made: list, seat: str, d: int) -> None:
        """The effects of the option played (`which`, its payload `pl`) for `seat`."""
        w = self.w
        first = True
        for k, (names, inner, steps, _label) in enumerate(made):
            if not steps:
                continue
            if steps.__class__ is not S.Effects:
                raise Uncovered("an option whose steps are more than effects")
            w.add(d, f"{'if' if first else 'elif'} which == {k}:")
            first = False
            env = self.unpack(names, inner, seat, d + 1)
            self.steps(tuple(steps), env, d + 1, False)
            w.add(d + 1, "pass")

    def together(self, step: Any, env: dict[str, V], d: int) -> int:
        w = self.w
        if not step.effects_only:
            raise Uncovered("a `together` whose options have more than effects")
        chosen = w.t("chosen")
        w.add(d, f"{chosen} = []")
        w.add(d, "for k in range(n):")
        w.add(d + 1, "seat = (active + k) % n")
        made = self.options(step, env, "seat", d + 1)
        w.add(d + 1, "if out:")
        self.pick(d + 2)
        w.add(d + 2, f"{chosen}.append((seat, which, pl))")
        w.add(d, f"for seat, which, pl in {chosen}:")
        self.effects(made, "seat", d + 1)
        w.add(d + 1, "pass")
        return 1

    def choose(self, step: Any, env: dict[str, V], d: int) -> int:
        if step.none is not None or step.auto or any(
                o.steps and o.steps.__class__ is not S.Effects for o in step.options):
            return self.choose_framed(step, env, d, True)
        self.chain = None
        w = self.w
        if not step.active or step.auto:
            raise Uncovered("a `choose` by someone other than the active player, or `auto`")
        w.add(d, "seat = active")
        made = self.options(step, env, "seat", d)
        w.add(d, "if not out:")
        if step.none is None:
            w.add(d + 1, "raise GiveBack")
            self.pick(d)
            self.effects(made, "seat", d)
            return 1
        raise Uncovered("a `choose` with `none:` steps")

    # ---- frames: what the machine runs as steps of a frame it pushes -------------------------
    def frame(self, steps: tuple, env: dict[str, V], d: int, checks: bool) -> int:
        """The steps of a frame the machine pushes (`none:` steps, a branch or a procedure
        that may pause, the steps of an option played by itself): each is counted against
        the step budget, and with `checks` (the frame's, which push_block inherits) the end
        is checked after each. Returns the most steps counted."""
        count = 0
        for s in steps:
            count += self.fstep(s, env, d, checks)
            if checks:
                self.checks(s, d)
        return count

    def fstep(self, step: Any, env: dict[str, V], d: int, checks: bool) -> int:
        kind = type(step)
        if (step.pure or kind is S.Let or kind is S.Break or kind is S.ChanceStep
                or kind is S.TargetedChance):
            return self.step(step, env, d, True)
        if kind is S.Repeat:
            saved = self.own_begin()
            count = self.repeat(step, env, d, checks)
            self.own_end(saved)
            return count
        saved = self.own_begin()
        w = self.w
        w.add(d, "steps -= 1")
        if kind is S.If and step.gen is not None and step.gen.node is not None and \
                step.gen.node.op == "const":
            # a condition fixed when the game loads (a param): only its branch is written
            branch = step.then if step.gen.node.value else step.other
            count = 1 + self.frame(branch, dict(env), d, checks)
        elif kind is S.If:
            w.add(d, f"if {self.expr(step.gen, env).need()}:")
            a = self.frame(step.then, dict(env), d + 1, checks)
            w.add(d + 1, "pass")
            w.add(d, "else:")
            b = self.frame(step.other, dict(env), d + 1, checks)
            w.add(d + 1, "pass")
            count = 1 + max(a, b)
        elif kind is S.Run:
            count = 1 + self.frame(step.steps, env, d, checks)
        elif kind is S.ForEach:
            count = 1 + self.for_each(step, env, d, checks)
        elif kind is S.Choose:
            count = self.choose_framed(step, env, d, checks)
        else:
            raise Uncovered(f"the step {kind.__name__} here")
        self.own_end(saved)
        return count

    def for_each(self, step: Any, env: dict[str, V], d: int, checks: bool | None) -> int:
        """A `for` step. Run inline (`checks` None), as ForEach.run does, every round counts
        against the step budget; otherwise each round is a frame, the list worked out before
        the first. Each round is charged its work, and gives the game back where the budgets
        might run out (the number of rounds is known only then)."""
        w = self.w
        it = step.gen
        if it is None or not getattr(it, "nodes", None):
            raise Uncovered("a `for` step that did not compile")
        inner = dict(env)
        loops = []
        size = 1
        for name, node in it.nodes:  # each list worked out as its loop reaches it
            lst = self.ex(node, inner)
            if lst.size is None:
                raise Uncovered("a `for` step over a list whose length the game does not "
                                "bound")
            size *= max(lst.size, 1)
            var = w.t("v")
            elem = lst.elem
            inner[name] = V(var, node.type.elem, elem.kind if elem else None,
                            elem.seat if elem else None, elem.size if elem else None,
                            elem.elem if elem else None)
            loops.append((var, lst.need()))
        self.longest = max(self.longest, size)
        if len(loops) == 1:
            var, src = loops[0]
            w.add(d, f"for {var} in {src if checks is None else 'list(' + src + ')'}:")
        elif checks is None:  # the rounds as the machine's iterator makes them, one by one
            for var, src in loops[:-1]:
                w.add(d, f"for {var} in {src}:")
                d += 1
            var, src = loops[-1]
            w.add(d, f"for {var} in {src}:")
        else:  # every round's names worked out before the first
            names = ", ".join(var for var, _src in loops)
            clauses = " ".join(f"for {var} in {src}" for var, src in loops)
            w.add(d, f"for {names} in [({names}) {clauses}]:")
        at = len(w.lines)
        w.add(d + 1, "")  # the round's charge, written when the body's is known
        before = self.cost
        brk, self.brk = self.brk, None  # a `break` in it: not covered (see _step)
        if checks is None:
            count = self.steps(tuple(step.body), inner, d + 1, False)
        else:
            count = self.frame(tuple(step.body), inner, d + 1, checks)
        self.brk = brk
        w.add(d + 1, "pass")
        units = self.cost - before + UNITS_PER_STEP
        charge = f"work -= {units}"
        if self.calls:
            charge += f"; cw += {units}"
        if checks is None:  # the round counted, as ForEach.run counts it
            charge += "; steps -= 1"
        test = f"steps < {count}" + " or work < 0" + (" or cw > CALL_WORK" if self.calls else "")
        w.lines[at:at + 1] = ["    " * (d + 1) + charge,
                              "    " * (d + 1) + f"if {test}: raise GiveBack"]
        return 0

    def choose_framed(self, step: Any, env: dict[str, V], d: int, checks: bool) -> int:
        """A `choose` with `none:` steps, or `auto`, as Choose.run plays it: no option runs
        the `none:` steps as a frame (checks inherited); with `auto`, an only option is
        played by itself (logged as forced, no decision, its steps a frame of their own);
        otherwise a decision, whose option's steps run at once if they are all effects and
        as a frame if not; where the flat play may start in an option's steps, from there
        (`resume_options`). Returns the most steps counted."""
        w = self.w
        chain, at = self.chain, self.at
        self.chain = None
        if not step.active:
            raise Uncovered("a `choose` by someone other than the active player")
        if self.game.check_effects:
            raise Uncovered("`check: effects` with a `choose` that has `none:` or `auto`")
        sites = self.option_sites(step) if chain is not None else []
        if sites:  # entries in its options' steps: the decision where none resumes there
            w.add(d, f"if entry <= {at}:")
            top, d = d, d + 1
        w.add(d, "seat = active")
        made = self.options(step, env, "seat", d)
        none = 0
        w.add(d, "if not out:")
        if step.none is None:
            w.add(d + 1, "raise GiveBack")
        else:
            none = self.frame(tuple(step.none), dict(env), d + 1, checks)
            w.add(d + 1, "pass")
        w.add(d, "else:")
        forced = 0
        e = d + 1
        if step.auto:
            w.add(d + 1, "if len(out) == 1:")
            w.add(d + 2, "which, pl = out[0]")  # the engine's replay logs it as forced
            forced = self.option_steps(made, "seat", d + 2, True)
            w.add(d + 2, "pass")
            w.add(d + 1, "else:")
            e = d + 2
        self.pick(e)
        if self.calls:
            w.add(e, "cw = TURN_WORK")  # a decision: the next call begins
        picked = self.option_steps(made, "seat", e, False)
        w.add(e, "pass")
        if sites:
            self.resume_options(step, made, sites, chain, top)
        return 1 + max(none, forced, picked)

    def option_sites(self, step: Any) -> list:
        """The entries in the steps of a decision's options: (option, its steps, index)."""
        if type(step) is not S.Choose or not step.active:
            return []
        return [(k, opt.steps, j) for k, opt in enumerate(step.options)
                if opt.steps and opt.steps.__class__ is not S.Effects
                for j, s in enumerate(opt.steps) if self.is_site(s)]

    def resume_options(self, step: Any, made: list, sites: list, chain: list, d: int) -> None:
        """Where the machine stands in the frame of the option played (its steps, at an
        entry): those steps from there on, the option's names read from the frame. The
        decision was counted when the machine reached it; these steps were charged with
        the decision's."""
        w = self.w
        cost = self.cost
        w.add(d, "else:")
        w.add(d + 1, "steps += 1  # the decision: counted as the machine reached it")
        w.add(d + 1, "seat = active")
        first = True
        for k, steps, j in sites:
            p = self.pos
            self.pos += 1
            names, inner, _steps, _label = made[k]
            env = dict(inner)
            env["player"] = V("seat", inner["player"].type)
            for nm in names:
                v = inner[nm]
                if v.seat is not None and v.seat != inner["player"].src:
                    raise Uncovered("an option over another player's parts")
                env[nm] = V(w.t("y"), v.type, v.kind, None if v.seat is None else "seat",
                            v.size, v.elem)
            self.register(p, chain + [(steps, j)], steps[j], env)
            w.add(d + 1, f"{'if' if first else 'elif'} entry == {p}:")
            first = False
            self.frame(tuple(steps[j:]), env, d + 2, False)
            w.add(d + 2, "pass")
        w.add(d + 1, "else:")
        w.add(d + 2, "raise GiveBack")
        self.cost = cost

    def option_steps(self, made: list, seat: str, d: int, framed: bool) -> int:
        """The steps of the option played: a frame (`framed`: played by itself; or steps
        that are not all effects), each counted; otherwise at once, as effects."""
        w = self.w
        first = True
        count = 0
        for k, (names, inner, steps, _label) in enumerate(made):
            if not steps:
                continue
            w.add(d, f"{'if' if first else 'elif'} which == {k}:")
            first = False
            env = self.unpack(names, inner, seat, d + 1)
            if framed or steps.__class__ is not S.Effects:
                count = max(count, self.frame(tuple(steps), env, d + 1, False))
            else:
                self.steps(tuple(steps), env, d + 1, False)
            w.add(d + 1, "pass")
        return count

    # ---- repeat: a loop of rounds, and the entries in it ----------------------------------------
    def repeat(self, step: Any, env: dict[str, V], d: int, checks: bool) -> int:
        """A `repeat` as Repeat and RepeatTail play it: the step counted, `max` and `while`
        worked out; then rounds, each its steps (a frame: each counted, the end checked after
        each with `checks`) and the tail (counted: the round counted, then `max`, `until`,
        `while`); a `break` ends the Python loop. Each round is charged its work and gives
        the game back where the budgets might run out.

        Where the machine's frames may stand in it at an entry (the steps of the turn or
        of such a repeat: `chain`), its steps are numbered in the order of the turn, those
        an entry must skip guarded by `entry <= N`, and it resumes at the round the
        machine's frame counted (`st._stack[k]`, the repeat's frame)."""
        w = self.w
        chain, at = self.chain, self.at
        self.chain = None
        if self.firing:
            raise Uncovered("a `repeat` in a trigger's steps")
        gen = step.gen
        if gen is None or any(c is not None and c.node is None for c in gen):
            raise Uncovered("a `repeat` that did not compile")
        cap_c, while_c, until_c = gen
        self.has_repeats = True
        body = step.steps[:-1]
        resumable = chain is not None and self.has_sites(body)
        rn = w.t("rn")
        cap: str | None = None
        if cap_c is None:
            cap = f"({S.DEFAULT_REPEAT_MAX})"
        elif cap_c.node.op == "const" and cap_c.node.value.__class__ is int:
            cap = f"({cap_c.node.value})"
        # the step, where the machine's frame does not stand in it already
        e = d
        if resumable:
            w.add(d, f"if entry <= {at}:")
            e = d + 1
        w.add(e, "steps -= 1")
        conds = []
        if cap is None:
            conds.append(f"{self.expr(cap_c, env).need()} > 0")
        elif int(cap[1:-1]) <= 0:
            conds.append("False")
        if while_c is not None:
            conds.append(self.expr(while_c, env).need())
        go = None
        if conds:
            go = w.t("go")
            w.add(e, f"{go} = " + " and ".join(conds))
        w.add(e, f"{rn} = 0")
        if resumable:
            w.add(d, "else:")  # resumed in a round: as many counted as the frame says
            if go is not None:
                w.add(d + 1, f"{go} = True")
            w.add(d + 1, f"{rn} = st._stack[{len(chain)}].env[{w.c(S._ROUNDS)}]")
        if go is not None:
            w.add(d, f"if {go}:")
            d += 1
        w.add(d, "while True:")
        b = d + 1
        charge_at = len(w.lines)
        w.add(b, "")  # the round's charge, written when the body's is known
        before = self.cost
        name = f"RS{self.repeats}"
        self.repeats += 1
        outer, self.round_of = self.round_of, name
        brk, self.brk = self.brk, "break"
        inner = dict(env)
        count = 0
        for j, s in enumerate(body):
            p = self.pos
            self.pos += 1
            sub = None
            if resumable:
                sub = chain + [(step.steps, j)]
                if self.is_site(s):
                    self.register(p, sub, s, inner)
            self.chain = sub if sub is not None and self.sites_in(s) else None
            self.at = p
            guard = resumable and (self.has_sites(body[j + 1:]) or self.sites_in(s))
            f = b
            if guard:
                g = len(w.lines)
                w.add(b, f"if entry <= {p}:")
                f = b + 1
            count += self.fstep(s, inner, f, checks)
            if checks:
                self.checks(s, f)
            if guard:
                if self.pos - 1 != p:  # a repeat with entries in it: up to its last
                    w.lines[g] = "    " * b + f"if entry <= {self.pos - 1}:"
                w.add(f, "pass")
        self.chain = None
        self.brk, self.round_of = brk, outer
        # the tail: the round counted, then whether another follows
        saved = self.own_begin()
        w.add(b, "steps -= 1")
        if resumable:
            w.add(b, "entry = 0")  # the next round plays every step
        w.add(b, f"{rn} += 1")
        w.add(b, f"if {rn} >= {cap if cap is not None else self.expr(cap_c, env).need()}: "
                 "break")
        if until_c is not None:
            w.add(b, f"if {self.expr(until_c, env).need()}: break")
        if while_c is not None:
            w.add(b, f"if not {self.expr(while_c, env).need()}: break")
        self.own_end(saved)
        units = self.cost - before + UNITS_PER_STEP
        if not self.calls:
            # each round is charged as it begins: the turn's charge leaves its steps out
            # (where a decision starts a call's count at the turn's charge, it keeps them)
            self.cost = before
            self.rounds_work += units
        self.round_steps.append((name, count + 1, outer))
        charge = f"work -= {units}"
        if self.calls:
            charge += f"; cw += {units}"
        test = f"steps < {name} or work < 0" + (" or cw > CALL_WORK" if self.calls else "")
        w.lines[charge_at:charge_at + 1] = ["    " * b + charge,
                                            "    " * b + f"if {test}: raise GiveBack"]
        return 1

    @staticmethod
    def is_site(s: Any) -> bool:
        """A step the flat play may start at: a chance step, the active player's `choose`."""
        kind = type(s)
        return (kind is S.ChanceStep or kind is S.TargetedChance
                or (kind is S.Choose and s.active and not s.auto))

    def has_sites(self, steps: tuple) -> bool:
        return any(self.is_site(s) or self.sites_in(s) for s in steps)

    def sites_in(self, s: Any) -> bool:
        """Whether there are entries inside `s`: in a repeat's rounds, in the steps of a
        decision's options."""
        if type(s) is S.Repeat:
            return self.has_sites(s.steps[:-1])
        return bool(self.option_sites(s))

    def register(self, p: int, chain: list, s: Any, env: dict[str, V]) -> None:
        """`s`, at place `p` with the machine's frames at `chain`, is an entry: where the
        names its steps see can be read from the frame (numbers, texts, truths and lists of
        them, as the machine keeps them too)."""
        plain = (INT, BOOL, STR)
        lets = []
        for name, v in env.items():
            t = v.type
            if name == "player" and v.src == "seat":
                continue  # the active player, the seat deciding
            if (v.kind is not None or v.src is None or not re.fullmatch(r"[xy]\d+", v.src)
                    or not (t in plain or isinstance(t, ListT) and t.elem in plain
                            and (v.elem is None or v.elem.kind is None))):
                return  # a name of another value: the machine plays from here
            lets.append((name, v.src))
        self.sites[tuple((id(steps), j + 1) for steps, j in chain)] = p
        self.entry_ids.add(p)
        if type(s) is S.Choose:
            self.decision_ids.add(p)
        if lets:
            self.site_lets[p] = lets

    def pauses(self, steps: tuple) -> bool:
        """Whether the steps always pause (a chance step, a decision) before they end or
        a `break` may end them."""
        for s in steps:
            kind = type(s)
            if kind is S.ChanceStep or kind is S.TargetedChance or (
                    kind is S.Choose and s.none is None and not s.auto):
                return True
            if kind is S.If and not s.pure and self.pauses(s.then) and self.pauses(s.other):
                return True
            if kind is S.Run and self.pauses(s.steps):
                return True
            if (kind is S.Repeat and s.cond_while is None and s.gen is not None
                    and (s.gen[0] is None or s.gen[0].node is not None
                         and s.gen[0].node.op == "const" and s.gen[0].node.value.__class__ is int
                         and s.gen[0].node.value > 0)
                    and self.pauses(s.steps[:-1])):
                return True
            if self.breaks(s):
                return False
        return False

    def breaks(self, s: Any) -> bool:
        """Whether a `break` may run in `s` (one in a `repeat` inside it ends that one)."""
        kind = type(s)
        if kind is S.Break:
            return True
        if kind is S.If:
            return any(map(self.breaks, s.then + s.other))
        if kind is S.Run:
            return any(map(self.breaks, s.steps))
        if kind is S.ForEach:
            return any(map(self.breaks, s.body))
        if isinstance(s, S.Choose):
            return any(self.breaks(x) for o in s.options for x in o.steps) or any(
                map(self.breaks, s.none or ()))
        return False

    def rounds_pause(self, steps: tuple) -> bool:
        """Whether every round of every `repeat` in the steps pauses."""
        for s in steps:
            kind = type(s)
            inner: tuple = ()
            if kind is S.Repeat:
                if not self.pauses(s.steps[:-1]):
                    return False
                inner = s.steps[:-1]
            elif kind is S.If:
                inner = s.then + s.other
            elif kind is S.Run:
                inner = s.steps
            elif kind is S.ForEach:
                inner = s.body
            elif isinstance(s, S.Choose):
                inner = tuple(x for o in s.options for x in o.steps) + (s.none or ())
            if inner and not self.rounds_pause(inner):
                return False
        return True

    # ---- the module ---------------------------------------------------------------------------
    def module(self) -> tuple[str, frozenset[int]]:
        game = self.game
        w = self.w
        if len(game.phases) != 1 or game.phases[0][2] is not None:
            raise Uncovered("phases")
        if game.turn_reset_mask & self.trigger_mask:
            # the machine fires such a trigger at the first check after the reset
            raise Uncovered("a trigger that reads what a turn resets")
        if game.first_player is not None and not callable(game.first_player):
            raise Uncovered("the first player")
        if self._next_player(game.phases[0][1]):
            raise Uncovered("`next_player`")
        turn = game.phases[0][1]
        # the flat play starts at a turn's chance step or decision of the active player, at
        # its top or in its `repeat` (the game's first turn at the decision the setup leaves
        # due); where a turn, or a round of a `repeat`, may pass without a pause, one call of
        # the machine may play several, so the work of a call is counted too (`cw`, from its
        # decision on)
        self.calls = not self.pauses(turn) or not self.rounds_pause(turn)
        body_start = len(w.lines)
        w.add(2, "if steps < TURN_STEPS or work < TURN_WORK: raise GiveBack")
        w.add(2, "work -= TURN_WORK")
        if game.triggers:
            w.add(2, f"trig = {TRIGGER_RUNS}")
        if self.calls:
            w.add(2, "cw += TURN_WORK")
            w.add(2, "if cw > CALL_WORK: raise GiveBack")
        env: dict[str, V] = {}
        most = 0
        for i, s in enumerate(turn):
            p = self.pos
            self.pos += 1
            chain = [(turn, i)]
            if self.is_site(s):
                self.register(p, chain, s, env)
            self.chain = chain if self.sites_in(s) else None
            self.at = p
            g = len(w.lines)
            w.add(2, f"if entry <= {p}:")
            most += self.step(s, env, 3, True)
            if self.pos - 1 != p:  # a repeat with entries in it: up to its last
                w.lines[g] = f"        if entry <= {self.pos - 1}:"
            self.checks(s, 3)
            w.add(3, "pass")
        self.chain = None
        if not self.entry_ids:
            raise Uncovered("a turn without a chance step or a decision to start at")
        self.decisions = frozenset(self.decision_ids)
        w.add(2, "entry = 0")
        # the next turn, as _next_turn begins it
        w.add(2, "active = (active + 1) % n")
        w.add(2, "if active == start:")
        w.add(3, "if ending: break")
        w.add(3, "rnd += 1")
        w.add(2, "turn += 1")
        for name, value in game.turn_resets_player:
            w.add(2, f"p{self.pvar_names.index(name)} = [{w.c(value)}] * n")
        for name, value in game.turn_resets_game:
            w.add(2, f"g{self.gvar_names.index(name)} = {w.c(value)}")
        self.check_after(game.turn_mask, 2)  # the checks as the turn begins
        body = ["    " + line for line in w.lines[body_start:]]  # in the try and the loop
        del w.lines[body_start:]
        # every step and check written, each charged once: more than any one turn's work;
        # the firings of triggers are charged as they happen, at most TRIGGER_RUNS a turn
        turn_work = self.cost + UNITS_PER_STEP
        # a call (a move or a roll) may run on from one turn into the next
        # (a call from a pause in a round: the rest of its turn, the next turn to its pause,
        # each step at most twice)
        if ((4 if self.has_repeats else 2) * (turn_work + self.rounds_work
                                              + TRIGGER_RUNS * self.firing_work)
                > budget.WORK_PER_CALL):
            raise Uncovered("turns whose work cannot be bounded well below the budget of a call")
        kinds = game.components
        head = [
            "def play(st, grng, randrange, getbits, study, entry, moves, saved):",
            "    n = st.n",
            "    PLAYERS = range(n)",
            "    active, start, turn, rnd = st.active, st.start, st.turn, st.round",
            "    ending = False",
            "    reason = None",
            # the chance step played first was counted when the machine reached it
            "    steps, work, logc = st._steps_left + 1, st._work_left, st._log_chars",
            "    made = options = most = 0",
            "    chg = True  # see `changed`: the first check of the flat play runs",
            "    cw = 0",
            "    rand = grng.random",
            "    comps = st.comps",
        ]
        for i, name in enumerate(self.pvar_names):
            head.append(f"    p{i} = [p[{w.c(name)}] for p in st.pvars]")
        for i, name in enumerate(self.gvar_names):
            head.append(f"    g{i} = st.gvars[{w.c(name)}]")
        for kind in kinds:
            head += ["    " + line for line in kind.flat_bind(self)]
        head += ["    try:"]
        for p, lets in sorted(self.site_lets.items()):
            # an entry's names, as the machine's frame keeps them
            head.append(f"        if entry == {p}:")
            head.append("            fenv = st._stack[-1].env")
            head += [f"            {var} = fenv[{w.c(name)}]" for name, var in lets]
        if game.triggers:
            # the machine's last check left every trigger settled (see fire), or the
            # machine plays the game (from here: no move made yet)
            at = len(w.lines)
            self.settled(2)
            head += w.lines[at:]
            del w.lines[at:]
        head += ["        while True:"]
        tail = [
            "    except Over:",
            "        pass",
            "    except BaseException:",
            "        for kind, s, old in zip(KINDS, comps, saved):",
            "            kind.flat_restore(s, old)",
            "        moves.append((made, options, most))",
            "        raise",
            "    st.active, st.turn, st.round = active, turn, rnd",
            "    st.over, st.end_reason, st._ending = True, reason, False",
            "    st._steps_left, st._work_left, st._log_chars = steps, work, logc",
            "    st._version += 1",
            "    st._dirty = st._stale = 0",
            "    st._pending_chance = None",
            "    st._pending = None",
            "    st._stack = []",
        ]
        for i, name in enumerate(self.pvar_names):
            tail.append(f"    for p, x in zip(st.pvars, p{i}): p[{w.c(name)}] = x")
        for i, name in enumerate(self.gvar_names):
            tail.append(f"    st.gvars[{w.c(name)}] = g{i}")
        tail += ["    return made, options, most"]
        w.consts.update(KINDS=kinds, TURN_STEPS=most + 1, TURN_WORK=turn_work,
                        CALL_WORK=budget.WORK_PER_CALL, SITES=self.sites)
        # a round checks that its steps, the enclosing rounds' and a turn's are left
        rounds = {name: (count, outer) for name, count, outer in self.round_steps}
        for name, (count, outer) in rounds.items():
            total = count
            while outer is not None:
                more, outer = rounds[outer]
                total += more
            w.consts[name] = total + most + 1
        return "\n".join(head + body + tail) + "\n", frozenset(self.entry_ids)

    def _next_player(self, steps: tuple, seen: frozenset = frozenset()) -> bool:
        for s in steps:
            if isinstance(s, S.Run):
                if id(s) in seen:
                    raise Uncovered("a procedure that runs itself")
                seen = seen | {id(s)}
            if isinstance(s, S.NextPlayer):
                return True
            inner = ()
            if isinstance(s, S.If):
                inner = s.then + s.other
            elif isinstance(s, S.Run):
                inner = s.steps
            elif isinstance(s, S.Choose):
                inner = tuple(x for o in s.options for x in o.steps) + (s.none or ())
            elif isinstance(s, S.ForEach):
                inner = s.body
            elif isinstance(s, S.Repeat):
                inner = s.steps[:-1]
            if inner and self._next_player(inner, seen):
                return True
        return False


#: the builtins the flat code calls, its only ones
_BUILTINS = {f.__name__: f for f in (len, max, min, sum, int, range, set, list, tuple, str, bool,
                                      zip, abs, any, all, enumerate, sorted, map)} | {
    "BaseException": BaseException}


class Over(Exception):
    """The game ended within a turn (`finish: now`)."""


def build(game: Any) -> tuple[FlatGame | None, str]:
    """The game's flat play and its module's source, or None and why it is not covered."""
    missing = [k for k in game.components if not hasattr(k, "flat_types")]
    if missing:
        return None, f"component '{missing[0].name}' ({missing[0].kind})"
    gen = _Gen(game)
    try:
        source, entries = gen.module()
    except Uncovered as exc:
        return None, str(exc)
    except RecursionError:  # expressions nested too deeply to write out: the machine's
        return None, "expressions nested too deeply"
    return load(game, source, gen.w.consts, entries, gen.decisions), source


def load(game: Any, source: str, consts: dict[str, Any], entries: frozenset[int],
         decisions: frozenset[int] = frozenset()) -> FlatGame:
    """The flat play of a module's source (the tests load a changed one, too)."""
    names = dict(consts)
    names.update(_BUILTINS, GiveBack=GiveBack, Over=Over, check_int=_check_int)
    flat = FlatGame(source, pysource.compile_function(source, names, "play"), entries,
                    decisions, consts.get("SITES"))
    flat.consts = consts
    return flat
