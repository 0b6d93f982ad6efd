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

from typing import Any

from rulekit.backends.flat import GIVEN_BACK
from rulekit.engine.state import State, replay_moves
from rulekit.engine.steps import Action

_get = object.__getattribute__
#: the env of a session's actions: the machine plays its own actions, found by label
_NO_ENV: dict = {}
_set = object.__setattr__

#: the names the loop of a session reads without making the state a machine's again
_FAST = frozenset({"is_over", "is_chance", "current_player", "legal_actions", "apply",
                   "resolve_chance", "game", "n", "seed", "__class__", "__dict__",
                   "__slots__"})


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

    def __getattribute__(self, name: str) -> Any:
        if name not in _FAST:
            leave(self)
        return _get(self, name)

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
        return kind.flat_outcome(_get(self, "gviews")[k], fs.moves[at])


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
    """A search bot's copy played on its game's flat session (`FlatGame.begin_search`):
    the generator answers the search's moves and its questions (the scores now, a
    preview's scores) at its pauses, without the machine. Where the flat play gives back,
    or a question only the machine can answer comes, `st` (the copy) is made the
    machine's again, its moves replayed (`leave`), and `pending` is None with `over`
    False: the search plays on with the machine's State from there.

    `pending` is what the generator paused at: a component's index (a chance step) or
    (seat, options, labels) of a decision; None once over or left."""

    __slots__ = ("st", "gen", "moves", "saved", "pending", "over")

    def __init__(self, st: State, begun: tuple[Any, list, list]) -> None:
        self.st = st
        self.gen, self.moves, self.saved = begun
        self.pending: Any = None
        self.over = False
        self._run(None, True)

    def _run(self, value: int | None, first: bool = False) -> None:
        try:
            self.pending = next(self.gen) if first else self.gen.send(value)
        except StopIteration:  # the game is over, written back into `st`
            self.pending = None
            self.over = True
        except BaseException as exc:
            # given back: the components put back, the machine plays the moves made (a
            # chance step given back before its draw is due there)
            self.pending = None
            self.moves.pop()
            replay_moves(self.st, self.moves)
            if not isinstance(exc, GIVEN_BACK):
                raise

    def send(self, value: int | None) -> None:
        """Play the option at `value` of the decision due, or (None) the chance step due."""
        self._run(value)

    def ask(self, question: int) -> list | None:
        """The generator's answer to a question at its pause (see `begin_search`); None
        where the machine must answer: then `st` is the machine's State, at the pause."""
        try:
            answer = self.gen.send(question)
        except BaseException as exc:  # the scores failed: the machine says how
            self.pending = None
            self.moves.pop()
            replay_moves(self.st, self.moves)
            if not isinstance(exc, Exception):
                raise
            return None
        if answer is None:
            self.leave()
        return answer

    def leave(self) -> None:
        """Make `st` the machine's State: the generator closed, the moves replayed."""
        self.pending = None
        self.gen.close()
        self.moves.pop()
        replay_moves(self.st, self.moves)

    def done(self) -> None:
        """The copy is thrown away: closing the generator puts nothing back."""
        self.saved.clear()
