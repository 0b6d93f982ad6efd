"""What a value network reads: a fixed-size vector per seat, from that seat's view alone.

It builds on the observation of `rulekit.interop.encoding` (a number a slot, a flag a
slot, a text a slot per text met, a list its length, its numbers by position and a count
per value met), with three changes that matter for learning a value:

- the view is turned to the seat it is for: every list that holds one container per
  seat (a sheet, a hand, a row of pawns, the players' variables) starts with that seat,
  and the view's seat numbers (`active`, `start`, `current_player`) count from it. So
  "my sheet" is always the first sheet, and one network plays every seat;
- the layout is made from many more views (every step of `LAYOUT_GAMES` random games,
  every seat's view), at the player count the model is for, so that the values a list
  may hold late in a game (the last numbers of a row, a full hand) have their slots;
- the scores follow, turned the same way (own score first), and the seat's margin (own
  score minus the best other): the file's score expression is the game's own summary of
  a position, and every game has one.

The layout is found by playing random games from fixed seeds, so the same file, params
and player count give the same layout in any process; its fingerprint (a digest of the
slot names) is stored in a model, and a model whose fingerprint differs from the game's
is refused rather than fed vectors it was not trained on.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import TYPE_CHECKING, Any

from rulekit.errors import RulekitError
from rulekit.interop.encoding import Chances, Encoding, _finish_places, _Place, _record

if TYPE_CHECKING:
    from rulekit import Game, State

#: random games whose views make the layout (every step, every seat)
LAYOUT_GAMES = 32
#: the layout's sample of vectors: one step in SAMPLE_EVERY, for the inputs' scaling
SAMPLE_EVERY = 3
#: the view's seat numbers, counted from the seat the view is for
_SEAT_FIELDS = ("active", "start", "current_player")


def turned(view: dict, seat: int, n: int) -> dict:
    """The view with the seat first: lists of one container per seat rotated to start at
    `seat`, the seat numbers counted from it."""
    out = {k: _turn(v, seat, n) for k, v in view.items()}
    out["seat"] = 0
    for key in _SEAT_FIELDS:
        value = out.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            out[key] = (value - seat) % n
    return out


def _turn(value: Any, seat: int, n: int) -> Any:
    if value.__class__ is dict:
        return {k: _turn(v, seat, n) for k, v in value.items()}
    if value.__class__ is list:
        if not value or not all(isinstance(v, (dict, list)) for v in value):
            return value
        items = [_turn(v, seat, n) for v in value]
        if len(items) == n and seat:
            items = items[seat:] + items[:seat]
        return items
    return value


class Features:
    """The feature layout of one game (with its params) at one player count."""

    def __init__(self, game: Game, players: int) -> None:
        if not game.min_players <= players <= game.max_players:
            raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                               f"players, not {players}")
        self.game = game
        self.players = players
        places: dict[tuple[str, ...], _Place] = {}
        states: list[tuple[State, int]] = []
        #: the most decisions a random game of the layout took
        self.longest = max(_explore(game, players, i, places, states)
                           for i in range(LAYOUT_GAMES))
        _finish_places(places)
        self._encoding = Encoding([], places, LAYOUT_GAMES, range(players, players + 1),
                                  Chances())
        extra = ["score (own)"] + [f"score (seat +{i})" for i in range(1, players)]
        extra.append("margin (own score minus the best other)")
        #: what each slot holds, for people and tests
        self.slot_names: tuple[str, ...] = self._encoding.slot_names + tuple(extra)
        self.size = len(self.slot_names)
        #: a digest of the layout: a model stores it, and fits only a game with the same
        self.fingerprint = hashlib.sha256(
            json.dumps(self.slot_names).encode("utf-8")).hexdigest()[:16]
        #: vectors of the layout games' positions, from which a trainer scales the inputs
        self.sample = [self.vector(s, seat) for s, seat in states]

    def vector(self, state: State, seat: int) -> list[float]:
        """The features of `state` for `seat`, from what that seat may see."""
        n = self.players
        values = self._encoding.encode(turned(state.view(seat), seat, n))
        scores = state.scores()
        mine = scores[seat]
        others = [scores[(seat + i) % n] for i in range(1, n)]
        values.append(float(mine))
        values.extend(float(x) for x in others)
        values.append(float(mine - (max(others) if others else 0)))
        return values


def _explore(game: Game, players: int, seed: int, places: dict, states: list) -> int:
    """One random game: every step's view of every seat goes into the layout; its
    decisions."""
    rng = random.Random(seed)
    st = game.new_game(players, seed=seed)
    step = 0
    decisions = 0
    while True:
        step += 1
        for seat in range(players):
            _record(places, turned(st.view(seat), seat, players))
            if step % SAMPLE_EVERY == 0 or st.is_over:
                states.append((st.clone(), seat))
        if st.is_over:
            return decisions
        if st.is_chance:
            st.resolve_chance()
        else:
            decisions += 1
            st.apply(rng.choice(st.legal_actions()))


#: layouts by game object and player count, the latest last
_CACHE: dict[tuple[int, int], tuple[Game, Features]] = {}
_CACHE_SIZE = 16


def features_of(game: Game, players: int) -> Features:
    """The game's feature layout at that player count, made once per process."""
    key = (id(game), players)
    found = _CACHE.pop(key, None)
    if found is None or found[0] is not game:
        found = (game, Features(game, players))
        while len(_CACHE) >= _CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
    _CACHE[key] = found
    return found[1]
