"""Domino 7 by hand, behind rulekit's State API: the plain reference of games/domino7.yaml.

Rules: the Domino 7 section of RULES.md (one level: one deal, scored), with its labels and
deal outcome. Written as a careful programmer would without an engine: tiles, hands, the
stock and the two open ends; a player who cannot lay draws and passes by themselves, so
the API stops only where someone has a choice.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from benchmarks.reference.common import Action, BaseState, ChanceError

HIGHEST_PIP = 12
HAND_SIZE = 18
PLAYERS = 4
DIVISOR = 7
POINTS_PER_MULTIPLE = 10
DOUBLE_FACTOR = 2
WINNER_BONUS = 50


class Tile(NamedTuple):
    """A tile `a|b` with a <= b; tiles compare in the set's order."""

    a: int
    b: int

    @property
    def pips(self) -> int:
        return self.a + self.b

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    def __str__(self) -> str:
        return f"{self.a}|{self.b}"


SET = [Tile(a, b) for a in range(HIGHEST_PIP + 1) for b in range(a, HIGHEST_PIP + 1)]


class End:
    """An open end of the line: the number it shows and whether a crosswise double lies
    there (it counts both halves in the end sum)."""

    __slots__ = ("value", "double")

    def __init__(self, value: int, double: bool) -> None:
        self.value = value
        self.double = double

    def points(self) -> int:
        return 2 * self.value if self.double else self.value


class DominoState(BaseState):
    """One level of Domino 7: hands, stock, the line's ends, points, passes in a row."""

    def __init__(self, players: int, seed: int | None) -> None:
        if players != PLAYERS:
            raise ValueError(f"Domino 7 is played by {PLAYERS} players, not {players}")
        self.players = players
        self.rng = random.Random(seed)
        self.hands: list[list[Tile]] = [[] for _ in range(players)]
        self.stock: list[Tile] = []  # drawn from the front
        self.ends: dict[str, End] = {}  # "left", "right"; empty before the opening
        self.line_size = 0
        self.opening: Tile | None = None
        self.points = [0] * players
        self.passes = 0  # passes in a row with the stock empty
        self.active = 0
        self.turn = 0
        self.dealt = False
        self.drawn: Tile | None = None  # a drawn tile that fits both ends: where to lay it?
        self.over = False
        self.end_reason: str | None = None
        self.log: list[dict] = []

    def clone(self) -> DominoState:
        other = self._shallow_copy()
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.ends = dict(self.ends)  # ends are replaced, never changed
        other.points = list(self.points)
        return other

    # ---- the API ------------------------------------------------------------------------
    @property
    def is_chance(self) -> bool:
        return not self.dealt

    @property
    def current_player(self) -> int | None:
        return self.active if self.dealt and not self.over else None

    def resolve_chance(self, outcome: list[list[int]] | None = None) -> list[list[int]]:
        """Deal: shuffle the set, or impose `outcome` (the whole set in dealing order)."""
        if self.dealt:
            raise ChanceError("no deal is due now")
        if outcome is None:
            order = list(SET)
            self.rng.shuffle(order)
            outcome = [[t.a, t.b] for t in order]
        else:
            order = self._check_deal(outcome)
        self.log.append({"chance": "deal", "outcome": outcome})
        for seat in range(self.players):
            self.hands[seat] = sorted(order[seat * HAND_SIZE:(seat + 1) * HAND_SIZE])
        self.stock = order[self.players * HAND_SIZE:]
        self.dealt = True
        self.opening = self._opening_tile()
        self.active = next(s for s in range(self.players) if self.opening in self.hands[s])
        self.turn = 1
        self._legal = None
        return outcome

    def _check_deal(self, outcome: Any) -> list[Tile]:
        if not isinstance(outcome, list) or len(outcome) != len(SET):
            raise ChanceError(f"a deal lists all {len(SET)} tiles of the set in dealing order")
        order = []
        for item in outcome:
            if (not isinstance(item, list) or len(item) != 2
                    or any(type(x) is not int for x in item)):
                raise ChanceError(f"{item!r} is not a tile: write a pair [a, b]")
            order.append(Tile(min(item), max(item)))
        if sorted(order) != SET:
            raise ChanceError("a deal lists every tile of the set exactly once")
        return order

    def _opening_tile(self) -> Tile:
        """The highest double held; if nobody holds one, the heaviest tile."""
        held = [t for hand in self.hands for t in hand]
        doubles = [t for t in held if t.is_double]
        if doubles:
            return max(doubles)
        return max(held, key=lambda t: (t.pips, t.b))

    def scores(self) -> list[int]:
        if not self.over:
            return list(self.points)
        results = [self.points[s] - sum(t.pips for t in self.hands[s])
                   for s in range(self.players)]
        best = max(results)
        return [r + (WINNER_BONUS if r == best else 0) for r in results]

    # ---- laying -------------------------------------------------------------------------
    def _sides(self, tile: Tile) -> list[str]:
        """The open ends the tile fits."""
        return [side for side in ("left", "right")
                if self.ends[side].value in (tile.a, tile.b)]

    def _generate(self) -> list[Action]:
        seat = self.active
        if not self.ends:
            return [Action(str(self.opening), seat, (self.opening, None))]
        tiles = [self.drawn] if self.drawn is not None else self.hands[seat]
        return [Action(f"{tile} {side}", seat, (tile, side))
                for tile in tiles for side in self._sides(tile)]

    def _play(self, action: Action) -> None:
        self.drawn = None
        self._lay(*action.move)
        self._next_turn()

    def _lay(self, tile: Tile, side: str | None) -> None:
        """Lay the tile, turned so that touching halves match, and score the end sum."""
        seat = self.active
        self.hands[seat].remove(tile)
        self.line_size += 1
        if side is None:  # the opening tile
            self.ends = {"left": End(tile.a, tile.is_double), "right": End(tile.b, tile.is_double)}
            end_sum = tile.pips  # alone, a tile counts both halves once
        else:
            touching = self.ends[side].value
            outer = tile.b if tile.a == touching else tile.a
            self.ends[side] = End(outer, tile.is_double)
            end_sum = self.ends["left"].points() + self.ends["right"].points()
        self.passes = 0
        if end_sum > 0 and end_sum % DIVISOR == 0:
            gain = end_sum // DIVISOR * POINTS_PER_MULTIPLE
            self.points[seat] += gain * DOUBLE_FACTOR if tile.is_double else gain
        if not self.hands[seat]:
            self.over, self.end_reason = True, "out"

    def _next_turn(self) -> None:
        """Turns pass to the left; a player who cannot lay draws one tile and lays it if it
        fits (asking only where it fits both ends), or passes. Stops where someone decides."""
        while not self.over:
            self.active = (self.active + 1) % self.players
            self.turn += 1
            hand = self.hands[self.active]
            if any(self._sides(t) for t in hand):
                return
            if self.stock:
                tile = self.stock.pop(0)
                hand.append(tile)
                hand.sort()
                sides = self._sides(tile)
                if len(sides) == 2:
                    self.drawn = tile
                    return
                if sides:
                    self.log.append({"seat": self.active, "action": f"{tile} {sides[0]}",
                                     "forced": True})
                    self._lay(tile, sides[0])
                    continue
            if not self.stock:
                self.passes += 1
                if self.passes >= self.players:
                    self.over, self.end_reason = True, "blocked"


class Domino7:
    """The game: `Domino7().new_game(players=4, seed=7)`; one level, one deal."""

    name = "Domino 7"

    def new_game(self, players: int = PLAYERS, seed: int | None = None) -> DominoState:
        return DominoState(players, seed)


GAME = Domino7()
