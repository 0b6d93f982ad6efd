"""Level X by hand, behind rulekit's State API: the plain reference of games/levelx.yaml.

Rules: the Level X section of RULES.md, with its labels and roll outcomes. Written as a
careful programmer would without an engine: the board of pawns, the chip piles, the bonus
tiles, every distinct way to group the dice offered once, labels and a log.
"""

from __future__ import annotations

import functools
import random

from benchmarks.reference.common import Action, BaseState, ChanceError, check_roll

DICE = ("d1", "d2", "d3", "d4")
#: fields of each row, the X field (the last) included
ROW_LENGTHS = {5: 4, 6: 4, 7: 3, 8: 3, 9: 2, 10: 2}
ROWS = tuple(ROW_LENGTHS)
CHIPS_FOUR_PLAYERS = {5: 12, 6: 11, 7: 10, 8: 9, 9: 8, 10: 7}
CHIPS_TWO_THREE_PLAYERS = {5: 11, 6: 10, 7: 9, 8: 8, 9: 7, 10: 6}
BONUS_TILES = [15, 12, 9, 6]
EMPTY_ROWS_TO_END = 3


@functools.cache
def outcomes(faces: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct list of row sums a split of the dice gives (ascending), once each.

    Each die is left unused, added to a group or starts a new one; a group acts only if
    its sum names a row. The answer depends on the faces alone, so it is kept per roll.
    """
    found: set[tuple[int, ...]] = set()

    def split(i: int, groups: list[int]) -> None:
        if i == len(faces):
            found.add(tuple(sorted(s for s in groups if s in ROW_LENGTHS)))
            return
        split(i + 1, groups)
        for g in range(len(groups)):
            groups[g] += faces[i]
            split(i + 1, groups)
            groups[g] -= faces[i]
        groups.append(faces[i])
        split(i + 1, groups)
        groups.pop()

    split(0, [])
    return sorted(found, key=lambda sums: (len(sums), sums))


class LevelXState(BaseState):
    """One game of Level X: pawns, who stands on each X, chips, bonus tiles, the dice."""

    def __init__(self, players: int, seed: int | None) -> None:
        if not 2 <= players <= 4:
            raise ValueError(f"Level X is played by 2 to 4 players, not {players}")
        self.players = players
        self.rng = random.Random(seed)
        self.pawns = [{row: 0 for row in ROWS} for _ in range(players)]  # 0: off the board
        self.on_x: dict[int, int | None] = {row: None for row in ROWS}
        chips = CHIPS_FOUR_PLAYERS if players >= 4 else CHIPS_TWO_THREE_PLAYERS
        self.chips = dict(chips)
        self.won = [{row: 0 for row in ROWS} for _ in range(players)]
        self.bonus_left = sorted(BONUS_TILES, reverse=True)
        self.bonus_held: list[list[int]] = [[] for _ in range(players)]
        self.sets_rewarded = [0] * players
        self.dice = [1, 1, 1, 1]
        self.active = 0
        self.turn = 1
        self.rolled = False
        self.last_round = False  # the end holds: the round is being finished
        self.over = False
        self.end_reason: str | None = None
        self.log: list[dict] = []

    def clone(self) -> LevelXState:
        other = self._shallow_copy()
        other.pawns = [dict(p) for p in self.pawns]
        other.on_x = dict(self.on_x)
        other.chips = dict(self.chips)
        other.won = [dict(w) for w in self.won]
        other.bonus_left = list(self.bonus_left)
        other.bonus_held = [list(h) for h in self.bonus_held]
        other.sets_rewarded = list(self.sets_rewarded)
        other.dice = list(self.dice)
        return other

    # ---- the API ------------------------------------------------------------------------
    @property
    def is_chance(self) -> bool:
        return not self.over and not self.rolled

    @property
    def current_player(self) -> int | None:
        return self.active if self.rolled and not self.over else None

    def resolve_chance(self, outcome: dict[str, int] | None = None) -> dict[str, int]:
        """Roll the four dice, or impose `outcome` ({"d1": 1, ..., "d4": 5})."""
        if not self.is_chance:
            raise ChanceError("no roll is due now")
        if outcome is None:
            outcome = {name: self.rng.randint(1, 6) for name in DICE}
        else:
            check_roll(outcome, DICE)
        self.dice = [outcome[name] for name in DICE]
        self.log.append({"chance": "roll", "outcome": outcome})
        self.rolled = True
        self._legal = None
        return outcome


    def scores(self) -> list[int]:
        return [sum(row * n for row, n in self.won[seat].items()) + sum(self.bonus_held[seat])
                for seat in range(self.players)]

    # ---- the turn -------------------------------------------------------------------------
    def _generate(self) -> list[Action]:
        actions = [Action(" + ".join(map(str, sums)), self.active, sums)
                   for sums in outcomes(tuple(sorted(self.dice))) if sums]
        actions.append(Action("pass", self.active, ()))
        return actions

    def _play(self, action: Action) -> None:
        seat = self.active
        for row in action.move:  # once per group: two groups of 7 act twice on row 7
            self._advance(seat, row)
        self._award_bonus(seat)
        if not self.last_round:
            if not self.bonus_left:
                self.last_round, self.end_reason = True, "tiles"
            elif sum(1 for n in self.chips.values() if n == 0) >= EMPTY_ROWS_TO_END:
                self.last_round, self.end_reason = True, "chips"
        # the next player; once the end holds, the round ends with the last seat's turn
        self.active = (self.active + 1) % self.players
        self.turn += 1
        self.rolled = False
        if self.last_round and self.active == 0:
            self.over = True

    def _advance(self, seat: int, row: int) -> None:
        """The pawn enters or moves one field; on X it takes a chip, knocking off whoever
        stood there."""
        x = ROW_LENGTHS[row]
        pawns = self.pawns[seat]
        if pawns[row] < x:
            pawns[row] += 1
            if pawns[row] == x:
                other = self.on_x[row]
                if other is not None:
                    self.pawns[other][row] = 0
                self.on_x[row] = seat
        if pawns[row] == x and self.chips[row] > 0:
            self.chips[row] -= 1
            self.won[seat][row] += 1

    def _award_bonus(self, seat: int) -> None:
        """k complete sets of chips earn the best tile left, once for each k."""
        sets = min(self.won[seat].values())
        while sets > self.sets_rewarded[seat]:
            self.sets_rewarded[seat] += 1
            if self.bonus_left:
                self.bonus_held[seat].append(self.bonus_left.pop(0))


class LevelX:
    """The game: `LevelX().new_game(players=2, seed=7)`."""

    name = "Level X"

    def new_game(self, players: int = 2, seed: int | None = None) -> LevelXState:
        return LevelXState(players, seed)


GAME = LevelX()
