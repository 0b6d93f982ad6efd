"""A new game played move by move on the flat backend, behind the public State API.

The loop of `legal_actions()`, `apply()` and `resolve_chance()` that adapters, bots and
players run costs, on the engine's machine, several times what the moves themselves do
(views, option records, the meter's block per call). A game the flat backend covers has a
second generated function for it (rulekit.backends.flat, `session=True`): the flat play
written as a Python generator that pauses at every decision, giving its options and
labels, and before every chance step. A state made by `Game.new_game` is a
`SessionState` until anything but that loop touches it: then the recorded moves are
replayed on the machine from the state the generator started at (it changed nothing else
but the components' lists, which are restored first), and the state is a plain `State`
from there on. The games are the machine's: the same draws, options, labels, log,
scores and failures (tests/test_session.py plays every covered game both ways).
"""

from __future__ import annotations

import functools
import random
from types import FunctionType, MemberDescriptorType
from typing import Any

from rulekit.backends.flat import AUTO, GIVEN_BACK
from rulekit.engine.state import State, replay_moves
from rulekit.engine.steps import Action, WindowFrame

_get = object.__getattribute__
#: the env of a session's actions: the machine plays its own actions, found by label
_NO_ENV: dict = {}
_set = object.__setattr__

#: the fields of State that a session reads as they are (`over` and `_fs` are kept up to
#: date; the others never change in a game)
_AS_THEY_ARE = frozenset({"game", "n", "seed", "over", "_fs"})


class FlatSession:
    """The generator of a game in progress, what it asks now and the moves it made."""

    __slots__ = ("gen", "moves", "start", "pending", "acts", "made")

    def __init__(self, gen: Any, moves: list, start: State | None,
                 made: list[dict[str, Action]]) -> None:
        self.gen = gen
        self.made = made  # each seat's actions by label (see legal_actions)
        self.moves = moves
        self.start = start  # the copy the log is replayed from when the game ends
        #: what the generator paused at: a component's index (a chance step of it) or
        #: (seat, options, labels) of a decision
        self.pending: Any = None
        self.acts: list[Action] | None = None  # the actions of `pending`, once asked


class SessionState(State):
    """A `State` whose moves run on its game's flat session (see the module): the loop's
    calls are answered by the generator, and any other use of the state makes it a
    plain `State` first (its moves replayed on the machine)."""

    __slots__ = ()

    # ---- the loop ------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return _get(self, "over")

    @property
    def is_chance(self) -> bool:
        fs = _get(self, "_fs") or _session(self)
        if fs is None:
            return State.is_chance.fget(self)  # type: ignore[attr-defined]
        return fs.pending.__class__ is int

    @property
    def current_player(self) -> int | None:
        fs = _get(self, "_fs") or _session(self)
        if fs is None:
            return State.current_player.fget(self)  # type: ignore[attr-defined]
        pending = fs.pending
        return None if pending.__class__ is int else pending[0]

    def legal_actions(self) -> list[Action]:
        fs = _get(self, "_fs") or _session(self)
        if fs is None or fs.pending.__class__ is int:
            return State.legal_actions(self)
        acts = fs.acts
        if acts is None:
            seat, _out, labels = fs.pending
            # a seat's actions of one label are one object, made once per game
            made = fs.made[seat]
            acts = fs.acts = [made.get(label) or _action(made, label, seat)
                              for label in labels]
        return list(acts)

    def apply(self, action: Action | str) -> None:
        fs = _get(self, "_fs") or _session(self)
        if fs is None or fs.pending.__class__ is int:
            return State.apply(self, action)
        seat, _out, labels = fs.pending
        # the label's place among the options (a C scan); an Action must be the seat's
        if action.__class__ is Action:
            label = action.label if action.seat == seat else None
        else:
            label = action if isinstance(action, str) else None
        i = labels.index(label) if label in labels else -1
        if i < 0:  # the machine says why not, as it always does
            leave(self)
            return State.apply(self, action)
        _advance(self, fs, i)
        return None

    def _preview_scores(self, i: int) -> list | None:
        """The scores of `preview` of the `i`th legal action, worked out by the session
        (a greedy bot previews every action of every decision); None where the machine
        must preview it: a game with hidden parts (its previews deal them anew), an option
        whose steps are more than effects."""
        fs = _get(self, "_fs") or _session(self)
        if (fs is None or fs.pending.__class__ is int
                or _get(self, "game").hides_information):
            return None
        _set(self, "__class__", State)  # the generator reads the state as the machine's
        try:
            scores = fs.gen.send(-2 - i)
        except BaseException as exc:
            # the scores failed: the machine, which gets the game, previews and says how
            fs.moves.pop()
            self._fs = None
            replay_moves(self, fs.moves)
            if not isinstance(exc, Exception):
                raise
            return None
        _set(self, "__class__", SessionState)
        return scores

    def resolve_chance(self, outcome: Any = None) -> Any:
        fs = _get(self, "_fs") or _session(self)
        if fs is None or outcome is not None or fs.pending.__class__ is not int:
            leave(self)
            return State.resolve_chance(self, outcome)
        k = fs.pending
        at = len(fs.moves)
        _advance(self, fs, None)
        if len(fs.moves) == at:
            # given back before its draw (a deal that cannot fit): the machine, where the
            # game now is, draws it or fails on it with its message
            return State.resolve_chance(self)
        # the outcome as the machine returns it: as the kind reads back its record
        kind = _get(self, "game").components[k]
        return kind.flat_outcome(_GVIEWS.__get__(self, State)[k], fs.moves[at])


def _action(made: dict[str, Action], label: str, seat: int) -> Action:
    action = Action(label, seat, (), _NO_ENV)
    if len(made) < MOST_ACTIONS:
        made[label] = action
    return action


#: the actions a seat's table keeps at most (a game's labels are mostly few)
MOST_ACTIONS = 4096


def _session(st: SessionState) -> FlatSession | None:
    """The state's session, begun here (the state has none yet) if the state stands where
    its flat play can begin; None (and the state a plain one) where it cannot."""
    _set(st, "__class__", State)  # what runs now reads the state as the machine's
    flat = st.game.flat_session
    begun = flat.begin_session(st) if flat is not None else None
    if begun is None:
        return None
    gen, moves, start = begun
    fs = st._fs = FlatSession(gen, moves, start, flat.actions)
    _set(st, "__class__", SessionState)
    _advance(st, fs, None, first=True)
    return _get(st, "_fs")


def _advance(st: SessionState, fs: FlatSession, value: Any, first: bool = False) -> None:
    """Run the generator on to its next pause (or the end), having sent `value`; the
    state is a plain one while it runs (the generator reads it)."""
    fs.acts = None
    _set(st, "__class__", State)
    try:
        fs.pending = next(fs.gen) if first else fs.gen.send(value)
    except StopIteration:
        # the game is over and the generator wrote it back: the log is replayed when read
        st._fs = None
        if fs.start is not None:
            st._unlogged = (fs.start, fs.moves)
        return
    except BaseException as exc:
        # given back (a budget that might run out, a rule that breaks): the components
        # are restored, and the machine plays the moves made and fails as it fails; an
        # interruption leaves the game where the moves made took it
        fs.moves.pop()  # the counts the generator added
        st._fs = None
        replay_moves(st, fs.moves)
        if not isinstance(exc, GIVEN_BACK):
            raise
        return
    _set(st, "__class__", SessionState)


def leave(st: State) -> None:
    """Make a session's state a plain `State`: the generator closed (the components
    restored), the moves it made replayed on the machine."""
    if st.__class__ is not SessionState:
        return
    fs = _get(st, "_fs")
    _set(st, "__class__", State)
    if fs is None:
        return
    st._fs = None
    fs.gen.close()  # the generator restores the components and adds its counts
    fs.moves.pop()
    replay_moves(st, fs.moves)


class SearchCopy:
    """A search bot's copy of `root` as `seat` imagines it, played on the game's flat
    session: `State.determinize`'s copy, made of just what the flat play reads (the
    components, variables and counts; the machine's frames read, not copied). The same
    draws from the search's RNG make it: the hidden parts dealt anew (each kind's
    `redeal_unseen`), the choices other seats made in an unresolved window imagined by
    the generator as it starts, then the copy's own RNG seeded (`seed`, after the first
    pause).

    The search sends its moves (`gen.send`) and asks its questions (the scores now, a
    preview's scores) without the machine; the generator returns the final scores.
    Where the flat play gives back, fails, or cannot answer, the machine's copy is made
    (`determinize` again, from the RNG's state kept) and the moves replayed on it (`st`):
    the search goes on with the machine's State from there."""

    __slots__ = ("root", "seat", "rng", "kept", "bits", "st", "grng", "gen", "moves",
                 "seeded", "chance")

    def __init__(self, root: State, seat: int, rng: random.Random, flat: Any,
                 entry: int) -> None:
        self.root = root
        self.seat = seat
        self.rng = rng
        # the RNG's state, to make the machine's copy again: where the copy draws more
        # than its seed (hidden parts, a window's choices); otherwise the seed is enough
        frame = root._stack[-1]
        self.kept = rng.getstate() if root.game.hides_information or (
            frame.__class__ is WindowFrame and frame.choices) else None
        self.bits = 0
        self.seeded = False
        self.chance = flat.chance
        c = _Imagined.__new__(_Imagined)
        self.st: Any = c
        game = root.game
        c.n, c.active, c.start, c.turn, c.round = root.n, root.active, root.start, \
            root.turn, root.round
        c.phase, c._next_seat, c._stack = root.phase, root._next_seat, root._stack
        c._steps_left, c._work_left, c._log_chars = game.max_steps, root._work_left, \
            root._log_chars
        c._version = root._version + 1
        c.comps = [kind.copy_state(s) for kind, s in zip(game.components, root.comps)]
        for kind in game.components:
            if kind.hides_information:
                kind.redeal_unseen(c, seat, rng)
        c.pvars = [dict(p) for p in root.pvars]
        for name in game.secret_vars:
            for p, pv in enumerate(c.pvars):
                if p != seat:
                    pv[name] = game.pvar_init[name]
        c.gvars = dict(root.gvars)
        self.grng = random.Random.__new__(random.Random)
        self.moves: list = []
        self.gen = flat._play(c, self.grng, None, None, False, entry, self.moves, [],
                              (seat, rng._randbelow))

    def play_on(self, decisions: int) -> Any:
        """At a decision: the session plays it and the next ones at random on its own
        (and the chance steps among them), `decisions` in all, drawn with the search's
        `_randbelow` as State.playout draws them; its pause after the last."""
        return self.gen.send(AUTO - decisions)

    def decisions(self, since: int) -> int:
        """The decisions among the moves from the `since`th on."""
        return sum(1 for m in self.moves[since:] if m.__class__ is int)

    def seed(self) -> None:
        """Seed the copy's RNG as `determinize` does, after the window's imagined choices
        (a game without chance steps never draws from it)."""
        self.bits = self.rng.getrandbits(64)
        if self.chance:
            self.grng.seed(self.bits)
        self.seeded = True

    def machine(self) -> None:
        """`st` made the machine's copy, the moves made replayed on it."""
        if self.kept is None:  # the copy drew its seed alone
            if not self.seeded:
                self.seed()
            st = self.root.determinize(self.seat, _Seed(self.bits))
        else:
            again = random.Random.__new__(random.Random)
            again.setstate(self.kept)
            st = self.root.determinize(self.seat, again)
            if not self.seeded:
                # given back as the generator started (perhaps before it imagined every
                # choice): the search's RNG stands where making the machine's copy left it
                self.rng.setstate(again.getstate())
                self.seeded = True
        if self.chance:  # the copy's RNG, as the generator's draws left it (the replay
            st.rng, st._rng_from = self.grng, None  # draws none)
        replay_moves(st, self.moves)
        self.st = st

    def given_back(self, exc: BaseException) -> None:
        """The generator raised `exc`: the machine plays the moves made (a chance step
        given back before its draw is due there). What is not a give-back is raised
        again once the machine has the copy."""
        self.moves.pop()  # the counts the generator added
        self.machine()
        if not isinstance(exc, Exception):
            raise exc

    def leave(self) -> None:
        """Make `st` the machine's copy at the generator's pause."""
        self.gen.close()
        self.moves.pop()
        self.machine()


class _Seed:
    """What `determinize` draws of an RNG for a copy that draws nothing but its seed."""

    __slots__ = ("bits",)

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def getrandbits(self, k: int) -> int:
        return self.bits


class _Imagined:
    """What the flat play reads and writes of a search's copy (see SearchCopy)."""

    __slots__ = ("n", "active", "start", "turn", "round", "phase", "_next_seat", "_stack",
                 "_steps_left", "_work_left", "_log_chars", "_version", "comps", "pvars",
                 "gvars", "over", "end_reason", "_ending", "_dirty", "_stale",
                 "_pending_chance", "_pending")


def _leaving(name: str, attr: Any) -> Any:
    """SessionState's stand-in for a field, property or method of State: the state made
    a plain one (`leave`) before it is read, written or called (a method as State has it
    then: one patched in a test too)."""
    if isinstance(attr, MemberDescriptorType | property):
        get = attr.__get__ if isinstance(attr, MemberDescriptorType) else attr.fget

        def read(st: State) -> Any:
            leave(st)
            return get(st, State) if isinstance(attr, MemberDescriptorType) else get(st)

        def write(st: State, value: Any) -> None:
            leave(st)
            attr.__set__(st, value)

        def delete(st: State) -> None:
            leave(st)
            attr.__delete__(st)

        return property(read, write, delete, attr.__doc__)
    if isinstance(attr, FunctionType):
        @functools.wraps(attr)
        def call(st: State, *args: Any, **kwargs: Any) -> Any:
            leave(st)
            return getattr(State, name)(st, *args, **kwargs)

        return call
    return attr  # (a static method, a constant: no state to leave)


#: State's `gviews` field, read by the session itself
_GVIEWS = State.__dict__["gviews"]

# every other field, property and method of State, as SessionState has it: any use but the
# loop's makes the state a plain one first (a class attribute costs the loop nothing, where
# a __getattribute__ of its own cost every read a Python call)
for _cls in reversed(State.__mro__[:-1]):
    for _name, _attr in list(vars(_cls).items()):
        if (_name in _AS_THEY_ARE or _name in vars(SessionState)
                or _name in ("__slots__", "__doc__", "__module__", "__init__", "__dict__",
                             "__weakref__")):
            continue
        setattr(SessionState, _name, _leaving(_name, _attr))
