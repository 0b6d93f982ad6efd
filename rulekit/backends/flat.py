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

A game of several phases writes each phase's turn under a test of the phase it is in,
and ends a turn as the machine's `_next_turn` does: the phase's `until`, then the next
seat (the one a `next_player` step chose, kept as `nxt`) and the round it completes.

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
from rulekit.components.base import plain_bits
from rulekit.engine import labels
from rulekit.engine import steps as S
from rulekit.engine.state import _CALLS, State, _late, _rebind_action, replay_moves
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


#: a search's question at a decision that asks the session to play on at random (see
#: _Gen.answer): AUTO - n for n decisions, below every preview's question
AUTO = -3 - budget.MAX_OPTIONS


class Uncovered(Exception):
    """Something the flat backend does not cover: the game keeps the machine's path."""


class GiveBack(Exception):
    """Raised in a flat game: the machine plays this game instead (its state untouched)."""


#: what a flat game raises where the machine plays it instead: its own GiveBack, and
#: whatever the machine would fail on (which the machine then fails on itself)
GIVEN_BACK = (GiveBack, ArithmeticError, LookupError, TypeError, ValueError, AttributeError,
              RecursionError, budget.BudgetExceeded)


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


def _element(src: str, type_: Type, lst: V) -> V:
    """An element of the list `lst` (a loop's name), as the list says its elements are."""
    elem = lst.elem
    if elem is None:
        return V(src, type_)
    return V(src, type_, elem.kind, elem.seat, elem.size, elem.elem)


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
                 decisions: frozenset[int] = frozenset(), sites: dict | None = None,
                 setup: bool = False) -> None:
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
        #: whether the play may start at the setup's last step, a chance step (entry -1)
        self.setup = setup
        #: the entries that are a `together`, where a session begins in its window
        self.windows: frozenset[int] = frozenset()
        #: whether the session works out the scores itself, now and at the end (the
        #: generator returns the final ones): a search's copy need not be a State
        self.light = False
        #: whether the session pauses before chance steps (a game without any draws none)
        self.chance = False
        #: a session's actions, by seat and label (see backends.session)
        self.actions: list[dict[str, Any]] = []
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
        i = self.entry(st, True)
        if i is None:
            return None
        grng = st.rng or st._new_rng()
        getbits = plain_bits(randrange)
        saved, start = self._saved(st, log)
        moves: list = []
        try:
            made, options, most = self._play(st, grng, randrange, getbits, study, i, moves,
                                             saved)
        except GIVEN_BACK:
            made, options, most = moves.pop()
            replay_moves(st, moves)
            return made, options, most, False
        if start is not None:
            st._unlogged = (start, moves)
        return made, options, most, True

    def begin_session(self, st: Any) -> tuple[Any, list, Any] | None:
        """The session's generator for `st` (this is the game's session play, see
        backends.session), its moves and the copy its log is replayed from; None where
        it cannot begin here."""
        i = self.entry(st, False)
        if i is None:
            return None
        saved, start = self._saved(st, True)
        moves: list = []
        return (self._play(st, st.rng or st._new_rng(), None, None, False, i, moves, saved),
                moves, start)

    def search_entry(self, st: Any) -> int | None:
        """Where a search's copies of `st` begin on this session (backends.session's
        SearchCopy), or None: the game's scores are worked out here, and a window the
        copy stands in has a choice for every seat before the one deciding (as
        `State.determinize` imagines them)."""
        if not self.light:
            return None
        i = self.entry(st, False)
        frame = st._stack[-1] if i is not None else None
        if frame.__class__ is S.WindowFrame and len(frame.choices) != frame.k:
            return None
        return i

    def entry(self, st: Any, deal: bool) -> int | None:
        """Where the flat play begins in `st`: an entry's number, -1 at the setup's deal,
        None where it cannot (`deal`: a game whose setup has other chance steps lets the
        machine resolve them first)."""
        stack = st._stack
        if self.windows and stack and stack[-1].__class__ is S.WindowFrame:
            return self._window(st)
        if len(stack) == 1 and stack[0].__class__ is S.SeqFrame:
            top = stack[0]
            if (self.setup and top.role == "setup" and st._pending is None
                    and top.i == len(top.steps) and st._pending_chance is top.steps[-1]
                    and not st._ending and st._next_seat is None and st._unlogged is None):
                return -1  # a new game at its deal: the flat play deals and plays on
        if stack and stack[0].role == "setup" and not (deal and self._deal(st)):
            return None
        if not stack or stack[0].__class__ is not S.SeqFrame:
            return None
        top = stack[0]
        i = self._site(stack)
        if i is None or top.role != "turn":
            return None
        if i in self.decisions:
            # a turn's decision is due: the flat play asks it anew
            pending = st._pending
            if (pending is None or pending.window is not None
                    or pending.seat != st.active or st._pending_chance is not None
                    or st._ending or st._unlogged is not None):
                return None
        else:
            last = stack[-1]
            if (st._pending is not None or i not in self.entries
                    or st._pending_chance is not last.steps[last.i - 1] or st._ending
                    or st._unlogged is not None):
                return None
        return i

    def _window(self, st: Any) -> int | None:
        """The entry of a `together` whose window `st` stands in, a seat of it deciding
        (the seats from the active player on, as the flat play asks them), or None."""
        stack = st._stack
        frame = stack[-1]
        i = self._site(stack[:-1]) if len(stack) > 1 else None
        pending = st._pending
        n = st.n
        if (i is None or i not in self.windows or stack[0].role != "turn"
                or pending is None or pending.window is not frame
                or frame.k >= len(frame.seats) or pending.seat != frame.seats[frame.k]
                or frame.seats != [(st.active + k) % n for k in range(n)]
                or st._pending_chance is not None or st._ending or st._unlogged is not None):
            return None
        return i

    @staticmethod
    def _saved(st: Any, log: bool) -> tuple[list, Any]:
        """Copies of the components (given back, the flat play restores them) and, with
        `log`, the copy of the state its moves are replayed from when the log is read."""
        saved = [kind.copy_state(s) for kind, s in zip(st.game.components, st.comps)]
        start = st._moves_start(saved) if log else None
        if start is not None and st._pending is not None:
            # the decision due, its options bound to the copy the log is replayed from
            d = st._pending
            window = start._stack[-1] if d.window is not None else None  # (begun in one)
            start._pending = S.Decision.copied(d.seat, d, window,
                                               lambda a: _rebind_action(a, start))
        return saved, start

    @staticmethod
    def _deal(st: Any) -> bool:
        """A game whose setup has chance steps (the deal, a roll of each player's dice)
        stands, when it is made, at one of them: the machine resolves the setup's chance
        steps as a playout's moves do (each its draw, its log, its budget of one call), and
        runs on to the first turn's decision or chance step, where the flat play starts.
        False where the setup asks a decision or the game ends in it."""
        meter = budget.meter()
        while st._stack and st._stack[0].role == "setup":
            step = st._pending_chance
            if step is None or st._pending is not None:
                return False
            old, old_what = meter.left, meter.what
            units, what = st._work_left, _CALLS["resolve_chance"]
            if units >= budget.WORK_PER_CALL:
                units = budget.WORK_PER_CALL
            else:
                what = _late(what)
            meter.left, meter.what = units, what
            # the decision it runs on to is made as random play makes one (as records: the
            # flat play asks it anew)
            st._playing = True
            try:
                st._chance(step, None)
            finally:
                st._playing = False
                st._work_left -= units - meter.left
                meter.left, meter.what = old, old_what
        return not st.over



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

    def __init__(self, game: Any, session: bool = False) -> None:
        self.game = game
        #: the session's generator (see backends.session): a pause at every decision, with
        #: its options' labels, and before every chance step
        self.session = session
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
        self.setup = False  # whether the module starts at the setup's deal, too
        self._defining: set[str] = set()
        #: the defines of the game read by the whole expression being written (see `whole`)
        self._hoists: dict[str, tuple[str, str, bool]] | None = None
        self._hoisted: dict[str, V] = {}  # what each define hoisted is like
        self.loops = 0  # how many loops of a comprehension the expression written is in
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
        #: the entries that are a `together` (by the step's id): the session may begin
        #: in its window, some seats having chosen
        self.windows: dict[int, int] = {}
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
        self.chosen = False  # whether a `next_player` step may choose the next seat (`nxt`)
        #: the score's source for a player `scq`, and the final score's (with what
        #: `end.score` adds), "" where the machine works it out
        self.score_src: str | None = None
        self.final_src = ""
        #: the lines before them: each player's define they read, for every seat (see
        #: seat_define; None outside the scores)
        self.score_pre: list[str] = []
        self.final_pre: list[str] = []
        self._seat_defs: dict[str, tuple[str, str, V]] | None = None

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
        if name == "phase" and self.game.scope.globals.get("phase") is glob:
            names = [phase[0] for phase in self.game.phases]
            return V(f"{self.w.c(names)}[phase]", STR)
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
        if self._seat_defs is not None and env and set(env) == {"player"}:
            return self.seat_define(name, c, env["player"])
        hoists = self._hoists if not env else None  # a define of the game (no player's)
        if hoists is not None and name in hoists:
            param, src, looped = hoists[name]
            hoists[name] = (param, src, looped or self.loops > 0)
            v = self._hoisted[name]
            return V(param, v.type, v.kind, v.seat, v.size, v.elem)
        self._defining.add(name)
        try:
            if c is None or c.node is None:
                raise Uncovered("an expression that did not compile")
            v = self.ex(c.node, env)
        finally:
            self._defining.discard(name)
        if v.src is not None and len(v.src) > MOST_DEFINE_CHARS:
            # defines that read others several times each (doubling): written out, their
            # source would grow without end
            raise Uncovered(f"the define '{name}', more than {MOST_DEFINE_CHARS} characters "
                            "of code where it is read")
        if hoists is None or v.src is None:
            return v
        param = self.w.t("d")
        hoists[name] = (param, v.src, self.loops > 0)
        self._hoisted[name] = v
        return V(param, v.type, v.kind, v.seat, v.size, v.elem)

    def seat_define(self, name: str, c: Any, seat: V) -> V:
        """A player's define read by the scores: worked out for every seat once, before
        the scores (`_seat_defs`), and read from that list (a score reads a player's
        define for itself and for the others, a `won` of each seat six times in a score
        of two players)."""
        made = self._seat_defs[name] if name in self._seat_defs else None
        if made is None:
            if name in self._defining:
                raise Uncovered(f"the define '{name}', which reads itself")
            q = self.w.t("q")
            self._defining.add(name)
            hoists, self._hoists = self._hoists, None  # its game defines written out
            try:
                if c is None or c.node is None:
                    raise Uncovered("an expression that did not compile")
                v = self.ex(c.node, {"player": V(q, seat.type)})
            finally:
                self._defining.discard(name)
                self._hoists = hoists
            if v.src is None or v.kind is not None:
                raise Uncovered(f"the player's define '{name}' in the score")
            made = self._seat_defs[name] = (self.w.t("dp"), f"[{v.src} for {q} in PLAYERS]", v)
        param, _src, v = made
        return V(f"{param}[{seat.need()}]", v.type, None, None, v.size, v.elem)

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
        # a building block's value when both are of the same one (an `in` compares them)
        same = a.kind is b.kind and a.seat == b.seat
        return V(f"({a.need()} if {c.need()} else {b.need()})", node.type,
                 a.kind if same else None, a.seat if same else None,
                 None if a.size is None or b.size is None else max(a.size, b.size))

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
        if op in ("==", "!=") and self._own(left) and self._own(right):
            # the machine's own objects (cards, tiles), or none: compared as the machine does
            return V(f"({left.need()} {op} {right.need()})", node.type)
        if op == "+" and left.type is STR and right.type is STR:
            # runtime.concat_str's charge, at most MAX_STR >> 4 a time: bounded as scans
            self.scans += (budget.MAX_STR >> 4) // UNITS_PER_SCAN + 1
            return V(f"{self.w.c(_concat)}({left.need()}, {right.need()})", STR)
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

    @staticmethod
    def _own(v: V) -> bool:
        """Whether `v` is none or the machine's own object (see a kind's `flat_same`)."""
        if v.src == "None":
            return True
        same = getattr(v.kind, "flat_same", None)
        return same is not None and same(v.type)

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
        outer = self.loops
        for name, it, conds in levels:
            lst = self.ex(it, inner)
            self.loops = outer + 1  # what follows is worked out once per element
            if lst.size is None:
                raise Uncovered("a loop over a list whose length the game does not bound")
            size *= max(lst.size, 1)
            var = self.w.t("v")
            inner[name] = _element(var, it.type.elem, lst)
            out.append(f"for {var} in {lst.need()}")
            for c in conds:
                out.append(f"if {self.ex(c, inner).need()}")
        self.loops = outer
        self.longest = max(self.longest, size)
        self.last_size = size
        return " ".join(out), inner

    def _comp(self, node: Any, env: dict[str, V]) -> V:
        levels, body = node.data
        text, inner = self.clauses(levels, env)
        size = self.last_size  # at most one element per round of its loops
        self.loops += 1
        try:
            return V(f"[{self.ex(body, inner).need()} {text}]", node.type, size=size)
        finally:
            self.loops -= 1

    def _gen(self, gen: Any, env: dict[str, V]) -> str:
        levels, body = gen.node.data
        text, inner = self.clauses(levels, env)
        self.loops += 1
        try:
            return f"({self.ex(body, inner).need()} {text})"
        finally:
            self.loops -= 1

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
        if name == "first" and gen is not None:  # the first element, None if there is none
            return V(f"next({self._gen(gen, env)}, None)", node.type)
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
        if name == "range" and 1 <= len(args) <= 3 and gen is None:
            return self._range(node, env)
        raise Uncovered(f"the function {name}()")

    def _range(self, node: Any, env: dict[str, V]) -> V:
        """range() whose length the game bounds: range(n) of an int a building block bounds
        (as its `size`), or one whose stop is at most what an expression of constants,
        params and player_count can be (`bounds`), less the least its start can be (0 where
        that is not known). The list is as long as that at most, or the game is given back
        (a start below what was assumed, a step that is not positive: the machine's)."""
        args = node.kids
        vals = [self.ex(a, env) for a in args]
        if len(args) == 1 and vals[0].size is not None:
            if vals[0].size > budget.MAX_LIST:
                raise Uncovered("range() of a number the game does not bound")
            return V(f"list(range({vals[0].need()}))", node.type, size=vals[0].size)
        stop = self.bounds(args[0 if len(args) == 1 else 1], env)[1]
        start = 0 if len(args) == 1 else self.bounds(args[0], env)[0]
        if stop is None:
            raise Uncovered("range() of a number the game does not bound")
        cap = max(stop - (0 if start is None else start), 0)
        if cap > budget.MAX_LIST:
            raise Uncovered("range() of a number the game does not bound")
        self.longest = max(self.longest, cap)  # the machine's range_list charges its length
        srcs = ", ".join(v.need() for v in vals)
        return V(f"{self.w.c(_range)}({cap}, {srcs})", node.type, size=cap)

    def bounds(self, node: Any, env: dict[str, V]) -> tuple[int | None, int | None]:
        """The least and the most a whole number can be (None: not known), from what the
        game fixes: constants and params, the number of players, a list of the file's
        numbers indexed, defines of those, and sums, differences and products of them."""
        op = node.op
        if op == "const":
            v = node.value
            if v.__class__ is int or v.__class__ is bool:
                return int(v), int(v)
            return None, None
        if op == "global":
            name, glob = node.data
            if glob.src == "st.n":
                return self.game.min_players, self.game.max_players
            define = self.defines.get(name)
            if (define is not None and not define[0] and glob.var is None
                    and self.game.scope.globals.get(name) is glob
                    and name not in self._defining and getattr(define[1], "node", None)
                    and len(self._defining) < MOST_DEFINES_DEEP):
                self._defining.add(name)
                try:
                    return self.bounds(define[1].node, {})
                finally:
                    self._defining.discard(name)
            return None, None
        if op == "local":
            v = env.get(node.data)
            return (None, v.size) if v is not None and v.type is INT else (None, None)
        if op == "index" and node.kids[0].op == "const":
            xs = node.kids[0].value
            if isinstance(xs, list) and xs and all(x.__class__ is int for x in xs):
                return min(xs), max(xs)
            return None, None
        if op == "cond":
            (a, b), (c, d) = (self.bounds(k, env) for k in (node.kids[0], node.kids[2]))
            return (None if a is None or c is None else min(a, c),
                    None if b is None or d is None else max(b, d))
        if op == "binop" and node.data in ("+", "-", "*"):
            (a, b), (c, d) = (self.bounds(k, env) for k in node.kids)
            if node.data == "+":
                return (None if a is None or c is None else a + c,
                        None if b is None or d is None else b + d)
            if node.data == "-":
                return (None if a is None or d is None else a - d,
                        None if b is None or c is None else b - c)
            if None in (a, b, c, d):
                return None, None
            products = [a * c, a * d, b * c, b * d]
            return min(products), max(products)
        return None, None

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
        if isinstance(t, ListT):
            # a list writes its elements' texts: objects that are the machine's own (tiles,
            # cards) write theirs; a player or a part of a building block is not one here
            elem, inner = t, v
            while isinstance(elem, ListT):
                elem, inner = elem.elem, inner.elem if inner is not None else None
            kind = inner.kind if inner is not None else None
            if elem not in (INT, STR, BOOL) and not (
                    kind is not None and getattr(kind, "flat_same", None)
                    and kind.flat_same(elem)):
                raise Uncovered(f"the text of a list of {getattr(elem, 'name', elem)}")
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
        return self.whole(c.node, env)

    def whole(self, node: Any, env: dict[str, V]) -> V:
        """A whole expression (one the machine works out at once, on one state): each
        define of the game it reads in a loop is worked out at its first read and kept for
        the others (the machine's defines are kept per state)."""
        if self._hoists is not None:
            return self.ex(node, env)
        self._hoists = {}
        try:
            v = self.ex(node, env)
            hoists = self._hoists
        finally:
            self._hoists = None
        if not hoists or v.src is None:
            return v
        src = v.src
        for param, value, looped in reversed(hoists.values()):
            token = re.compile(rf"\b{param}\b")
            if looped:  # (read twice but not in a loop: the wrapping would cost more)
                # worked out where it is first read, as the machine does (a read in a branch
                # not taken, or in a loop over nothing, works out nothing), then kept
                once = f"({param}[0] if {param} else ({param}.append({value}) or {param}[0]))"
                src = f"(lambda {param}: {token.sub(lambda _m, once=once: once, src)})([])"
            else:  # read once: written where it is read
                src = token.sub(lambda _m, value=value: value, src)
        return V(src, v.type, v.kind, v.seat, v.size, v.elem)

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
                lst = self.whole(node, env)
                if lst.size is None:
                    raise Uncovered("a trigger's `for` over a list whose length the game "
                                    "does not bound")
                size *= max(lst.size, 1)
                self.longest = max(self.longest, size)
                var = w.t("v")
                env[name] = _element(var, node.type.elem, lst)
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
        if kind is S.NextPlayer:
            who = self.expr(step.gen, env)
            if who.kind is not None or not (who.type is INT or isinstance(who.type, ObjT)
                                            and who.type.name == "Player"):
                raise Uncovered("`next_player` of this value")
            var = w.t("x")
            w.add(d, f"{var} = {who.need()}")
            # anything but a seat: the machine fails on it
            w.add(d, f"if {var}.__class__ is not int or not 0 <= {var} < n: raise GiveBack")
            w.add(d, f"nxt = {var}")
            return 1
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
            if self.session:  # resolve_chance() rolls
                self.chance_pause(int(step.component), d)
            kd.flat_chance(self, step.name, d)
            self.changed(step, d)
            return 1
        if kind is S.ChanceStep:
            kd = self.game.components[step.component]
            if not hasattr(kd, "flat_chance") or not hasattr(kd, "flat_outcome"):
                raise Uncovered(f"`{step.name}` of {kd.kind}")
            if self.session:  # resolve_chance() rolls
                self.chance_pause(int(step.component), d)
            kd.flat_chance(self, step.name, d)
            self.changed(step, d)
            return 1
        if kind is S.ForEach and step.pure:
            return self.for_each(step, env, d, None)
        if kind is S.ForEach and framed:  # each round a frame, as at a frame's level
            return 1 + self.for_each(step, env, d, True)
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
        w.add(d, "out = []; labs = []" if self.session else "out = []")
        lookups = False
        made = _Options()
        # one option (and perhaps the pass): `out` holds its payloads alone (the pass is
        # PASS), without each wrapped with its option's number
        made.single = len(step.options) == 1
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
                    lst = self.whole(node, inner)
                    if lst.size is None:
                        raise Uncovered("options over a list whose length is not bounded")
                    size *= max(lst.size, 1)
                    var = w.t("v")
                    inner[name] = _element(var, node.type.elem, lst)
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
            if not made.single:
                record = f"out.append(({k}, {payload}))"
            elif len(names) == 1:
                record = f"out.append({inner[names[0]].need()})"
            else:
                record = f"out.append({payload})"
            if forms is not None:
                form = forms[k]
                parts = [p for p in label.node[1] if not isinstance(p, str)]
                keys = [self.key(self.ex(node, inner)) for node, _r in parts]
                if form.tag is not None:
                    keys.insert(0, str(form.tag))
                local = {node.data for node, _r in parts if node.op == "local"}
                # `x.name` of an object whose text is its name tells x apart as x does
                local |= {node.kids[0].data for node, _r in parts
                          if node.op == "attr" and node.kids[0].op == "local"
                          and getattr(node.kids[0].type, "text", None) is not None
                          and node.kids[0].type.text[0] == node.data}
                distinct = (not form.shared and all(ok for _n, ok in loops)
                            and {nm for nm, _ok in loops} <= local)
                key = "(" + "".join(k_ + ", " for k_ in keys) + ")"
            else:  # a label of a list's numbers (see keyed_unique): no lookup either
                distinct = self.keyed_unique(step, label, iterate)
                key = "" if distinct else self.template(label, inner)
            at = depth
            if not distinct:
                lookups = True
                kv = w.t("key")
                w.add(depth, f"{kv} = {key}")
                w.add(depth, f"if {kv} not in seen:")
                w.add(depth + 1, f"seen.add({kv})")
                at = depth + 1
            if self.session:  # the option's label, for legal_actions()
                lab = kv if forms is None and not distinct else self.label(label, inner, at)
                record += f"; labs.append({lab})"
            w.add(at, record)
            total += size
            self.longest = max(self.longest, size)
            made.append((names, inner, steps, label))
        if lookups:
            w.lines.insert(body_at, "    " * d + "seen = set()")
        if total + 1 > budget.MAX_OPTIONS:
            raise Uncovered("a decision of more options than the budget allows")
        if step.pass_label is not None:
            passed = f"out.append({'PASS' if made.single else '(-1, ())'})"
            if self.session:
                passed += f"; labs.append({w.c(step.pass_label)})"
            if forms is not None or not lookups:  # no option's label can be the pass label
                w.add(d, passed)
            else:
                w.add(d, f"if {w.c(step.pass_label)} not in seen: {passed}")
        return made

    def label(self, label: Any, inner: dict[str, V], d: int) -> str:
        """An option's label as the session shows it. A label that is one `join` of
        numbers (and literals) is kept by the tuple of its numbers, in a table of the
        module that every session of the game shares: written once per such tuple."""
        parts = [p for p in label.node[1] if not isinstance(p, str)]
        node = parts[0][0] if len(parts) == 1 else None
        if (node is None or node.op != "call" or node.data[0] != "join" or len(node.kids) != 2
                or node.kids[0].op != "const" or getattr(node.kids[1].type, "elem", None)
                is not INT):
            return self.template(label, inner)
        w = self.w
        table = w.c(_LabelTable())
        lab, key = w.t("lab"), w.t("key")
        w.add(d, f"{key} = tuple({self.ex(node.kids[1], inner).need()})")
        w.add(d, f"{lab} = {table}.get({key})")
        w.add(d, f"if {lab} is None: {lab} = {table}.keep({key}, {self.template(label, inner)})")
        return lab

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

    def unpack(self, names: list, inner: dict[str, V], seat: str, d: int,
               single: bool = False) -> dict[str, V]:
        """The env of the option played, its names read from its payload `pl` (`single`:
        one name is the payload itself)."""
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
            if single and len(fresh) == 1:
                w.add(d, f"{fresh[0]} = pl")
            else:
                w.add(d, f"{''.join(f + ', ' for f in fresh)}= pl")
        return env

    def pick(self, d: int, made: list, seat: str = "seat") -> None:
        """The draw of an option of `made` (in `out`), recorded among the moves (`seat`:
        the name of the seat deciding)."""
        w = self.w
        single = made.single
        w.add(d, "made += 1")
        if self.session:  # the caller picks: legal_actions() shows the labels
            w.add(d, "if auto:")  # (see answer)
            w.add(d + 1, "auto -= 1")
            w.add(d + 1, "i = 0 if len(out) == 1 else search[1](len(out))")
            w.add(d, "else:")
            w.add(d + 1, f"i = yield ({seat}, out, labs)")
            w.add(d + 1, "svc = None")
            w.add(d + 1, "while i < 0:")
            self.answer(made, seat, d + 2)
            w.add(d, "moves.append(i)")
            w.add(d, "pl = out[i]" if single else "which, pl = out[i]")
            return
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
        w.add(d, "pl = out[i]" if single else "which, pl = out[i]")

    def answer(self, made: list, seat: str, d: int) -> None:
        """A search's question at a decision, sent in place of a choice (see
        backends.session's SearchCopy): -1 the scores now, -2 - k the scores right after
        option k's effects (as `State.preview` runs them, the state then put back), None
        where the option's steps are more than effects or fail (the machine answers);
        AUTO - n: play n decisions from this one on at random, drawn as State.playout draws
        them (with the search's `_randbelow`), and the chance steps among them, unasked."""
        w = self.w
        w.add(d, "if i <= AUTO:")
        w.add(d + 1, "auto = AUTO - i - 1")
        w.add(d + 1, "i = 0 if len(out) == 1 else search[1](len(out))")
        w.add(d + 1, "continue")
        w.add(d, "if i == -1:")
        w.add(d + 1, f"i = yield {self.scores(d + 1)}")
        w.add(d + 1, "continue")
        w.add(d, "pl = out[-2 - i]" if made.single else "which, pl = out[-2 - i]")
        copied = [f"p{k}" for k in range(len(self.pvar_names))] + [
            name for kind in self.game.components for name in getattr(kind, "flat_held", list)()]
        held = (["steps", "work", "logc", "chg"] + copied
                + [f"g{k}" for k in range(len(self.gvar_names))])
        kept = [f"{v}.copy()" if v in copied else v for v in held]
        # the components some option's effects may change: kept, and put back after
        writes = 0
        for _names, _inner, steps, _label in made:
            writes |= self._union(tuple(steps)) if steps.__class__ is S.Effects else 0
        bits = getattr(self.game, "part_bits", {})
        kept_comps = w.c(tuple((j, kind) for j, kind in enumerate(self.game.components)
                               if writes == -1 or bits.get(kind.name, -1) & writes))
        # kept once for the previews of this pause (putting back leaves them as they are)
        w.add(d, "if svc is None:")
        w.add(d + 1, f"svc = [kd.copy_state(comps[j]) for j, kd in {kept_comps}]")
        w.add(d + 1, f"svv = ({', '.join(kept)},)")
        w.add(d, "ans = None")
        w.add(d, "try:")
        # written a second time: charged once, as the option's own effects are
        saved = self.cost, self.longest, self.widest, self.scans
        self.effects(made, seat, d + 1, preview=True)
        self.cost, self.longest, self.widest, self.scans = saved
        w.add(d + 1, f"ans = {self.scores(d + 1)}")
        w.add(d, "except PREVIEW_FAILS:")
        w.add(d + 1, "pass")
        w.add(d, f"for (j, kd), old in zip({kept_comps}, svc): kd.flat_restore(comps[j], old)")
        w.add(d, f"{', '.join(held)}, = svv")
        if copied:  # what was kept stays as it was for the next preview
            w.add(d, f"svv = ({', '.join(kept)},)")
        w.add(d, "i = yield ans")

    def scores(self, d: int, final: bool = False) -> str:
        """The scores now, as `State.scores` works them out (`final`: at the end, with
        what `end.score` adds): written out where the score (and each part) is an
        expression the flat play covers and whose work is bounded well below a call's;
        otherwise the state written back and asked, or at the end "SCORES(st)" alone."""
        w = self.w
        if self.score_src is None:
            self._seat_defs = {}
            try:
                self.score_src = self.score_source(self.game.score_checked)
                self.score_pre = [f"{p} = {src}" for p, src, _v in self._seat_defs.values()]
                parts = [self.score_source(c)
                         for c in getattr(self.game, "end_score_checked", [])]
                self.final_pre = [f"{p} = {src}" for p, src, _v in self._seat_defs.values()]
            finally:
                self._seat_defs = None
            self.final_src = "" if "" in parts or not self.score_src else " + ".join(
                [f"({self.score_src})"] + [f"({p})" for p in parts])
        src = self.final_src if final else self.score_src
        if not src:
            if not final:
                self.write_back(d)
            return "SCORES(st)"
        for line in self.final_pre if final else self.score_pre:
            w.add(d, line)
        w.add(d, "scs = []")
        w.add(d, "for scq in PLAYERS:")
        w.add(d + 1, f"sc = {src}")
        w.add(d + 1, "scs.append(int(sc) if sc == int(sc) else sc)")
        return "scs"

    def score_source(self, c: Any) -> str:
        """A score's expression for the player `scq`, or "" where the machine works it
        out (not covered, or more work than a quarter of a call's budget for all seats)."""
        saved, cost = self.own_begin(), self.cost
        try:
            src = self.expr(c, {"player": V("scq", self.player_type)}).need()
        except Uncovered:
            src = ""
        work = self.game.max_players * (self.cost - cost + UNITS_PER_STEP
                                        + UNITS_PER_ELEMENT * self.longest)
        self.own_end(saved)
        self.cost = cost
        return "" if work > budget.WORK_PER_CALL // 4 else src

    def write_back(self, d: int) -> None:
        """The state's variables and turn as the session's play holds them, written into
        the state (its components are the play's own lists) so that the machine's scores
        read them; what they were is kept first, to put back if the machine takes over."""
        w = self.w
        w.add(d, "if wb is None: wb = ([dict(p) for p in st.pvars], dict(st.gvars), "
                 "st.active, st.turn, st.round, st.phase)")
        w.add(d, "st.active, st.turn, st.round, st.phase = active, turn, rnd, phase")
        for i, name in enumerate(self.pvar_names):
            w.add(d, f"for p, x in zip(st.pvars, p{i}): p[{w.c(name)}] = x")
        for i, name in enumerate(self.gvar_names):
            w.add(d, f"st.gvars[{w.c(name)}] = g{i}")
        w.add(d, "st._version += 1")

    def chance_pause(self, k: int, d: int) -> None:
        """A session's pause before a chance step of component `k`: None sent draws it,
        -1 asks the scores now."""
        w = self.w
        w.consts["CHANCE"] = True
        w.add(d, "if not auto:")
        w.add(d + 1, f"rq = yield {k}")
        w.add(d + 1, "while rq is not None:")
        w.add(d + 2, f"rq = yield {self.scores(d + 2)}")

    def effects(self, made: list, seat: str, d: int, preview: bool = False) -> None:
        """The effects of the option played (`which`, its payload `pl`) for `seat`; for
        a `preview`, an option whose steps are more than effects gives back."""
        w = self.w
        first = True
        single = getattr(made, "single", False)
        for k, (names, inner, steps, _label) in enumerate(made):
            if not steps:
                continue
            w.add(d, "if pl is not PASS:" if single else
                  f"{'if' if first else 'elif'} which == {k}:")
            first = False
            if steps.__class__ is not S.Effects:
                if not preview:
                    raise Uncovered("an option whose steps are more than effects")
                w.add(d + 1, "raise GiveBack")
                continue
            env = self.unpack(names, inner, seat, d + 1, single)
            self.steps(tuple(steps), env, d + 1, False)
            w.add(d + 1, "pass")

    def together(self, step: Any, env: dict[str, V], d: int) -> int:
        w = self.w
        if not step.effects_only:
            raise Uncovered("a `together` whose options have more than effects")
        chosen = w.t("chosen")
        w.add(d, f"{chosen} = []")
        # begun in the window (see module): the seats before the one deciding chose
        p = self.windows.get(id(step))
        w.add(d, "for k in range(n):")
        w.add(d + 1, "seat = (active + k) % n")
        made = self.options(step, env, "seat", d + 1)
        w.add(d + 1, "if out:")
        if p is not None:
            # (a search's copy imagines another seat's choice: drawn as Random.choice
            # draws, as State.determinize imagines it)
            w.add(d + 2, "if pre is not None and k < wk:")
            w.add(d + 3, ("pl = out" if made.single else "which, pl = out")
                  + "[search[1](len(out)) if search is not None and seat != search[0] "
                  "else labs.index(pre[seat])]")
            w.add(d + 3, f"{chosen}.append((seat, {'' if made.single else 'which, '}pl))")
            w.add(d + 3, "continue")
        self.pick(d + 2, made)
        w.add(d + 2, f"{chosen}.append((seat, {'' if made.single else 'which, '}pl))")
        if p is not None:
            w.add(d, "pre = None")  # the next turn's window begins with no choice made
        w.add(d, f"for seat, {'' if made.single else 'which, '}pl in {chosen}:")
        self.effects(made, "seat", d + 1)
        w.add(d + 1, "pass")
        return 1

    def choose(self, step: Any, env: dict[str, V], d: int) -> int:
        if step.none is not None or step.auto or any(
                o.steps and o.steps.__class__ is not S.Effects for o in step.options):
            return self.choose_framed(step, env, d, True)
        self.chain = None
        w = self.w
        seat = self.chooser(step, env, d)
        made = self.options(step, env, seat, d)
        w.add(d, "if not out:")
        w.add(d + 1, "raise GiveBack")
        self.pick(d, made, seat)
        self.effects(made, seat, d)
        return 1

    def chooser(self, step: Any, env: dict[str, V], d: int) -> str:
        """The seat that decides a `choose`: the active player's, or what its `who` gives,
        worked out as Choose.run does, into a name of its own (the steps of an option may
        ask another player)."""
        if step.active:
            self.w.add(d, "seat = active")
            return "seat"
        who = getattr(step, "who_gen", None)
        if who is None:
            raise Uncovered("a `choose` by someone other than the active player")
        v = self.expr(who, env)
        if v.kind is not None or not (isinstance(v.type, ObjT) and v.type.name == "Player"):
            raise Uncovered("a `choose` by this value")
        seat = self.w.t("seat")
        self.w.add(d, f"{seat} = {v.need()}")
        return seat

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
            lst = self.whole(node, inner)
            if lst.size is None:
                raise Uncovered("a `for` step over a list whose length the game does not "
                                "bound")
            size *= max(lst.size, 1)
            var = w.t("v")
            inner[name] = _element(var, node.type.elem, lst)
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
        if self.game.check_effects:
            raise Uncovered("`check: effects` with a `choose` that has `none:` or `auto`")
        sites = self.option_sites(step) if chain is not None else []
        if sites:  # entries in its options' steps: the decision where none resumes there
            w.add(d, f"if entry <= {at}:")
            top, d = d, d + 1
        seat = self.chooser(step, env, d)
        made = self.options(step, env, seat, d)
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
            # the engine's replay logs it as forced
            w.add(d + 2, "pl = out[0]" if made.single else "which, pl = out[0]")
            forced = self.option_steps(made, seat, d + 2, True)
            w.add(d + 2, "pass")
            w.add(d + 1, "else:")
            e = d + 2
        self.pick(e, made, seat)
        if self.calls:
            w.add(e, "cw = TURN_WORK")  # a decision: the next call begins
        picked = self.option_steps(made, seat, e, False)
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
        single = getattr(made, "single", False)
        for k, (names, inner, steps, _label) in enumerate(made):
            if not steps:
                continue
            w.add(d, "if pl is not PASS:" if single else
                  f"{'if' if first else 'elif'} which == {k}:")
            first = False
            env = self.unpack(names, inner, seat, d + 1, single)
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
        elif type(s) is S.Together:
            self.windows[id(s)] = p
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
        if game.turn_reset_mask & self.trigger_mask:
            # the machine fires such a trigger at the first check after the reset
            raise Uncovered("a trigger that reads what a turn resets")
        if game.first_player is not None and not callable(game.first_player):
            raise Uncovered("the first player")
        phases = game.phases
        # several phases, or one that ends: the turn's steps are the phase's (`phase`)
        phased = len(phases) > 1 or phases[0][2] is not None
        # a `next_player` step: the next turn is the chosen seat's (`nxt`, -1: none)
        self.chosen = any(self._next_player(turn) for _n, turn, _u in phases) or any(
            self._next_player(tuple(t.steps)) for t in game.triggers)
        # the flat play starts at a turn's chance step or decision of the active player, at
        # its top or in its `repeat` (the game's first turn at the decision the setup leaves
        # due); where a turn, or a round of a `repeat`, may pass without a pause, one call of
        # the machine may play several, so the work of a call is counted too (`cw`, from its
        # decision on)
        self.calls = any(not self.pauses(turn) or not self.rounds_pause(turn)
                         for _n, turn, _u in phases)
        body_start = len(w.lines)
        w.add(2, "if steps < TURN_STEPS or work < TURN_WORK: raise GiveBack")
        w.add(2, "work -= TURN_WORK")
        if game.triggers:
            w.add(2, f"trig = {TRIGGER_RUNS}")
        if self.calls:
            w.add(2, "cw += TURN_WORK")
            w.add(2, "if cw > CALL_WORK: raise GiveBack")
        most = 0
        for k, (_name, turn, _until) in enumerate(phases):
            b = 2
            if phased:
                w.add(2, f"{'if' if k == 0 else 'elif'} phase == {k}:")
                b = 3
            most = max(most, self.turn_steps(turn, b))
        self.chain = None
        if not self.entry_ids:
            raise Uncovered("a turn without a chance step or a decision to start at")
        self.decisions = frozenset(self.decision_ids)
        w.add(2, "entry = 0")
        self.next_turn()
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
            "def play(st, grng, randrange, getbits, study, entry, moves, saved, search=None):",
            "    n = st.n",
            "    PLAYERS = range(n)",
            "    active, start, turn, rnd = st.active, st.start, st.turn, st.round",
            "    phase = st.phase",
            "    nxt = -1 if st._next_seat is None else st._next_seat",
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
        if self.session:
            head.append("    wb = None  # see write_back")
            head.append("    auto = 0  # see answer")
        for i, name in enumerate(self.pvar_names):
            head.append(f"    p{i} = [p[{w.c(name)}] for p in st.pvars]")
        for i, name in enumerate(self.gvar_names):
            head.append(f"    g{i} = st.gvars[{w.c(name)}]")
        for kind in kinds:
            head += ["    " + line for line in kind.flat_bind(self)]
        if self.windows:
            head.append("    pre = None  # the choices made in the window begun in (by label)")
        head += ["    try:"]
        for p in sorted(self.windows.values()):
            head.append(f"        if entry == {p}:")
            head.append("            wf = st._stack[-1]")
            head.append("            pre, wk = {a.seat: a.label for a in wf.choices}, wf.k")
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
        # a game whose turns begin with a decision starts at the setup's deal, the first
        # pause of a new game (its prologue's work is its own, not a turn's)
        cost = self.cost
        self.setup = self.setup_entry(2)
        self.cost = cost
        head += w.lines[body_start:]
        del w.lines[body_start:]
        head += ["        while True:"]
        tail = [
            "    except Over:",
            "        pass",
            "    except BaseException:",
            "        for kind, s, old in zip(KINDS, comps, saved):",
            "            kind.flat_restore(s, old)",
        ]
        if self.session:
            tail += [
                "        if wb is not None and saved:",
                "            for p, old in zip(st.pvars, wb[0]): p.clear(); p.update(old)",
                "            st.gvars.clear(); st.gvars.update(wb[1])",
                "            st.active, st.turn, st.round, st.phase = wb[2:]",
                "            st._version += 1",
            ]
        tail += [
            "        moves.append((made, options, most))",
            "        raise",
            "    st.active, st.turn, st.round, st.phase = active, turn, rnd, phase",
            "    st._next_seat = None if nxt < 0 else nxt",
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
        if not self.session:
            tail += ["    return made, options, most"]
        else:  # the final scores, where the flat play works them out (see `scores`); a
            # score that fails is the machine's to work out (and to say why it fails)
            at = len(w.lines)
            name = self.scores(2, final=True)
            if name == "scs":
                tail += ["    try:"] + w.lines[at:] + ["    except ANY_FAILURE:",
                                                       "        return None",
                                                       "    return scs"]
                w.consts["LIGHT"] = True
            else:
                tail += ["    return None"]
            del w.lines[at:]
        if self.session:
            w.consts.update(SCORES=State.scores, PREVIEW_FAILS=GIVEN_BACK, AUTO=AUTO,
                            ANY_FAILURE=Exception)
        w.consts["WINDOWS"] = frozenset(self.windows.values())
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

    def turn_steps(self, turn: tuple, b: int) -> int:
        """A phase's turn at depth `b`, each step after its entry (`entry <= N`) and
        followed by its checks. Returns the most steps counted."""
        w = self.w
        env: dict[str, V] = {}
        most = 0
        for i, s in enumerate(turn):
            p = self.pos
            self.pos += 1
            chain = [(turn, i)]
            if self.is_site(s) or (self.session and type(s) is S.Together):
                # (a session begins in a window too: a search's copy stands in one)
                self.register(p, chain, s, env)
            self.chain = chain if self.sites_in(s) else None
            self.at = p
            g = len(w.lines)
            w.add(b, f"if entry <= {p}:")
            most += self.step(s, env, b + 1, True)
            if self.pos - 1 != p:  # a repeat with entries in it: up to its last
                w.lines[g] = "    " * b + f"if entry <= {self.pos - 1}:"
            self.checks(s, b + 1)
            w.add(b + 1, "pass")
        return most

    def next_turn(self) -> None:
        """The turn is over, as State._next_turn ends it: the phase's `until` (the next
        phase, or after the last the game's end), the next seat (the chosen one, a round
        complete when play passes the start player going left), the round, the resets."""
        game = self.game
        w = self.w
        test = "if"
        for k, (name, _turn, until) in enumerate(game.phases):
            if until is None:
                continue
            c = game.untils_checked[k]
            if c is None:
                raise Uncovered("a phase's `until` that did not compile")
            w.add(2, f"{test} phase == {k}:")
            test = "elif"
            w.add(3, f"if {self.end_expr(c)}:")
            if k + 1 == len(game.phases):
                w.add(4, f"reason = reason or {w.c(f'{name} over')}")
                w.add(4, "break")
            else:
                w.add(4, f"phase = {k + 1}")
        d = 2
        if self.chosen:
            w.add(2, "if nxt >= 0:")
            w.add(3, "prev = active; active = nxt; nxt = -1")
            w.add(3, "if (start - prev - 1) % n < (active - prev) % n:")
            w.add(4, "if ending: break")
            w.add(4, "rnd += 1")
            w.add(2, "else:")
            d = 3
        w.add(d, "active = (active + 1) % n")
        w.add(d, "if active == start:")
        w.add(d + 1, "if ending: break")
        w.add(d + 1, "rnd += 1")
        w.add(2, "turn += 1")
        for name, value in game.turn_resets_player:
            w.add(2, f"p{self.pvar_names.index(name)} = [{w.c(value)}] * n")
        for name, value in game.turn_resets_game:
            w.add(2, f"g{self.gvar_names.index(name)} = {w.c(value)}")

    def setup_entry(self, d: int) -> bool:
        """The flat play from the setup's last step, a chance step (the deal a new game
        pauses at), to the first turn, as the machine runs on when it is resolved: the
        chance step, the first player (`State._next_turn`), the turn's resets, every check
        (the game's start), then the first turn from its first step. Returns whether the
        game has it (a game with triggers, or a setup ending otherwise, has not)."""
        game = self.game
        setup = game.setup
        first = game.first_player_checked if game.first_player is not None else None
        if (not self.calls or not setup or type(setup[-1]) is not S.ChanceStep
                or game.triggers or (game.first_player is not None and first is None)):
            return False
        w = self.w
        at = len(w.lines)
        try:
            w.add(d, "if entry < 0:")
            charge = len(w.lines)
            w.add(d + 1, "")  # the charge, once its work is known
            w.add(d + 1, "if work < 0 or cw > CALL_WORK: raise GiveBack")
            before = self.cost
            self.step(setup[-1], {}, d + 1, True)  # counted again, as a turn's first step is
            saved = self.own_begin()
            seat = "(0)"
            if first is not None:
                v = self.expr(first, {})
                seat = w.t("x")
                if v.type is not INT and not (isinstance(v.type, ObjT)
                                              and v.type.name == "Player"):
                    raise Uncovered("a first player of this type")
                w.add(d + 1, f"{seat} = {v.need()}")
                # the machine fails on anything but a seat: it plays such a game
                w.add(d + 1, f"if {seat}.__class__ is not int or not 0 <= {seat} < n: "
                      "raise GiveBack")
            self.own_end(saved)
            w.add(d + 1, f"active = start = {seat}")
            w.add(d + 1, "turn = rnd = 1")
            for name, value in game.turn_resets_player:
                w.add(d + 1, f"p{self.pvar_names.index(name)} = [{w.c(value)}] * n")
            for name, value in game.turn_resets_game:
                w.add(d + 1, f"g{self.gvar_names.index(name)} = {w.c(value)}")
            saved = self.own_begin()
            self.check_after(-1, d + 1)  # every check runs before the first turn's first step
            self.own_end(saved)
            w.add(d + 1, "entry = 0")
            units = 2 * (self.cost - before) + UNITS_PER_STEP
            w.lines[charge] = "    " * (d + 1) + f"work -= {units}; cw += {units}"
        except Uncovered:
            del w.lines[at:]
            return False
        return True

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
                                      zip, abs, any, all, enumerate, sorted, map, next,
                                      dict)} | {
    "BaseException": BaseException}


class Over(Exception):
    """The game ended within a turn (`finish: now`)."""


class _LabelTable(dict):
    """Labels by the numbers they join (see _Gen.label), at most MOST_LABELS of them."""

    def keep(self, key: tuple, label: str) -> str:
        if len(self) < MOST_LABELS:
            self[key] = label
        return label


#: the labels a table keeps at most (a game's distinct lists of few numbers are few)
MOST_LABELS = 4096


class _Options(list):
    """A decision's options as `options` wrote them: (names, env, steps, label) each, and
    whether `out` holds their payloads alone (`single`)."""

    single = False


#: the pass in an `out` of payloads alone: no payload is this very tuple
_PASS = (-1,)


def _concat(a: str, b: str) -> str:
    """`+` on texts, given back where the machine's would be too long (runtime.concat_str)."""
    if len(a) + len(b) > budget.MAX_STR:
        raise GiveBack
    return a + b


def _range(cap: int, *args: int) -> list[int]:
    """range() as the machine's list, given back when longer than the flat play bounded it
    (see _Gen._range)."""
    r = range(*args)
    if len(r) > cap:
        raise GiveBack
    return list(r)


def build(game: Any, session: bool = False) -> tuple[FlatGame | None, str]:
    """The game's flat play (`session`: its session's, see backends.session) and its
    module's source, or None and why it is not covered."""
    missing = [k for k in game.components if not hasattr(k, "flat_types")]
    if missing:
        return None, f"component '{missing[0].name}' ({missing[0].kind})"
    gen = _Gen(game, session)
    try:
        source, entries = gen.module()
    except Uncovered as exc:
        return None, str(exc)
    except RecursionError:  # expressions nested too deeply to write out: the machine's
        return None, "expressions nested too deeply"
    return load(game, source, gen.w.consts, entries, gen.decisions, gen.setup), source


def load(game: Any, source: str, consts: dict[str, Any], entries: frozenset[int],
         decisions: frozenset[int] = frozenset(), setup: bool = False) -> FlatGame:
    """The flat play of a module's source (the tests load a changed one, too)."""
    names = dict(consts)
    names.update(_BUILTINS, GiveBack=GiveBack, Over=Over, check_int=_check_int, PASS=_PASS)
    flat = FlatGame(source, pysource.compile_function(source, names, "play"), entries,
                    decisions, consts.get("SITES"), setup)
    flat.consts = consts
    flat.windows = consts.get("WINDOWS", frozenset())
    flat.light = consts.get("LIGHT", False)
    flat.chance = consts.get("CHANCE", False)
    flat.actions = [{} for _ in range(game.max_players)]
    return flat
