"""rulekit games as OpenSpiel games: importing this module registers `python_rulekit`.

    import pyspiel
    import rulekit.interop.openspiel  # registers the game
    game = pyspiel.load_game("python_rulekit", {"file": "games/mygame.yaml", "players": 3,
                                                "params": "{max_rounds: 8}"})

Game parameters: `file` (a game file, or a shipped game's name), `players` (0: the
file's least), `params` (the file's params to change, a YAML mapping; OpenSpiel's game
string, `str(game)`, splits parameters at commas, so only a mapping without commas
survives it) and `samples` (see chance below). The game is sequential with terminal
rewards, the final scores (general-sum); imperfect information when a component hides
something (a hand) or a `together` window lets seats decide without seeing the others'
choices.

Actions are the ids of `rulekit.interop.encoding`; `action_to_string` gives the label.
Chance is explicit: a chance step whose outcomes its component can list (a roll) is
offered part by part (a die at a time: its faces with their probabilities); one that can
only be sampled (a shuffle) is offered as `samples` equally likely outcomes, outcome k
being the shuffle drawn from a seed made of k and the number of chance steps before it.
Observations come from `state.view(seat)` alone: the string is the view as JSON, the
tensor its encoding; the information state adds a digest of everything the seat saw
and chose before, so it has perfect recall without growing with the game. A state
serializes as the game's parameters and the decisions and outcomes played since the
start, and is rebuilt by playing them again.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import numpy as np
import pyspiel

import rulekit
from rulekit.errors import RulekitError
from rulekit.files import resolve_game
from rulekit.interop.encoding import Encoding, encoding_of
from rulekit.spec.source import parse_text

SHORT_NAME = "python_rulekit"
#: the game parameters and their defaults
DEFAULTS = {"file": "", "players": 0, "params": "{}", "samples": 1000}
#: the most equally likely outcomes offered for a chance step that can only be sampled
MAX_SAMPLES = 1_000_000
#: the most players the registered game type allows (a file says its own range)
MAX_PLAYERS = 100
#: the utility range of a file that declares no `score_bounds`
UNBOUNDED = 1e12

_Type = pyspiel.GameType


def _game_type(information: Any = _Type.Information.IMPERFECT_INFORMATION,
               chance: Any = _Type.ChanceMode.EXPLICIT_STOCHASTIC,
               utility: Any = _Type.Utility.GENERAL_SUM) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="a rulekit game file",
        dynamics=_Type.Dynamics.SEQUENTIAL, chance_mode=chance, information=information,
        utility=utility, reward_model=_Type.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS, min_num_players=1,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=DEFAULTS)


def load(params: dict[str, Any]) -> rulekit.Game:
    """The rulekit game the parameters name, its params changed by `params`."""
    file = params.get("file")
    if not isinstance(file, str) or not file:
        raise RulekitError("python_rulekit needs the parameter 'file': a game file or the "
                           "name of a shipped game")
    text = params.get("params") or ""
    if not isinstance(text, str):
        raise RulekitError("the parameter 'params' is a YAML mapping in a string, "
                           "e.g. '{penalty_points: 4}'")
    overrides = parse_text(text, "the parameter 'params'", empty_ok=True).data if text else None
    if overrides is not None and not isinstance(overrides, dict):
        raise RulekitError("the parameter 'params' is a YAML mapping of the file's params, "
                           "e.g. '{penalty_points: 4}'")
    return rulekit.load_game(resolve_game(file), overrides=overrides)


def _hides_information(game: rulekit.Game) -> bool:
    """A component hides something, or a `together` window hides the others' choices."""
    if game.hides_information:
        return True
    todo = [game.spec.get("flow")]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if "together" in node:
                return True
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return False


class RulekitGame(pyspiel.Game):
    """A game file as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None,
                 game: rulekit.Game | None = None) -> None:
        """The game the parameters name, or `game` itself (already loaded) when given."""
        params = {**DEFAULTS, **(params or {})}
        game = load(params) if game is None else game
        players = params["players"] or game.min_players
        if not isinstance(players, int) or not game.min_players <= players <= game.max_players:
            raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                               f"players, not {players}")
        samples = params["samples"]
        if not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise RulekitError(f"the parameter 'samples' is a whole number from 1 to "
                               f"{MAX_SAMPLES}, not {samples!r}")
        self.rulekit_game = game
        self.encoding = encoding = encoding_of(game)
        self.samples = samples
        chances = encoding.chances
        low, high = (game.score_bounds.get(players) or (None, None))
        information = (_Type.Information.IMPERFECT_INFORMATION if _hides_information(game)
                       else _Type.Information.PERFECT_INFORMATION)
        chance = (_Type.ChanceMode.EXPLICIT_STOCHASTIC if chances.any
                  else _Type.ChanceMode.DETERMINISTIC)
        info = pyspiel.GameInfo(
            num_distinct_actions=max(1, encoding.num_actions),
            max_chance_outcomes=max(chances.values, samples if chances.sampled else 0),
            num_players=players,
            min_utility=float(low) if low is not None else -UNBOUNDED,
            max_utility=float(high) if high is not None else UNBOUNDED,
            utility_sum=0.0 if game.zero_sum else None,
            # every step of the flow is at most one chance step (in parts) or a decision
            # of each seat
            max_game_length=game.max_steps * max(players, chances.parts, 1))
        utility = _Type.Utility.ZERO_SUM if game.zero_sum else _Type.Utility.GENERAL_SUM
        super().__init__(_game_type(information, chance, utility), info, params)
        #: the state every game starts from, and what its log holds already
        self.initial = game.new_game(players, seed=0)
        self.initial_log = list(self.initial.log)

    def new_initial_state(self, *_: Any) -> RulekitState:
        return RulekitState(self, _Position(self, self.initial.clone(), replayable=True,
                                            start=self.initial))

    def state_of(self, state: rulekit.State) -> RulekitState:
        """An OpenSpiel state for a rulekit state of this game (a copy of it), for bots;
        its history in OpenSpiel's terms starts there."""
        return RulekitState(self, _Position(self, state.clone()))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if isinstance(iig_obs_type, dict):  # called with the params alone
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise RulekitError(f"python_rulekit observers take no parameters, not {params}")
        if iig_obs_type is not None and (
                iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                or not iig_obs_type.public_info):
            raise RulekitError("python_rulekit observes a game as one seat sees it (its own "
                               "hidden parts and the public ones) and no other way")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self.encoding, recall)


class _Position:
    """What an OpenSpiel state holds: the rulekit state, a roll being put together part
    by part, the count of chance steps, and what each seat saw and chose (for the
    information state).

    The steps played form a tree shared by a state and its copies (`_Step`); each seat's
    past is a chain of digests along it, worked out only when an information state is
    asked for (searches that never ask pay nothing for it) and then kept in the tree, so
    that the copies of a state never work out the same step twice. OpenSpiel copies a
    state by deep-copying its attributes: this one copies the rulekit state with its
    cheap `clone` and shares the game and the tree."""

    def __init__(self, game: RulekitGame, st: rulekit.State, replayable: bool = False,
                 start: rulekit.State | None = None) -> None:
        """`start`: a state equal to `st` that nothing changes, to share (else a copy)."""
        self.game = game
        #: whether the game's initial state and the log rebuild it (`serialize` needs it)
        self.replayable = replayable
        self.encoding: Encoding = game.encoding
        self.st = st
        self.parts: list | None = None
        self.partial: dict[str, Any] = {}
        self.chances = 0
        self.node = _Step(None, None, None)
        self.node.seen = [b""] * st.n
        self.node.state = st.clone() if start is None else start
        self.settle()

    def __deepcopy__(self, memo: dict) -> _Position:
        c = _Position.__new__(_Position)  # not copy.copy, which would go by __reduce__
        c.__dict__.update(self.__dict__)
        c.st = self.st.clone()
        c.partial = dict(self.partial)
        return c

    def __reduce__(self) -> tuple:
        """OpenSpiel serializes a state by pickling its attributes: this one as the game's
        parameters and the decisions and chance outcomes played since its start."""
        if not self.replayable:
            raise RulekitError("only states that began with new_initial_state() can be "
                               "serialized")
        seen = [self.past(seat) for seat in range(self.st.n)]
        start = len(self.game.initial_log)
        entries = [e for e in self.st.log[start:] if "chance" in e
                   or ("action" in e and not e.get("forced"))]
        return (_restore, (self.game.get_parameters(), entries, self.partial, self.chances,
                           seen))

    def settle(self) -> None:
        """A roll of no dice (all left the game) is no chance node: it resolves at once."""
        st = self.st
        while st.is_chance and not self.partial and st.chance_outcomes() == []:
            st.resolve_chance({})
            self.chances += 1
            self.node = _Step(self.node, None, {})

    def due_parts(self) -> list | None:
        if self.parts is None:  # the same while a roll is put together: st waits for it
            self.parts = self.st.chance_outcomes()
        return self.parts

    def chance_outcomes(self) -> list[tuple[int, float]]:
        parts = self.due_parts()
        if parts is None:
            k = self.game.samples
            return [(i, 1 / k) for i in range(k)]
        return [(i, p) for i, (_, p) in enumerate(parts[len(self.partial)][1])]

    def apply_chance(self, action: int) -> None:
        parts = self.due_parts()
        if parts is None:
            if not 0 <= action < self.game.samples:
                raise RulekitError(f"no chance outcome has the id {action}")
            rng = random.Random(f"{action}:{self.chances}")
            self.resolve(self.st.sample_chance(rng))
            return
        key, values = parts[len(self.partial)]
        if not 0 <= action < len(values):
            raise RulekitError(f"no chance outcome has the id {action}")
        self.partial[key] = values[action][0]
        if len(self.partial) == len(parts):
            self.resolve(self.partial)

    def resolve(self, outcome: Any) -> None:
        self.st.resolve_chance(outcome)
        self.parts = None
        self.partial = {}
        self.chances += 1
        self.node = _Step(self.node, None, outcome)
        self.settle()

    def apply(self, action: int) -> None:
        seat = self.st.current_player
        label = self.encoding.label(action)
        self.st.apply(label)
        self.node = _Step(self.node, seat, label)
        self.settle()

    def chance_string(self, action: int) -> str:
        parts = self.due_parts()
        if parts is None:
            return f"sample {action}"
        key, values = parts[len(self.partial)]
        return f"{key} {values[action][0]}" if 0 <= action < len(values) else f"#{action}"

    def past(self, seat: int) -> bytes:
        """The digest of all `seat` saw after each step and the labels it chose."""
        path = []
        node = self.node
        while node.state is None:  # back to the last step whose state was kept
            path.append(node)
            node = node.parent
        if path:
            st = node.state.clone()
            if node.parent is not None:  # the states kept are the first and the latest
                node.state = None
            seen = node.seen
            for node in reversed(path):
                if node.who is None:
                    st.resolve_chance(node.step)
                else:
                    st.apply(node.step)
                if node.seen is None:
                    node.seen = [_digest(seen[s], st, s, node.step if s == node.who else None)
                                 for s in range(st.n)]
                seen = node.seen
            self.node.state = st
        return self.node.seen[seat]


class _Step:
    """A step played, `who` a seat and `step` its label, or None and a chance outcome; with
    each seat's past after it once worked out, and the state after it where kept."""

    __slots__ = ("parent", "who", "step", "seen", "state")

    def __init__(self, parent: _Step | None, who: int | None, step: Any) -> None:
        self.parent = parent
        self.who = who
        self.step = step
        self.seen: list[bytes] | None = None
        self.state: rulekit.State | None = None


def _digest(before: bytes, st: rulekit.State, seat: int, chose: str | None) -> bytes:
    """A seat's past one step on: what it was, the label it chose, what it sees now."""
    h = hashlib.sha256(before)
    if chose is not None:
        h.update(b"chose " + chose.encode("utf-8"))
    h.update(view_string(st, seat).encode("utf-8"))
    return h.digest()


#: the games of states restored lately, by their parameters: not loaded again per state
_RESTORED: dict[str, RulekitGame] = {}


def _restore(params: dict[str, Any], entries: list[dict], partial: dict[str, Any],
             chances: int, seen: list[bytes]) -> _Position:
    """A position rebuilt from what `_Position.__reduce__` kept."""
    key = json.dumps(params, sort_keys=True, default=str)
    game = _RESTORED.pop(key, None) or pyspiel.load_game(SHORT_NAME, params)
    _RESTORED[key] = game  # the latest last
    while len(_RESTORED) > 8:
        del _RESTORED[next(iter(_RESTORED))]
    st = game.initial.clone()
    for entry in entries:
        if "chance" in entry:
            st.resolve_chance(entry["outcome"])
        else:
            st.apply(entry["action"])
    position = _Position(game, st, replayable=True)
    position.parts = None
    position.partial = dict(partial)
    position.chances = chances
    position.node.seen = list(seen)
    return position


def view_string(st: rulekit.State, seat: int) -> str:
    """The seat's view as compact JSON: the observation string."""
    return json.dumps(st.view(seat), separators=(",", ":"), default=str)


class RulekitState(pyspiel.State):
    """A game in progress, in OpenSpiel's terms."""

    def __init__(self, game: RulekitGame, position: _Position) -> None:
        super().__init__(game)
        self.position = position

    def current_player(self) -> int:
        st = self.position.st
        if st.is_over:
            return pyspiel.PlayerId.TERMINAL
        if st.is_chance:
            return pyspiel.PlayerId.CHANCE
        return st.current_player

    def _legal_actions(self, player: int) -> list[int]:
        ids = self.position.encoding.action_id
        return sorted(ids(a.label) for a in self.position.st.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.position.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.position.st.is_chance:
            self.position.apply_chance(action)
        else:
            self.position.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.position.chance_string(action)
        return self.position.encoding.label(action)

    def is_terminal(self) -> bool:
        return self.position.st.is_over

    def returns(self) -> list[float]:
        st = self.position.st
        if not st.is_over:
            return [0.0] * st.n
        return [float(s) for s in st.scores()]

    @property
    def rulekit_state(self) -> rulekit.State:
        """The rulekit state inside (not a copy)."""
        return self.position.st

    def __str__(self) -> str:
        text = json.dumps(self.position.st.view(None), separators=(",", ":"), default=str)
        partial = self.position.partial
        return text + (f"\nrolling: {json.dumps(partial)}" if partial else "")


class _Observer:
    """A seat's observation: its view as JSON and as the encoding's vector; with perfect
    recall (the information state) the string ends with the digest of its past."""

    def __init__(self, encoding: Encoding, recall: bool) -> None:
        self.encoding = encoding
        self.recall = recall
        self.tensor = None if recall else np.zeros(encoding.size, np.float32)
        self.dict = {} if recall else {"observation": self.tensor}

    def set_from(self, state: RulekitState, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = self.encoding.encode(state.position.st.view(player))

    def string_from(self, state: RulekitState, player: int) -> str:
        text = view_string(state.position.st, player)
        if self.recall:
            return f"{text}\npast: {state.position.past(player).hex()}"
        return text


pyspiel.register_game(_game_type(), RulekitGame)
