"""The steps of the one phase/turn machine, compiled once when a game loads.

A step either runs to completion (`pure`: effects, and ifs and loops made of them)
or may pause the game for a decision or a chance outcome. Pure steps run inline;
the others push frames on the state's stack so that a paused game is plain data
that `clone` can copy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rulekit.errors import EndlessFlowError, FlowError, NoOptionError
from rulekit.expr.budget import MAX_INT, MAX_LOG_CHARS, MAX_OPTIONS, BudgetExceeded

if TYPE_CHECKING:
    from rulekit.engine.state import State

Fn = Callable[[Any, dict], Any]

#: how often a trigger may fire after one step before it counts as a loop that never ends
MAX_TRIGGER_FIRINGS = 100


class Step:
    pure = True
    where = ""  # "file:line:col" of the step, for run-time errors
    #: bits of the parts of the game the step may change (-1: any; see GameBuild.mask)
    writes = -1
    #: the checked parts the step is made of, for generated code (None: it has none);
    #: see backends.codegen.step_function
    gen: Any = None
    #: the names visible where the step stands (a Scope), for generated code
    scope: Any = None

    def run(self, st: State, env: dict) -> bool:
        """Run; True when the game now waits for a decision or chance outcome."""
        raise NotImplementedError


class SeqFrame:
    """A list of steps in progress: the turn, a branch, an action's effects.

    `checks` marks the turn and the blocks (if, for, run) nested in it: after each of
    their steps the engine fires triggers and checks the end. An action's own effects
    are one step of the turn and are not interrupted.
    """

    __slots__ = ("steps", "i", "env", "role", "checks")

    def __init__(self, steps: tuple[Step, ...], env: dict, role: str = "",
                 checks: bool = False) -> None:
        self.steps = steps
        self.i = 0
        self.env = env
        self.role = role
        self.checks = checks

    def copy(self) -> SeqFrame:
        f = SeqFrame(self.steps, self.env, self.role, self.checks)
        f.i = self.i
        return f


#: how deeply blocks may nest while a game runs; only `run:` can nest without bound
MAX_NESTING = 200


def push_block(st: State, steps: tuple[Step, ...], env: dict) -> None:
    """Push a nested block; it inherits whether the end is checked between its steps."""
    st._stack.append(SeqFrame(steps, env, "", st._stack[-1].checks))


class WindowFrame:
    """Every seat in turn decides; the chosen actions' effects run afterwards, in seat order."""

    __slots__ = ("step", "seats", "k", "choices", "env", "foreign")

    def __init__(self, step: Together, seats: list[int], env: dict) -> None:
        self.step = step
        self.seats = seats
        self.k = 0
        self.choices: list = []
        self.env = env
        #: whether `choices` may hold actions bound to another state (the frame of a
        #: copy): they are bound to this one when they resolve, since a search's copy
        #: seldom gets that far
        self.foreign = False

    def copy(self) -> WindowFrame:
        f = WindowFrame(self.step, self.seats, self.env)
        f.k = self.k
        f.choices = list(self.choices)
        f.foreign = True
        return f


class Effect(Step):
    """A building block's effect: evaluate the target view and the arguments, call its method."""

    def __init__(self, target: Fn, method: str, args: list[Fn]) -> None:
        self.target = target
        self.method = method
        self.args = args

    def run(self, st: State, env: dict) -> bool:
        view = self.target(st, env)
        args = [a(st, env) for a in self.args]
        st._version += 1  # a define read while the effect runs (an `on_lock:`) is read anew
        getattr(view, self.method)(*args)
        st._version += 1
        st._dirty |= self.writes
        return False


class SetVar(Step):
    """`set:` / `add:` on a game variable or a player's variable."""

    def __init__(self, name: str, who: Fn | None, value: Fn, add: bool) -> None:
        self.name = name
        self.who = who
        self.value = value
        self.add = add

    def run(self, st: State, env: dict) -> bool:
        value = self.value(st, env)
        if self.who is None:
            store = st.gvars
        else:
            store = self.who(st, env).vars
        if self.add:
            value = store[self.name] + value
        if value.__class__ is not int or not -MAX_INT < value < MAX_INT:
            self.check(value)
        store[self.name] = value
        st._version += 1
        st._dirty |= self.writes
        return False

    def check(self, value: Any) -> None:
        """Refuse a whole number that grows without end, or a float that is no number."""
        if value.__class__ is int:
            if not -MAX_INT < value < MAX_INT:
                raise FlowError(f"{self.where}: variable '{self.name}' would hold "
                                f"{_magnitude(value)}, more than {len(str(MAX_INT)) - 1} "
                                "digits; does it grow without end?")
        elif value.__class__ is float and not math.isfinite(value):
            raise FlowError(f"{self.where}: variable '{self.name}' would hold {value}, "
                            "which is not a number a rule can use; is something divided by "
                            "a tiny number, or multiplied without end?")


def _magnitude(n: int) -> str:
    return f"a number of about {int(n.bit_length() * 0.30103) + 1} digits"


class Let(Step):
    """Names values for the rest of the step list (the names live in the list's env)."""

    def __init__(self, lets: list[tuple[str, Fn]]) -> None:
        self.lets = lets

    def run(self, st: State, env: dict) -> bool:
        for name, fn in self.lets:
            env[name] = fn(st, env)
        return False


class Say(Step):
    """`say:` puts a line of text in the log, for people watching the game; with `to`,
    a private line (`"to": seat` in the log) that only that seat, or an observer, sees."""

    def __init__(self, text: Fn, to: Fn | None = None) -> None:
        self.text = text
        self.to = to

    def run(self, st: State, env: dict) -> bool:
        text = self.text(st, env)
        st._log_chars += len(text)
        if st._log_chars > MAX_LOG_CHARS:
            raise log_too_long()
        if self.to is None:
            st._log.append({"say": text})
        else:
            st._log.append({"say": text, "to": self.to(st, env).seat})
        return False


def log_too_long() -> BudgetExceeded:
    return BudgetExceeded(f"the game's `say` lines would hold more than {MAX_LOG_CHARS} "
                          "characters")


class If(Step):
    def __init__(self, cond: Fn, then: tuple[Step, ...], other: tuple[Step, ...]) -> None:
        self.cond = cond
        self.then = then
        self.other = other
        self.pure = all(s.pure for s in then + other)

    def run(self, st: State, env: dict) -> bool:
        steps = self.then if self.cond(st, env) else self.other
        if self.pure:
            for step in steps:
                step.run(st, env)
        elif steps:
            push_block(st, steps, env)
        return False


class ForEach(Step):
    def __init__(self, iterate: Callable, body: tuple[Step, ...]) -> None:
        self.iterate = iterate
        self.body = body
        self.pure = all(s.pure for s in body)

    def run(self, st: State, env: dict) -> bool:
        if self.pure:
            body = self.body
            # every round of a loop counts against the step budget, so that none runs forever
            left = st._steps_left
            n = 0
            for inner in self.iterate(st, env):
                n += 1
                if n > left:
                    st._steps_left = left - n
                    raise st._endless(self)
                for step in body:
                    step.run(st, env=inner)
            st._steps_left -= n
            return False
        checks = st._stack[-1].checks
        frames = [SeqFrame(self.body, inner, "", checks) for inner in self.iterate(st, env)]
        st._stack.extend(reversed(frames))
        return False


class Run(Step):
    """`run: NAME` runs a named procedure (resolved after all procedures are compiled)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.steps: tuple[Step, ...] = ()
        self.pure = False

    def run(self, st: State, env: dict) -> bool:
        if self.pure:
            for step in self.steps:
                step.run(st, env)
        elif self.steps:
            if len(st._stack) > MAX_NESTING:
                raise self.too_deep()
            push_block(st, self.steps, env)
        return False

    def too_deep(self) -> EndlessFlowError:
        return EndlessFlowError(f"{self.where}: blocks nest more than {MAX_NESTING} deep at "
                                "this step: a procedure that runs itself never ends")


#: the most rounds of a `repeat` without `max:` (a loop without a cap of its own)
DEFAULT_REPEAT_MAX = 1000

#: where a `repeat` keeps its count of rounds in its frame's env: not a name a file can use
_ROUNDS = "#rounds"


class Repeat(Step):
    """`repeat:` runs its steps again and again: while `while` holds (checked before each
    round), until `until` holds (checked after each round), at most `max` rounds, or until
    a `break` step inside ends it ("roll again until you stop or bust").

    The body runs in a frame of its own that ends with a `RepeatTail`, which decides whether
    another round follows; the count of rounds lives in that frame's env, so a paused loop
    is plain data that `clone` copies.
    """

    pure = False

    def __init__(self, body: tuple[Step, ...], cap: Fn, cond_while: Fn | None,
                 cond_until: Fn | None) -> None:
        self.cap = cap
        self.cond_while = cond_while
        self.cond_until = cond_until
        self.steps = body + (RepeatTail(self),)

    def run(self, st: State, env: dict) -> bool:
        if self.cap(st, env) <= 0 or (self.cond_while is not None
                                      and not self.cond_while(st, env)):
            return False
        inner = dict(env)
        inner[_ROUNDS] = 0
        st._stack.append(SeqFrame(self.steps, inner, "", st._stack[-1].checks))
        return False


class RepeatTail(Step):
    """The last step of a `repeat`'s frame: starts the next round, or lets the frame end."""

    pure = False

    def __init__(self, loop: Repeat) -> None:
        self.loop = loop

    @property
    def where(self) -> str:  # the `repeat` step's place: its conditions are evaluated here
        return self.loop.where

    def run(self, st: State, env: dict) -> bool:
        loop = self.loop
        rounds = env[_ROUNDS] + 1
        env[_ROUNDS] = rounds
        if rounds >= loop.cap(st, env):
            return False
        if loop.cond_until is not None and loop.cond_until(st, env):
            return False
        if loop.cond_while is not None and not loop.cond_while(st, env):
            return False
        st._stack[-1].i = 0  # this step runs in the loop's own frame: its next round
        return False


class Break(Step):
    """`break: true` ends the innermost `repeat` at once: the rest of its round is skipped."""

    pure = False

    def run(self, st: State, env: dict) -> bool:
        stack = st._stack
        while stack:
            frame = stack[-1]
            steps = getattr(frame, "steps", ())
            if len(stack) == 1:
                break  # the turn itself is never popped here
            stack.pop()
            if steps and steps[-1].__class__ is RepeatTail:
                return False
        raise self.outside()

    def outside(self) -> FlowError:
        return FlowError(f"{self.where}: `break` ran outside a `repeat`; a procedure with a "
                         "`break` must be run inside a `repeat`'s steps")


class NextPlayer(Step):
    """`next_player: EXPR`: the player whose turn comes after this one (an extra turn when it
    is the active player; the winner of a trick leads), instead of the next to the left."""

    writes = 0  # no check reads whose turn comes next

    def __init__(self, who: Fn) -> None:
        self.who = who

    def run(self, st: State, env: dict) -> bool:
        who = self.who(st, env)
        seat = who if who.__class__ is int else who.seat
        if not 0 <= seat < st.n:
            raise FlowError(f"{self.where}: next_player gave seat {seat}; the seats are 0 to "
                            f"{st.n - 1}")
        st._next_seat = seat
        return False


class ChanceStep(Step):
    """A roll, shuffle or deal: the game waits for `resolve_chance`."""

    pure = False

    def __init__(self, name: str, component: int, chance: Any) -> None:
        self.name = name
        self.component = component
        self.chance = chance

    def run(self, st: State, env: dict) -> bool:
        st._pending_chance = self
        return True

    def prepare(self, st: State, env: dict) -> None:
        """What happens when the step is reached, before the outcome: nothing here."""

    def view(self, st: State) -> Any:
        """The view of the component the outcome applies to."""
        return self.view_in(st, st._stack[-1].env)

    def view_in(self, st: State, env: dict) -> Any:
        """`view` where the step stands in `env` (the generated turns keep no frames)."""
        return st.gviews[self.component]


class TargetedChance(ChanceStep):
    """A chance step in its mapping form, `roll: {dice: player.cup, only: [...]}`: the
    component comes from an expression, and the kind prepares it with the arguments.

    The target is evaluated again when the outcome arrives, in the env of the frame the
    step paused in, so the paused game stays plain data that `clone` copies.
    """

    def __init__(self, name: str, component: int, chance: Any, target: Fn,
                 args: list[Fn | None]) -> None:
        super().__init__(name, component, chance)
        self.target = target
        self.args = args

    def run(self, st: State, env: dict) -> bool:
        self.prepare(st, env)
        st._pending_chance = self
        return True

    def prepare(self, st: State, env: dict) -> None:
        view = self.target(st, env)
        if self.chance.prepare is not None:
            self.chance.prepare(view, *[a(st, env) if a is not None else None
                                        for a in self.args])

    def view_in(self, st: State, env: dict) -> Any:
        return self.target(st, env)


class Effects(tuple):
    """An action's steps when they are all effects: they run inline, without a frame."""

    __slots__ = ()


class Option:
    """One way of generating options of a decision: `for`, `let`, `if`, `label`, `do`.

    `generate` is specialised once, at load time, to the option's shape, because it
    runs for every candidate of every decision of every game.
    """

    def __init__(self, iterate: Callable | None, lets: list[tuple[str, Fn]], cond: Fn | None,
                 label: Fn, steps: tuple[Step, ...]) -> None:
        self.iterate = iterate
        self.lets = lets
        self.cond = cond
        self.label = label
        self.steps = Effects(steps) if steps and all(s.pure for s in steps) else steps
        #: what the option is compiled from (scopes, for, lets, if, label, steps, where):
        #: what generated code is written from; None when a part failed to compile
        self.parts: tuple | None = None
        self.generate = self._specialise()
        #: the options as records `(key, make, payload)` (see Decision), for random play
        self.records = self._as_records

    def _as_records(self, st: Any, base: dict, seat: int, out: list, seen: set) -> None:
        """The closure path's records: the Actions made, each its own payload."""
        actions: list[Action] = []
        self.generate(st, base, seat, actions, seen)
        if len(out) + len(actions) > MAX_OPTIONS:
            raise _too_many()
        out.extend([(a.label, _given, a) for a in actions])

    def _specialise(self) -> Callable[[Any, dict, int, list, set], None]:
        iterate, lets, cond, label_fn, steps = (self.iterate, self.lets, self.cond, self.label,
                                                self.steps)
        if iterate is None:
            def iterate(st: Any, base: dict) -> tuple[dict, ...]:
                return (dict(base),)
        clauses = getattr(iterate, "clauses", ())
        if cond is None:
            def cond(st: Any, env: dict) -> bool:
                return True

        # one or two `for` clauses (every option of the shipped games): the loops are
        # written out, without a generator between them and the engine
        if len(clauses) == 1:
            (var, items), = clauses

            def generate(st: Any, base: dict, seat: int, out: list, seen: set) -> None:
                for v in items(st, base):
                    e = base.copy()
                    e[var] = v
                    for name, fn in lets:
                        e[name] = fn(st, e)
                    if cond(st, e):
                        label = label_fn(st, e)
                        if label not in seen:
                            if len(out) >= MAX_OPTIONS:
                                raise _too_many()
                            seen.add(label)
                            out.append(Action(label, seat, steps, e))
            return generate
        if len(clauses) == 2:
            (var1, items1), (var2, items2) = clauses

            def generate(st: Any, base: dict, seat: int, out: list, seen: set) -> None:
                for v1 in items1(st, base):
                    outer = base.copy()
                    outer[var1] = v1
                    for v2 in items2(st, outer):
                        e = outer.copy()
                        e[var2] = v2
                        for name, fn in lets:
                            e[name] = fn(st, e)
                        if cond(st, e):
                            label = label_fn(st, e)
                            if label not in seen:
                                if len(out) >= MAX_OPTIONS:
                                    raise _too_many()
                                seen.add(label)
                                out.append(Action(label, seat, steps, e))
            return generate

        def generate(st: Any, base: dict, seat: int, out: list, seen: set) -> None:
            for e in iterate(st, base):
                for name, fn in lets:
                    e[name] = fn(st, e)
                if cond(st, e):
                    label = label_fn(st, e)
                    if label not in seen:
                        if len(out) >= MAX_OPTIONS:
                            raise _too_many()
                        seen.add(label)
                        out.append(Action(label, seat, steps, e))
        return generate


def _too_many() -> BudgetExceeded:
    return BudgetExceeded(f"more than {MAX_OPTIONS} options in one decision; do its `for` "
                          "clauses run over far more than the rules need?")


class Action:
    """A legal move; `label` is stable and unique among the legal actions of its moment."""

    __slots__ = ("label", "seat", "steps", "env")

    def __init__(self, label: str, seat: int, steps: tuple[Step, ...], env: dict) -> None:
        self.label = label
        self.seat = seat
        self.steps = steps
        self.env = env

    def __repr__(self) -> str:
        return f"Action({self.label!r})"

    def __str__(self) -> str:
        return self.label

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Action):
            return self.label == other.label and self.seat == other.seat
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.label, self.seat))


class KeyedAction(Action):
    """A legal move whose label, PREFIX + SEP.join(numbers) + SUFFIX, is written when it is
    first read, by `label(numbers)` (labels.label_of, which keeps the labels of the few
    short keys a game has): a random playout or a search reads the label of the move it
    plays only.

    Options of such a label are told apart by their numbers (see backends.codegen), which give the
    label one to one.
    """

    __slots__ = ("_key", "_label")

    def __init__(self, label: Callable[[tuple[int, ...]], str], key: tuple[int, ...],
                 seat: int, steps: tuple[Step, ...], env: dict) -> None:
        self._label = label
        self._key = key
        self.seat = seat
        self.steps = steps
        self.env = env

    @property  # type: ignore[override]
    def label(self) -> str:
        return self._label(self._key)


def _given(key: Any, seat: int, base: dict, action: Action) -> Action:
    """The maker of a record whose Action was made already (the closure path)."""
    return action


def _passing(label: str, seat: int, base: dict, payload: Any) -> Action:
    """The maker of the pass option's record: no effects, the decision's own env."""
    return Action(label, seat, (), base)


def _no_effects(st: Any, seat: int, base: dict, payload: Any) -> None:
    """The effects of passing, for the generated turns: none."""


# what the generated turns read of a record's maker (see backends.codegen._record_maker): the
# effects of the option played as one function (None: make the Action), the label of a
# key that is not a label (None: every key is its label)
_given.run = None  # type: ignore[attr-defined]
_given.label = None  # type: ignore[attr-defined]
_passing.run = _no_effects  # type: ignore[attr-defined]
_passing.label = None  # type: ignore[attr-defined]


class Decision:
    """The decision the game waits for: who decides and the legal actions."""

    __slots__ = ("seat", "actions", "window")

    def __init__(self, seat: int, actions: list[Action], window: WindowFrame | None) -> None:
        self.seat = seat
        self.actions = actions
        self.window = window

    def size(self) -> int:
        """How many legal actions there are (for a recorded decision, without making them)."""
        return len(self.actions)

    def pick(self, i: int) -> Action:
        """The legal action at `i` (of a recorded decision, made alone)."""
        return self.actions[i]

    def random(self, randrange: Callable[[int], int]) -> Action:
        """The legal action at `randrange(n)` of the n there are; with one, it draws
        nothing. What a random playout plays, in one call."""
        actions = self.actions
        n = len(actions)
        return actions[0] if n == 1 else actions[randrange(n)]

    @staticmethod
    def copied(seat: int, source: Decision, window: WindowFrame | None,
               bind: Callable[[Action], Action]) -> Decision:
        """A copy's decision whose actions are `source`'s bound to the copy (`bind`) when
        read: a preview, which runs one action's steps itself, binds none, and a playout
        binds the one it plays."""
        return _CopiedDecision(seat, source, window, bind)

    def find(self, label: str) -> Action | None:
        for a in self.actions:
            if a.label == label:
                return a
        return None


#: the slot of Decision.actions, read and written beneath the properties below (a plain
#: slot where the actions are made at once: a property costs every read of every decision)
_ACTIONS = Decision.actions


class _LazyDecision(Decision):
    """A decision whose actions are made when first read; until then `pick` makes one
    alone (`_make_one`), and `_make_all` makes them all."""

    __slots__ = ("_made",)

    @property  # type: ignore[override]
    def actions(self) -> list[Action]:
        if self._made:
            return _ACTIONS.__get__(self)
        actions = self._make_all()
        _ACTIONS.__set__(self, actions)
        self._made = True
        return actions

    @actions.setter
    def actions(self, value: list[Action]) -> None:
        _ACTIONS.__set__(self, value)
        self._made = True

    def size(self) -> int:
        return len(_ACTIONS.__get__(self)) if self._made else self._count()

    def pick(self, i: int) -> Action:
        return _ACTIONS.__get__(self)[i] if self._made else self._make_one(i)

    def random(self, randrange: Callable[[int], int]) -> Action:
        n = self.size()
        return self.pick(0 if n == 1 else randrange(n))

    def _count(self) -> int:
        raise NotImplementedError

    def _make_one(self, i: int) -> Action:
        raise NotImplementedError

    def _make_all(self) -> list[Action]:
        raise NotImplementedError


class _RecordedDecision(_LazyDecision):
    """A decision whose options are records `(key, make, payload)`, one per legal action,
    made Actions only when read: random play (`State.playout`) makes only the one it
    plays, where every option would cost an env and an Action each."""

    __slots__ = ("_records", "_base")

    def __init__(self, seat: int, records: list, window: WindowFrame | None,
                 base: dict) -> None:
        self.seat = seat
        self.window = window
        self._records = records
        self._base = base
        self._made = False

    def _count(self) -> int:
        return len(self._records)

    def _make_one(self, i: int) -> Action:
        key, make, p = self._records[i]
        return make(key, self.seat, self._base, p)

    def _make_all(self) -> list[Action]:
        seat, base = self.seat, self._base
        return [make(key, seat, base, p) for key, make, p in self._records]

    def random(self, randrange: Callable[[int], int]) -> Action:
        # written out: it is the hot path of random play, once per move
        records = self._records
        n = len(records)
        i = 0 if n == 1 else randrange(n)
        if self._made:
            return _ACTIONS.__get__(self)[i]
        key, make, p = records[i]
        return make(key, self.seat, self._base, p)


class _CopiedDecision(_LazyDecision):
    """A copy's decision: the source's actions bound to the copy when read."""

    __slots__ = ("_source", "_bind")

    def __init__(self, seat: int, source: Decision, window: WindowFrame | None,
                 bind: Callable[[Action], Action]) -> None:
        self.seat = seat
        self.window = window
        self._source = source
        self._bind = bind
        self._made = False

    def _count(self) -> int:
        return self._source.size()

    def _make_one(self, i: int) -> Action:
        return self._bind(self._source.pick(i))

    def _make_all(self) -> list[Action]:
        bind = self._bind
        actions = [bind(a) for a in self._source.actions]
        self._source = self._bind = None  # type: ignore[assignment]
        return actions

    def random(self, randrange: Callable[[int], int]) -> Action:
        if self._made:
            return Decision.random(self, randrange)
        return self._bind(self._source.random(randrange))


class Choose(Step):
    pure = False
    #: `who` is the active player: the seat that decides is `st.active`
    active = False
    #: the game file's `help:` text (a compiled template) that `rulekit play` shows on `?`
    help: Fn | None = None
    #: the game file's `title:` (a compiled template): what the decision is, above the choices
    title: Fn | None = None

    def __init__(self, who: Fn, options: list[Option], pass_label: str | None,
                 none: tuple[Step, ...] | None, auto: bool = False) -> None:
        self.who = who
        self.options = options
        self.pass_label = pass_label
        self.none = none
        self.auto = auto

    def actions(self, st: State, seat: int, env: dict) -> list[Action]:
        base = dict(env) if env else {}
        base["player"] = st.players[seat]
        out: list[Action] = []
        seen: set[str] = set()
        for opt in self.options:
            opt.generate(st, base, seat, out, seen)
        if self.pass_label is not None and self.pass_label not in seen:
            out.append(Action(self.pass_label, seat, (), base))
        return out

    def _recorded(self, st: State, seat: int, env: dict,
                  window: WindowFrame | None) -> Decision | None:
        """The decision of `seat` in random play, its options as records (see Decision);
        None when it has no option."""
        base = dict(env) if env else {}
        base["player"] = st.players[seat]
        out: list = []
        seen: set = set()
        for opt in self.options:
            opt.records(st, base, seat, out, seen)
        if self.pass_label is not None and self.pass_label not in seen:
            out.append((self.pass_label, _passing, None))
        return _RecordedDecision(seat, out, window, base) if out else None

    def run(self, st: State, env: dict) -> bool:
        seat = st.active if self.active else self.who(st, env).seat
        if st._playing:
            d = self._recorded(st, seat, env, None)
        else:
            actions = self.actions(st, seat, env)
            d = Decision(seat, actions, None) if actions else None
        if d is None:
            if self.none is None:
                raise self.no_option(seat)
            if self.none:
                push_block(st, self.none, env)
            return False
        if self.auto and d.size() == 1:
            # nothing to decide: the only option happens by itself, and the log says so
            action = d.pick(0)
            st._log.append({"seat": seat, "action": action.label, "forced": True})
            if action.steps:
                st._stack.append(SeqFrame(action.steps, action.env, "", st.game.check_effects))
            return False
        st._pending = d
        return True

    def no_option(self, seat: int) -> NoOptionError:
        return NoOptionError(f"{self.where}: no legal option for seat {seat} and no "
                             "`none:` steps")


class Together(Choose):
    """Every player decides on the same state; the effects resolve together afterwards."""

    def __init__(self, seats: Callable[[State, dict], list[int]], options: list[Option],
                 pass_label: str | None) -> None:
        super().__init__(lambda st, env: None, options, pass_label, None)
        self.seats = seats
        #: every option only has effects: the choices resolve at once, without frames
        self.effects_only = all(o.steps.__class__ is Effects or not o.steps for o in options)

    def run(self, st: State, env: dict) -> bool:
        st._stack.append(WindowFrame(self, self.seats(st, env), env))
        return False


@dataclass
class Trigger:
    iterate: Callable | None
    cond: Fn
    steps: tuple[Step, ...]
    where: str
    #: bits of what the condition and the `for` lists read (-1: cannot be told)
    mask: int = -1
    #: the checked condition, for generated code (see backends.codegen.trigger_function)
    gen: Any = None

    def fire(self, st: State) -> None:
        envs = self.iterate(st, {}) if self.iterate is not None else ({},)
        for env in envs:
            n = 0
            while self.cond(st, env):
                n += 1
                if n > MAX_TRIGGER_FIRINGS:
                    raise self.endless()
                for step in self.steps:
                    step.run(st, env)

    def endless(self) -> EndlessFlowError:
        return EndlessFlowError(f"{self.where}: the trigger fired {MAX_TRIGGER_FIRINGS} times "
                                "after one step; its condition never becomes false")
