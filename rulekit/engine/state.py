"""A game in progress: the one API that bots, the CLI, the simulator and tests use."""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from rulekit.backends import pysource
from rulekit.engine.steps import (
    Action,
    Decision,
    Effects,
    KeyedAction,
    SeqFrame,
    WindowFrame,
)
from rulekit.errors import (
    ChanceError,
    EndlessFlowError,
    FlowError,
    IllegalActionError,
    PieceError,
)
from rulekit.expr import budget

if TYPE_CHECKING:
    from rulekit.engine.game import Game

T = TypeVar("T")


#: what each metered call is called in a budget's message
_CALLS = {"apply": "one move", "resolve_chance": "one chance step", "_start": "the setup",
          "scores": "the scores", "preview": "one preview", "render": "the picture",
          "decision_help": "the help text", "decision_title": "the title",
          "end_text": "the end text", "end_scores": "the end's scores"}


def _late(what: str) -> str:
    return f"{what} (the game has used nearly all its work)"


def _metered(method: Callable[..., T]) -> Callable[..., T]:
    """A public call runs under the work budget of one call, within what the game has left,
    so that neither one move nor a whole game of expensive moves can run for ever."""
    what = _CALLS[method.__name__]

    # `apply` and `resolve_chance` run for every move of every game: a method of one
    # argument gets a wrapper of that argument (its name, its default) rather than one
    # that packs *args and **kwargs
    params = list(inspect.signature(method).parameters.values())[1:]
    if len(params) == 1 and params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
        arg = params[0].name
        head = arg if params[0].default is inspect.Parameter.empty else f"{arg}=default"
    else:
        arg = head = "*args, **kwargs"
    source = _METERED.format(head=head, args=arg)
    space = {"local": budget.LOCAL, "method": method, "what": what, "late": _late(what),
             "per_call": budget.WORK_PER_CALL, "default": params[0].default if params else None}
    return functools.wraps(method)(pysource.compile_function(source, space, "run"))


#: the wrapper of a metered call; `args` are the method's own parameters
_METERED = """\
def run(self, {head}):
    # the meter's fields are set directly: this runs for every move of every game; the
    # meter is this thread's own
    meter = local.m
    units = self._work_left
    if units >= per_call:
        units = per_call
        now = what
    else:
        now = late
    old, old_what = meter.left, meter.what
    meter.left, meter.what = units, now
    try:
        return method(self, {args})
    finally:
        self._work_left -= units - meter.left
        meter.left, meter.what = old, old_what
"""


class Play:
    """What a playout (and its generated turns) carry from move to move.

    `units` is the work budget of the call in progress, `made` the decisions made, `depth`
    the frames the machine would have on its stack (a procedure that runs itself stops at
    the same depth), `randrange` the playout's draw.
    The generated turns play a turn only when the playout cannot stop within it: it stops
    at the first pause (a decision or a chance step) after its last decision.
    """

    __slots__ = ("units", "made", "depth", "randrange", "left", "bounds", "study", "options",
                 "most")

    def __init__(self, units: int, randrange: Any, left: int, bounds: list,
                 study: bool = False) -> None:
        self.units = units
        self.made = 0
        self.depth = 1
        self.randrange = randrange
        #: the decisions the playout may make (-1: to the end), and the most decisions the
        #: rest of a turn can ask, by phase and step (backends.flowgen.turn_bounds)
        self.left = left
        self.bounds = bounds
        #: as a study's random bots play (`rng.choice(legal_actions())`): a decision of one
        #: option draws too, and the options offered are counted (summed, and the most)
        self.study = study
        self.options = 0
        self.most = 0


class State:
    """One game: components, variables, the flow's position, the log.

    Everything mutable is plain lists and dicts, so that `clone` is a handful of
    shallow copies and never a deepcopy. Its fields are slots: the engine reads and
    writes them at every step, and a slot is the quickest field Python has.
    """

    __slots__ = ("game", "n", "seed", "rng", "_imagined", "gvars", "pvars", "active",
                 "start", "turn", "round", "_next_seat", "phase", "over", "end_reason",
                 "_ending", "_playing", "_steps_left", "_work_left", "_log_chars", "_stale",
                 "_log", "_pending", "_pending_chance", "_stack", "_dirty", "_version",
                 "_defs", "_view_seeds", "comps", "players", "gviews", "_rng_from", "_unlogged",
                 "_seat_logs", "_fs")

    def __init__(self, game: Game, players: int, seed: int | None) -> None:
        self.game = game
        self.n = players
        self.seed = seed
        self.rng = random.Random(seed)
        self._rng_from: Any = None  # see `_new_rng`
        self._seat_logs: dict[int, tuple[int, list[dict]]] = {}  # see `log_for`
        # a copy made by `determinize` (or a copy of one): what it hides is imagined, so
        # a preview need not deal it anew
        self._imagined = False
        self.gvars: dict[str, Any] = dict(game.gvar_init)
        self.pvars: list[dict[str, Any]] = [dict(game.pvar_init) for _ in range(players)]
        self.active = 0
        self.start = 0
        self.turn = 0
        self.round = 0
        self._next_seat: int | None = None  # set by a `next_player` step for the next turn
        self.phase = 0
        self.over = False
        self.end_reason: str | None = None
        self._ending = False
        # within `playout`: decisions keep their options as records (see Decision)
        self._playing = False
        self._steps_left = game.max_steps
        self._work_left = budget.WORK_PER_GAME
        self._log_chars = 0
        self._stale = -1  # bits triggers changed after earlier triggers were checked
        self._log: list[dict] = []
        # moves played but not yet written in the log: (the state they were played from,
        # the moves), written when the log is read (see `log`)
        self._unlogged: Any = None
        self._fs: Any = None  # a new game's flat session (backends.session)
        self._pending: Decision | None = None
        self._pending_chance: Any = None
        self._stack: list = []
        self._dirty = 0  # bits of the parts changed since the last check
        # the values of `define`s, each with the version of the state it was computed on:
        # every change of the state counts the version up, so a define is computed once
        # per change however often it is read
        self._version = 0
        self._defs: dict = {}
        self._view_seeds: tuple = (None, -1, {})  # (decision, log length, {seat: seed})
        self.comps: list[Any] = [kind.new_state(self) for kind in game.components]
        self._make_views()
        self._stack.append(SeqFrame(game.setup, {}, "setup"))
        self._start()

    @_metered
    def _start(self) -> None:
        self._run()

    @property
    def log(self) -> list[dict]:
        """The game so far as JSON data: chance outcomes, decisions, said lines.

        Random play on the flat backend records its moves only; they are written here
        when the log is first read, by the engine replaying them from the state they
        were played from (the same outcomes, the same options): what nobody reads is
        never written."""
        if self._unlogged is not None:
            self._write_unlogged()
        return self._log

    @log.setter
    def log(self, value: list[dict]) -> None:
        self._log = value
        self._unlogged = None

    def _moves_start(self, comps: list) -> State:
        """A copy to replay moves from (`_unlogged`): this state as it stands, with `comps`
        (copies of its components made before the moves) and its log list itself, so that
        the replay writes this state's log; its views are made when it is replayed."""
        c = State.__new__(State)
        _copy_fields(self, c)
        c.rng = None  # type: ignore[assignment]
        c._rng_from = 0  # a replay imposes every outcome: nothing is drawn
        c.comps = comps
        c.pvars = [dict(p) for p in self.pvars]
        c.gvars = dict(self.gvars)
        c._stack = [f.copy() for f in self._stack]
        for f in c._stack:
            f.env = dict(f.env)
        c._defs = {}
        c._seat_logs = {}
        c._view_seeds = (None, -1, {})
        c._playing = False
        c._unlogged = None
        return c

    def _write_unlogged(self) -> None:
        start, moves = self._unlogged
        self._unlogged = None
        start._make_views()
        replay_moves(start, moves)
        self._log = start._log

    def _make_views(self) -> None:
        self.players = [self.game.player_class(self, i) for i in range(self.n)]
        self.gviews = [k.global_view(self) for k in self.game.components]

    # ---- the public API ---------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def is_chance(self) -> bool:
        return self._pending_chance is not None

    @property
    def current_player(self) -> int | None:
        """The seat that decides now (None while a chance step is due or the game is over)."""
        return self._pending.seat if self._pending is not None else None

    @property
    def active_player(self) -> int:
        return self.active

    def legal_actions(self) -> list[Action]:
        if self._pending is None:
            if self.over:
                raise IllegalActionError("the game is over: there are no legal actions")
            raise IllegalActionError("a chance step is due: call resolve_chance() first")
        return list(self._pending.actions)

    @_metered
    def apply(self, action: Action | str) -> None:
        """Play a legal action (or its label); an illegal one raises and changes nothing."""
        pending = self._pending
        chosen = None
        if action.__class__ is Action or action.__class__ is KeyedAction:
            label = action.label
            for a in pending.actions if pending is not None else ():
                if a is action:  # the common case: one of legal_actions() itself
                    chosen = a
                    break
            else:
                if pending is not None and action.seat == pending.seat:
                    chosen = pending.find(label)
        else:
            label = action
            if pending is not None:
                chosen = pending.find(label)
        if pending is None:
            why = "the game is over" if self.over else "a chance step is due"
            raise IllegalActionError(f"cannot play {label!r}: {why}")
        if chosen is None:
            legal = ", ".join(a.label for a in pending.actions)
            raise IllegalActionError(f"{label!r} is not a legal action for seat {pending.seat}; "
                                     f"legal: {legal}")
        self._play(pending, chosen, label)

    def _play(self, pending: Decision, chosen: Action, label: str) -> None:
        self._pending = None
        self._log.append({"seat": pending.seat, "action": label})
        window = pending.window
        if window is not None:
            window.choices.append(chosen)
            window.k += 1
        elif chosen.steps.__class__ is Effects:
            self._effects(chosen)
        elif chosen.steps:
            self._stack.append(SeqFrame(chosen.steps, chosen.env, "", self.game.check_effects))
        self._run()

    def _effects(self, action: Action) -> None:
        """Run an action's effects at once: no frame for a list that cannot pause."""
        env = action.env
        step = None
        try:
            for step in action.steps:
                step.run(self, env)
        except RUNTIME_ERRORS as exc:
            raise _failed(getattr(step, "where", ""), "an action", exc) from exc

    @_metered
    def resolve_chance(self, outcome: Any = None) -> Any:
        """Sample the due chance step from the game's RNG, or impose `outcome`; returns it."""
        step = self._pending_chance
        if step is None:
            raise ChanceError("no chance step is due now")
        return self._chance(step, outcome)

    def _chance(self, step: Any, outcome: Any) -> Any:
        view = step.view(self)
        chance = step.chance
        if outcome is None and chance.draw is not None:
            outcome = chance.draw(view, self.rng or self._new_rng())  # sampled and applied
            self._pending_chance = None
        else:
            if outcome is None:
                outcome = chance.sample(view, self.rng or self._new_rng())
            else:
                why = chance.check(view, outcome)
                if why:
                    raise ChanceError(f"impossible {step.name} outcome "
                                      f"{json.dumps(outcome)}: {why}")
            self._pending_chance = None
            chance.apply(view, outcome)
        self._version += 1
        self._dirty |= step.writes
        self._log.append({"chance": step.name, "outcome": outcome})
        self._run()
        return outcome

    def playout(self, rng: random.Random, decisions: int | None = None,
                value: Callable[[list, int], float] | None = None, *,
                log: bool = True) -> int:
        """Play on with random legal actions and sampled chance outcomes until the game
        ends, or until `decisions` decisions were made; returns how many were made.

        The same game as `resolve_chance()` and `apply(actions[rng.randrange(n)])` (a
        decision of one option draws nothing from `rng`) in a loop, each move under the
        same work budget, but without the costs of one public call per move: the fast
        path of random simulation and of search bots' playouts.

        With `value` (a function of the scores and a seat), every move is one whose
        `preview` has the highest value of its scores for the seat deciding, equal ones
        chosen by `rng`: the game of a loop of a greedy bot's `choose`.

        Random play to the end runs on the game's flat backend where it covers the game
        (`rulekit compile --backend flat FILE` says whether it does): the same game. With
        `log=False` the moves it plays are left out of the log, for a caller that reads
        only the outcome (scores, the end); its cost is a good part of a fast game's.
        """
        return self._playout(rng, decisions, value, log=log).made

    def _playout(self, rng: random.Random, decisions: int | None,
                 value: Callable[[list, int], float] | None, study: bool = False,
                 log: bool = True) -> Play:
        """`playout`; with `study`, the game of random bots that draw with
        `rng.choice(legal_actions())` (a decision of one option draws too), the options
        counted in the Play returned. Without `log`, the moves the flat backend plays are
        not written in the log (a study that reads only the counts and scores)."""
        left = -1 if decisions is None else decisions
        per_call = budget.WORK_PER_CALL
        meter = budget.meter()
        old, old_what = meter.left, meter.what
        # the draws of randrange(n), one call fewer (Random.choice draws the same way),
        # unless the caller's RNG has a randrange of its own
        randrange = rng.randrange
        if study or (type(rng).randrange is random.Random.randrange
                     and hasattr(rng, "_randbelow")):
            randrange = rng._randbelow  # what Random.choice draws with
        moving, rolling = _CALLS["apply"], _CALLS["resolve_chance"]
        game = self.game
        play = Play(0, randrange, left, game.turn_bounds[self.n] if game.turns else [], study)
        if value is None and left < 0 and game.flat is not None:
            done = game.flat.play(self, rng, randrange, study, log)
            if done is not None:
                play.made, play.options, play.most, over = done
                if over:
                    return play
        # random moves: the game's generated turns play the turns the playout cannot stop
        # within (see backends.flowgen)
        self._playing = play if value is None and game.turns else True
        try:
            while not self.over and play.made != left:
                pending = self._pending
                units = self._work_left
                what = moving if pending is not None else rolling
                if units >= per_call:
                    units = per_call
                else:
                    what = _late(what)
                meter.left, meter.what = units, what
                play.units = units  # the generated turns start the calls after this one
                try:
                    if pending is None:
                        self._chance(self._pending_chance, None)
                    else:
                        if study:
                            n = pending.size()
                            play.options += n
                            if n > play.most:
                                play.most = n
                            chosen = pending.pick(randrange(n))
                        elif value is None:
                            chosen = pending.random(randrange)
                        elif pending.size() == 1:
                            chosen = pending.pick(0)
                        else:
                            chosen = self._best(pending, value, randrange)
                        play.made += 1
                        self._play(pending, chosen, chosen.label)
                finally:
                    self._work_left -= play.units - meter.left
        finally:
            self._playing = False
            meter.left, meter.what = old, old_what
        return play

    def _best(self, pending: Decision, value: Callable[[list, int], float],
              randrange: Callable[[int], int]) -> Action:
        """The legal action whose preview's scores have the highest `value` for the seat
        deciding; one of equal ones drawn with `randrange`."""
        seat = pending.seat
        best: list[Action] = []
        top = None
        for action in pending.actions:
            v = value(self._preview(pending, action, None).scores(), seat)
            if top is None or v > top:
                top, best = v, [action]
            elif v == top:
                best.append(action)
        return best[0] if len(best) == 1 else best[randrange(len(best))]

    def chance_outcomes(self) -> list[tuple[str, list[tuple[Any, float]]]] | None:
        """The due chance step's outcomes with their probabilities, as independent parts
        (see `Chance.outcomes`: a roll is a part per die), or None where they are too many
        to list (a deal): then `sample_chance` draws one. For adapters to other frameworks."""
        step = self._pending_chance
        if step is None:
            raise ChanceError("no chance step is due now")
        outcomes = step.chance.outcomes
        return None if outcomes is None else outcomes(step.view(self))

    def sample_chance(self, rng: random.Random) -> Any:
        """An outcome of the due chance step drawn from `rng`, not applied (impose it with
        `resolve_chance(outcome)`): the state's own RNG is not touched."""
        step = self._pending_chance
        if step is None:
            raise ChanceError("no chance step is due now")
        return step.chance.sample(step.view(self), rng)

    @_metered
    def scores(self) -> list[int | float]:
        fn = self.game.score
        out = []
        try:
            for p in self.players:
                value = fn(self, {"player": p})
                # whole scores are ints; a fraction (a return such as -1/(n-1)) stays exact
                out.append(int(value) if value == int(value) else value)
        except RUNTIME_ERRORS as exc:
            raise _failed(self.game.score_where, "the score", exc) from exc
        return out

    @_metered
    def end_scores(self) -> list[dict[str, int]]:
        """What the end of the game added to each seat's score, by the parts the file's
        `end.score` names (counted in `scores()` once the game is over); before the end,
        or without `end.score`, nothing."""
        if not self.over:
            return [{} for _ in range(self.n)]
        out: list[dict[str, int]] = []
        for p in self.players:
            parts = {}
            for name, fn, where in self.game.end_score:
                try:
                    parts[name] = int(round(fn(self, {"player": p})))
                except RUNTIME_ERRORS as exc:
                    raise _failed(where, "the end's score", exc) from exc
            out.append(parts)
        return out

    def winners(self) -> list[int]:
        scores = self.scores()
        best = max(scores)
        return [i for i, s in enumerate(scores) if s == best]

    def clone(self) -> State:
        """An independent copy: shallow copies of plain data, views re-made for the copy."""
        return self._copy(True)

    def _new_rng(self) -> random.Random:
        """The RNG of a copy whose RNG is made at its first draw (`rng` is None), from
        `_rng_from`, a seed or an RNG's state: a bot's preview or imagined copy seldom
        draws, and making an RNG costs about as much as the rest of the copy. Every draw
        from the state's RNG reads `st.rng or st._new_rng()`."""
        source = self._rng_from
        if source.__class__ is tuple:
            rng = random.Random.__new__(random.Random)
            rng.setstate(source)
        else:
            rng = random.Random(source)
        self.rng = rng
        self._rng_from = None
        return rng

    def _copy(self, rng: bool) -> State:
        """`clone`; without `rng` the copy has no RNG until the caller sets `rng` or
        `_rng_from` (never the original's)."""
        c = State.__new__(State)
        _copy_fields(self, c)
        if not rng:
            c.rng = None  # type: ignore[assignment]
            c._rng_from = None
        elif self.rng is not None:  # made without seeding it from the system first
            c.rng = random.Random.__new__(random.Random)
            c.rng.setstate(self.rng.getstate())
            c._rng_from = None
        else:  # the original's RNG is not made yet: nor is the copy's
            c.rng = None  # type: ignore[assignment]
            c._rng_from = self._rng_from
        c.gvars = dict(self.gvars)
        c.pvars = [dict(p) for p in self.pvars]
        c._log = list(self.log)
        c._unlogged = None
        c._seat_logs = {}
        c._playing = False
        c._view_seeds = (None, -1, {})
        c._defs = {}
        c.comps = [kind.copy_state(s) for kind, s in zip(self.game.components, self.comps)]
        c._make_views()
        stack = []
        for f in self._stack:
            nf = f.copy()
            nf.env = _rebind_env(f.env, c)
            stack.append(nf)
        c._stack = stack
        d = self._pending
        if d is not None:
            window = stack[-1] if d.window is not None else None
            c._pending = Decision.copied(d.seat, d, window,
                                         lambda a: _rebind_action(a, c))
        return c

    @_metered
    def preview(self, action: Action | str) -> State:
        """A copy with the action's effects applied at once, for bots that evaluate moves.

        Unlike `apply`, effects deferred by a window of simultaneous decisions happen
        immediately; the copy is for reading scores and components, not for playing on.
        In a game with hidden parts, what the deciding seat cannot see (other hands, the
        stock's order) is dealt anew in the copy, so a bot learns nothing hidden from it;
        and the copy's chance steps draw from an RNG of its own, not the game's, so it
        tells nothing of the rolls to come either.
        """
        pending = self._pending
        chosen = None
        if isinstance(action, Action):
            label = action.label
            if pending is not None and any(a is action for a in pending.actions):
                chosen = action
        else:
            label = action
        if chosen is None:
            chosen = pending.find(label) if pending is not None else None
        if chosen is None:
            raise IllegalActionError(f"{label!r} is not a legal action now")
        return self._preview(pending, chosen, label)

    def _preview(self, pending: Decision, chosen: Action, label: str | None) -> State:
        """`preview` of `chosen`, one of `pending`'s actions (its label if known)."""
        if not self._imagined and self.game.hides_information:
            # seeded by what the seat sees, never by the game's seed (which deals every
            # hand): previews are reproducible, and equal for positions the seat cannot tell
            # apart
            c = self.determinize(pending.seat, random.Random(self._view_seed(pending.seat)))
        else:
            c = self._copy(False)
            # a Random(0), made from its state at the first draw: a greedy bot previews
            # every legal action of every decision
            c._rng_from = _PREVIEW_RNG
        if all(step.pure for step in chosen.steps):
            env = _rebind_env(chosen.env, c)
            try:
                for step in chosen.steps:
                    step.run(c, env)
            except RUNTIME_ERRORS as exc:
                raise _failed(chosen.steps[0].where if chosen.steps else "", "an action",
                              exc) from exc
        else:
            c.apply(chosen.label if label is None else label)
        return c

    def determinize(self, seat: int, rng: random.Random) -> State:
        """A copy as `seat` may imagine it: what it cannot see is drawn anew from `rng`.

        Other hands and the stock's order are dealt again from the pieces the seat has not
        seen, other players' secret dice rolled again and their secret variables put back
        to their initial values, and the copy's chance outcomes come from a new RNG; what
        the seat sees stays. When another seat is to decide, the copy asks that decision
        anew, from the pieces it imagines for that seat.
        Bots that look ahead search such copies, so they decide from their seat's view.

        The copy is a function of the seat's view, its public history and `rng` only: the
        pieces are pooled in a fixed order before the shuffle, the copy's log is the seat's
        (`log_for`: no outcomes of secret chance steps, no private lines to others), the
        choices other seats made in a window of simultaneous decisions that has not
        resolved yet are imagined anew, and the copy has no seed; so two positions the seat
        cannot tell apart give equal copies for equal `rng`s.
        """
        c = self._copy(False)
        for kind in self.game.components:
            if kind.hides_information:
                kind.redeal_unseen(c, seat, rng)
        # another player's secret variables: nothing tells the seat their values, so the
        # copy holds their initial ones (never the true ones)
        for name in self.game.secret_vars:
            for p, pv in enumerate(c.pvars):
                if p != seat:
                    pv[name] = self.game.pvar_init[name]
        c._version += 1
        c._imagined = True
        imagined = _imagine_window_choices(c, seat, rng)
        if c._pending is not None and c._pending.seat != seat and self.game.hides_information:
            _ask_anew(c)
        c._rng_from = rng.getrandbits(64)  # the copy's RNG, seeded at its first draw
        c.seed = None
        if self.game.private_lines or self.secret_chances():
            c._log = c.log_for(seat) if imagined else self.log_for(seat)
        # the steps run so far may have followed hidden data: the copy gets a fresh budget
        c._steps_left = self.game.max_steps
        return c

    def log_for(self, seat: int | None) -> list[dict]:
        """The log as `seat` may read it (all of it for an observer, None): the outcomes of
        secret chance steps (a deal) without the outcome, no private `say` line to another
        seat (a tile drawn into a hidden hand), and, while a window of simultaneous
        decisions has not resolved, another seat's choice in it as `{"seat": s, "hidden":
        True}` (the seat's own choice as it is): everyone decides before seeing the
        others' choices (`hidden_choices`), and once the window resolves every choice shows.

        In a copy made by `determinize` the other seats' choices in such a window are the
        ones the copy imagined, not secrets, and show as the copy holds them.
        """
        if seat is None:
            return list(self.log)
        # kept per seat and extended as the log grows (the engine only appends to it): a
        # search bot imagines the same position from the same seat at every iteration.
        # Only the part before the first masked choice is kept, so that the choices show
        # once their window resolves.
        log = self.log
        n = len(log)
        hidden = () if self._imagined else self.hidden_choices(seat)
        settled = hidden[0] if hidden else n
        start, seen = self._seat_logs.get(seat, (0, []))
        secret = self.secret_chances()
        if start > settled:
            start, seen = 0, []
        if start < settled:
            seen = seen + [{"chance": e["chance"]} if e.get("chance") in secret else e
                           for e in log[start:settled] if e.get("to", seat) == seat]
            self._seat_logs[seat] = (settled, seen)
        out = list(seen)
        for i in range(settled, n):
            e = log[i]
            if i in hidden:
                out.append({"seat": e.get("seat"), "hidden": True})
            elif e.get("to", seat) == seat:
                out.append({"chance": e["chance"]} if e.get("chance") in secret else e)
        return out

    def undisclosed(self) -> int:
        """How many of the last decisions in the log were made in a window of simultaneous
        decisions that has not resolved yet: until it does, each is its own seat's secret."""
        return sum(len(f.choices) for f in self._stack if f.__class__ is WindowFrame)

    def hidden_choices(self, seat: int | None) -> list[int]:
        """Where in the log other seats' choices stand that `seat` may not read yet: those
        of a window of simultaneous decisions that has not resolved (none for an observer)."""
        k = self.undisclosed()
        if not k or seat is None:
            return []
        log = self.log
        decided = [i for i in range(len(log)) if "action" in log[i]][-k:]
        return [i for i in decided if log[i].get("seat") != seat]

    def secret_chances(self) -> frozenset[str]:
        """Names of the game's chance steps whose outcomes nobody sees (`Game.secret_chances`)."""
        return self.game.secret_chances

    def _view_seed(self, seat: int) -> int:
        """A seed drawn from `view(seat)` alone: what the seat sees, nothing hidden.

        Kept while the position stands (the same decision, the same log), since a bot
        previews every legal action of one decision.
        """
        decision, length, seeds = self._view_seeds
        if decision is not self._pending or length != len(self.log):
            seeds = {}
            self._view_seeds = (self._pending, len(self.log), seeds)
        seed = seeds.get(seat)
        if seed is None:
            text = json.dumps(self.view(seat), sort_keys=True, separators=(",", ":"),
                              default=str)
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
            seeds[seat] = seed
        return seed

    def view(self, seat: int | None = None) -> dict:
        """What `seat` may see, as plain data; hidden hands and stock order are masked."""
        g = self.game
        return {
            "game": g.name,
            "players": self.n,
            "seat": seat,
            "active": self.active,
            "start": self.start,
            "turn": self.turn,
            "phase": self.game.phases[self.phase][0],
            "current_player": self.current_player,
            "is_over": self.over,
            "end_reason": self.end_reason,
            "vars": dict(self.gvars),
            "player_vars": [self._vars_seen(p, seat) for p in range(self.n)],
            "components": {k.name: k.snapshot(self, seat) for k in g.components},
            "legal_actions": [a.label for a in self._pending.actions]
            if self._pending is not None and (seat is None or seat == self._pending.seat) else [],
        }

    def _vars_seen(self, player: int, seat: int | None) -> dict:
        """A player's variables as `seat` sees them: another player's secret ones as None."""
        own = dict(self.pvars[player])
        if seat is not None and seat != player:
            for name in self.game.secret_vars:
                own[name] = None
        return own

    @_metered
    def render(self, seat: int | None = None, compact: bool = False) -> str:
        """The game as text for a person at `seat`; `compact`: the others a line each."""
        return self.game.render(self, seat, compact)

    @_metered
    def decision_help(self) -> str:
        """The game file's `help:` text of the decision now due ("" if it has none).

        Read from the flow's position rather than stored with the decision, so that
        deciding costs nothing extra; only `rulekit play` asks for it.
        """
        return self._decision_text("help")

    @_metered
    def decision_title(self) -> str:
        """The game file's `title:` of the decision now due: what it is ("" if none)."""
        return self._decision_text("title")

    def _decision_text(self, key: str) -> str:
        d = self._pending
        if d is None:
            return ""
        frame = d.window if d.window is not None else self._stack[-1]
        step = frame.step if d.window is not None else frame.steps[frame.i - 1]
        text = getattr(step, key, None)
        if text is None:
            return ""
        env = dict(frame.env or {})
        env["player"] = self.players[d.seat]
        try:
            return text(self, env)
        except RUNTIME_ERRORS as exc:
            raise _failed(step.where, f"the {key} text", exc) from exc

    @_metered
    def end_text(self) -> str:
        """The game file's sentence saying why the game ended (`end.text`), "" without one."""
        entry = self.game.end_texts.get(self.end_reason) if self.over else None
        if entry is None:
            return ""
        fn, where = entry
        try:
            return fn(self, {})
        except RUNTIME_ERRORS as exc:
            raise _failed(where, "the end text", exc) from exc

    def __repr__(self) -> str:
        return f"<State {self.game.name} turn={self.turn} active={self.active} over={self.over}>"

    # ---- the machine --------------------------------------------------------------------------
    def _run(self) -> None:
        """Advance through steps until a decision or chance outcome is due, or the game ends."""
        stack = self._stack
        step = None
        play = self._playing
        if play.__class__ is not Play:
            play = None
        try:
            while not self.over:
                top = stack[-1]
                if top.__class__ is SeqFrame:
                    i = top.i
                    if self._dirty and top.checks:
                        self.game.after_step(self)
                        if self.over:
                            return
                    if i >= len(top.steps):
                        stack.pop()
                        if not stack:
                            self._next_turn(top.role)
                        continue
                    if (play is not None and len(stack) == 1 and top.role == "turn"
                            and (play.left < 0
                                 or play.left - play.made > play.bounds[self.phase][i])):
                        # random play: the generated turns play on from here, while the
                        # playout cannot stop within a turn
                        self.game.turns(self, play, i)
                        if self.over:
                            return
                        continue  # the machine plays the turn in which it may stop
                    top.i = i + 1
                    step = top.steps[i]
                    self._steps_left -= 1
                    if self._steps_left < 0:
                        raise self._endless(step)
                    if step.run(self, top.env):
                        return
                elif top.k < len(top.seats):
                    seat = top.seats[top.k]
                    step = top.step
                    if self._playing:
                        d = top.step._recorded(self, seat, top.env, top)
                    else:
                        actions = top.step.actions(self, seat, top.env)
                        d = Decision(seat, actions, top) if actions else None
                    if d is None:
                        top.k += 1
                        continue
                    self._pending = d
                    return
                else:
                    stack.pop()
                    choices = top.choices
                    if top.foreign:
                        choices = [_rebind_action(a, self) for a in choices]
                    if top.step.effects_only:
                        for action in choices:
                            if action.steps:
                                self._effects(action)
                    else:
                        for action in reversed(choices):
                            if action.steps:
                                stack.append(SeqFrame(action.steps, action.env, "",
                                                      self.game.check_effects))
        except RUNTIME_ERRORS as exc:
            raise _failed(getattr(step, "where", ""), "a step", exc) from exc

    def _endless(self, step: Any) -> EndlessFlowError:
        """The error of a flow that does not end, naming the step it was at."""
        return EndlessFlowError(f"{step.where}: the game did not end within "
                                f"{self.game.max_steps} steps (turn {self.turn}, at this step); "
                                "does its end condition ever hold?")

    def _after_step(self) -> None:
        """Fire the triggers, then check the end: each only if it reads a part that changed
        since it was last checked (otherwise its value is the false it had then).

        The closure path's `game.after_step`; a game's generated code has its own
        (backends.codegen.checks_function), which does the same work."""
        game = self.game
        changed = self._dirty | self._stale
        self._dirty = 0
        if not changed & game.check_mask:
            self._stale = 0  # no trigger fired, so none changed anything
            return
        for trigger in game.triggers:
            if trigger.mask & (changed | self._dirty):
                try:
                    trigger.fire(self)
                except RUNTIME_ERRORS as exc:
                    raise _failed(trigger.where, "a trigger", exc) from exc
        # what the triggers changed: the triggers before them see it at the next check
        self._stale = stale = self._dirty
        self._dirty = 0
        if self._ending:
            return
        changed |= stale
        for reason, cond, mask, where in game.end_conditions:
            if not mask & changed:
                continue
            try:
                holds = cond(self, _NO_NAMES)
            except RUNTIME_ERRORS as exc:
                raise _failed(where, end_condition(reason), exc) from exc
            if holds:
                self.end_reason = reason
                if game.finish == "now":
                    self.over = True
                else:
                    self._ending = True
                return

    def _next_turn(self, finished: str, frame: bool = True) -> None:
        """The turn (or setup) `finished` is over: the next turn begins, its frame pushed
        (`frame`: the generated turns keep none), or the game ends."""
        game = self.game
        if game.plain_turns and self._next_seat is None and finished != "setup":
            # the turn order of most games, written out: every turn of every game ends here
            active = self.active = (self.active + 1) % self.n
            if active == self.start:
                if self._ending:
                    self.over = True  # the round is complete: no turn begins, none is counted
                    return
                self.round += 1
            self.turn += 1
            self._stale |= game.turn_reset_mask
            self._dirty |= game.turn_mask
            self._version += 1
            if frame:
                self._stack.append(SeqFrame(game.phases[0][1], {}, "turn", True))
            return
        if finished == "setup":
            self.active = self.start = game.first_player(self) if game.first_player else 0
            self.turn = self.round = 1
            self._next_seat = None
            # the game's start: every check runs before the first turn's first step (bit
            # 1, which `_stale` holds until the first check)
            self._dirty |= 1
        else:
            until = game.phases[self.phase][2]
            if until is not None and until(self, {}):
                # the phase is over: the next one begins, or, after the last, the game ends
                if self.phase + 1 == len(game.phases):
                    self.over = True
                    self.end_reason = self.end_reason or f"{game.phases[self.phase][0]} over"
                    return
                self.phase += 1
            n, prev, nxt = self.n, self.active, self._next_seat
            if nxt is None:
                self.active = (prev + 1) % n
                new_round = self.active == self.start
            else:
                # a chosen next player: a round is complete when play passes the start
                # player going left; an extra turn (the same player again) starts none
                self._next_seat = None
                self.active = nxt
                new_round = (self.start - prev - 1) % n < (nxt - prev) % n
            if self._ending and new_round:
                self.over = True  # the round is complete: no turn begins, none is counted
                return
            self.turn += 1
            self.round += new_round
        for name, value in game.turn_resets_player:
            for p in self.pvars:
                p[name] = value
        for name, value in game.turn_resets_game:
            self.gvars[name] = value
        self._stale |= game.turn_reset_mask
        self._dirty |= game.turn_mask
        self._version += 1
        if frame:
            self._stack.append(SeqFrame(game.phases[self.phase][1], {}, "turn", True))


#: every field of `src` but its RNG set on `dst` (both States), written out once: what a copy starts
#: from, at every clone of every search
_copy_fields = pysource.compile_function(
    "def copy(src, dst):\n" + "".join(f"    dst.{f} = src.{f}\n" for f in State.__slots__
                                      if f not in ("rng", "_rng_from")),
    {}, "copy")


def replay_moves(st: State, moves: list) -> None:
    """Play recorded moves on `st` through the engine: a chance step's outcome as its kind
    reads it back from the record (`flat_outcome`), a decision's option by its index."""
    for move in moves:
        step = st._pending_chance
        if step is not None:
            kind = st.game.components[step.component]
            st.resolve_chance(kind.flat_outcome(step.view(st), move))
        else:
            st.apply(st.legal_actions()[move])


def _imagine_window_choices(c: State, seat: int, rng: random.Random) -> bool:
    """In the copy `c`, replace what other seats chose in an unresolved window of
    simultaneous decisions (hidden until it resolves) by a legal choice drawn from `rng`,
    in the frames and in the copy's log; whether there were any."""
    imagined = False
    for frame in c._stack:
        if frame.__class__ is not WindowFrame or not frame.choices:
            continue
        decided = [i for i, e in enumerate(c.log) if "action" in e][-len(frame.choices):]
        for k, (who, i) in enumerate(zip(frame.seats, decided)):
            if who == seat:
                continue
            options = frame.step.actions(c, who, frame.env)
            if options:
                frame.choices[k] = rng.choice(options)
                c.log[i] = {**c.log[i], "action": frame.choices[k].label}
                imagined = True
    return imagined


def _ask_anew(c: State) -> None:
    """In the copy `c`, ask the decision that is due anew: another seat's legal actions in
    the real game tell what it holds, so the copy offers those its imagined pieces give
    (and where they give none, it plays on as the rules say, to the next decision)."""
    pending = c._pending
    c._pending = None
    if pending.window is None:
        c._stack[-1].i -= 1  # the choose step that asked it runs again
    with budget.limit(budget.WORK_PER_CALL, "asking the decision anew in a copy"):
        c._run()


#: the state of the RNG of a preview's copy: that of random.Random(0)
_PREVIEW_RNG = random.Random(0).getstate()

#: the names an end condition sees besides the globals: none (compiled code never writes to it)
_NO_NAMES: dict = {}

#: what a game file's expressions and building blocks can raise while a game runs (a bad
#: index, a division by 0, a lane the track does not have): named after the step
RUNTIME_ERRORS = (ArithmeticError, LookupError, TypeError, ValueError, AttributeError,
                  RecursionError, budget.BudgetExceeded, PieceError)


def end_condition(reason: str) -> str:
    """What an end condition is called in an error: by its name under `when`, if any."""
    return "the end condition" if reason == "end condition" else f"the end condition {reason!r}"


def _failed(where: str, what: str, exc: Exception) -> FlowError:
    where = f"{where}: " if where else ""
    if isinstance(exc, budget.BudgetExceeded):
        return FlowError(f"{where}{what} went past a budget while the game ran: {exc}")
    if isinstance(exc, RecursionError):
        return FlowError(f"{where}{what} failed while the game ran: its expressions nest too "
                         "deeply (defines that use defines, many levels down?)")
    if isinstance(exc, PieceError):
        return FlowError(f"{where}{what} failed while the game ran: {exc}")
    return FlowError(f"{where}{what} failed while the game ran: "
                     f"{type(exc).__name__}: {exc}")


def rebind(value: Any, st: State) -> Any:
    """The same view (player, row, dice ...) but of another state; other values unchanged."""
    f = getattr(value, "_rebind", None)
    if f is not None:
        return f(st)
    if value.__class__ is list:
        return [rebind(v, st) for v in value]
    return value


def _rebind_env(env: dict, st: State) -> dict:
    return {k: rebind(v, st) for k, v in env.items()}


def _rebind_action(a: Action, st: State) -> Action:
    return Action(a.label, a.seat, a.steps, _rebind_env(a.env, st))
