"""Qwixx by hand, behind rulekit's State API: the plain reference of games/qwixx.yaml.

Rules: the Qwixx section of RULES.md, with its labels and roll outcomes. Written as a
careful programmer would without an engine: a sheet class, the turn as a small state
machine (roll, the white sum for everyone, the coloured sum for the active player),
labels for every legal action and a log of rolls and decisions.
"""

from __future__ import annotations

import random

from benchmarks.reference.common import Action, BaseState, ChanceError, check_roll

DICE = ("white1", "white2", "red", "yellow", "green", "blue")
COLOURS = ("red", "yellow", "green", "blue")
#: the numbers of each row, left to right; the last one can lock the row
ROWS = {
    "red": list(range(2, 13)),
    "yellow": list(range(2, 13)),
    "green": list(range(12, 1, -1)),
    "blue": list(range(12, 1, -1)),
}
MIN_CROSSES_TO_LOCK = 5
PENALTY_POINTS = 5
MAX_PENALTIES = 4
LOCKS_TO_END = 2
#: a row's points by its crosses (the lock included)
ROW_SCORES = [0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]

# where a turn stands
ROLL, WHITE_SUM, COLOUR_SUM = "roll", "white sum", "colour sum"


class Sheet:
    """One player's sheet: the rightmost cross of each row, the crosses, the penalties."""

    def __init__(self) -> None:
        self.rightmost = {colour: -1 for colour in COLOURS}  # index into ROWS[colour]
        self.crosses = {colour: 0 for colour in COLOURS}
        self.penalties = 0

    def copy(self) -> Sheet:
        other = Sheet()
        other.rightmost = dict(self.rightmost)
        other.crosses = dict(self.crosses)
        other.penalties = self.penalties
        return other

    def can_cross(self, colour: str, number: int, locked: set[str]) -> bool:
        """Right of the rightmost cross, in an open row; the last number needs 5 crosses."""
        if colour in locked:
            return False
        row = ROWS[colour]
        if number not in row:
            return False
        i = row.index(number)
        if i <= self.rightmost[colour]:
            return False
        if i == len(row) - 1:
            return self.crosses[colour] >= MIN_CROSSES_TO_LOCK
        return True

    def cross(self, colour: str, number: int) -> bool:
        """Cross the number; True if it was the row's last, which also crosses the lock."""
        row = ROWS[colour]
        i = row.index(number)
        self.rightmost[colour] = i
        self.crosses[colour] += 1
        if i == len(row) - 1:
            self.crosses[colour] += 1  # the lock counts as one more cross
            return True
        return False

    def score(self) -> int:
        rows = sum(ROW_SCORES[self.crosses[colour]] for colour in COLOURS)
        return rows - PENALTY_POINTS * self.penalties


class QwixxState(BaseState):
    """One game of Qwixx: sheets, dice, locks and where the turn stands."""

    def __init__(self, players: int, seed: int | None) -> None:
        if not 2 <= players <= 5:
            raise ValueError(f"Qwixx is played by 2 to 5 players, not {players}")
        self.players = players
        self.rng = random.Random(seed)
        self.sheets = [Sheet() for _ in range(players)]
        self.locked: set[str] = set()
        self.dice = {name: 1 for name in DICE}
        self.in_game = list(DICE)  # the dice still rolled: a locked row's die leaves
        self.active = 0
        self.turn = 1
        self.stage = ROLL
        self.deciders: list[int] = []  # the white sum: who still decides, in seat order
        self.white_choices: list[Action] = []
        self.crossed = False  # the active player crossed something this turn
        self.over = False
        self.end_reason: str | None = None
        self.log: list[dict] = []

    def clone(self) -> QwixxState:
        other = self._shallow_copy()
        other.sheets = [sheet.copy() for sheet in self.sheets]
        other.locked = set(self.locked)
        other.dice = dict(self.dice)
        other.in_game = list(self.in_game)
        other.deciders = list(self.deciders)
        other.white_choices = list(self.white_choices)
        return other

    # ---- the API ------------------------------------------------------------------------
    @property
    def is_chance(self) -> bool:
        return self.stage == ROLL and not self.over

    @property
    def current_player(self) -> int | None:
        if self.over:
            return None
        if self.stage == WHITE_SUM:
            return self.deciders[0]
        if self.stage == COLOUR_SUM:
            return self.active
        return None

    def resolve_chance(self, outcome: dict[str, int] | None = None) -> dict[str, int]:
        """Roll the dice still in the game, or impose `outcome` ({die name: face})."""
        if not self.is_chance:
            raise ChanceError("no roll is due now")
        if outcome is None:
            outcome = {name: self.rng.randint(1, 6) for name in self.in_game}
        else:
            check_roll(outcome, self.in_game)
        self.dice.update(outcome)
        self.log.append({"chance": "roll", "outcome": outcome})
        self.stage = WHITE_SUM
        self.deciders = [(self.active + k) % self.players for k in range(self.players)]
        self.white_choices = []
        self.crossed = False
        self._legal = None
        return outcome


    def scores(self) -> list[int]:
        return [sheet.score() for sheet in self.sheets]

    # ---- the turn -------------------------------------------------------------------------
    def _generate(self) -> list[Action]:
        if self.stage == WHITE_SUM:
            seat = self.deciders[0]
            number = self.dice["white1"] + self.dice["white2"]
            candidates = [(colour, number) for colour in COLOURS]
        else:
            seat = self.active
            candidates = [(colour, self.dice[white] + self.dice[colour])
                          for white in ("white1", "white2") for colour in COLOURS]
        sheet = self.sheets[seat]
        actions = []
        seen = set()  # two dice pairs that give the same row and number are one action
        for move in candidates:
            if move not in seen and sheet.can_cross(*move, self.locked):
                seen.add(move)
                actions.append(Action(f"{move[0]} {move[1]}", seat, move))
        actions.append(Action("pass", seat, None))
        return actions

    def _play(self, action: Action) -> None:
        if self.stage == WHITE_SUM:
            self.white_choices.append(action)
            self.deciders.pop(0)
            if not self.deciders:
                self._resolve_white_sum()
        else:
            if action.move is not None:
                self._cross(action.seat, *action.move)
            if self._ends():
                return
            if not self.crossed:
                self.sheets[self.active].penalties += 1
                if self._ends():
                    return
            self._next_turn()

    def _resolve_white_sum(self) -> None:
        """Everyone decided: the crosses happen together, so several may lock one row."""
        for action in self.white_choices:
            if action.move is not None:
                self._cross(action.seat, *action.move)
        if self._ends():
            return
        self.stage = COLOUR_SUM

    def _cross(self, seat: int, colour: str, number: int) -> None:
        if seat == self.active:
            self.crossed = True
        if self.sheets[seat].cross(colour, number) and colour not in self.locked:
            self.locked.add(colour)
            self.in_game.remove(colour)  # the row's die leaves the game

    def _ends(self) -> bool:
        """The game ends at once after an action that makes the 4th penalty or 2nd lock."""
        if max(sheet.penalties for sheet in self.sheets) >= MAX_PENALTIES:
            self.end_reason = "penalties"
        elif len(self.locked) >= LOCKS_TO_END:
            self.end_reason = "locks"
        else:
            return False
        self.over = True
        return True

    def _next_turn(self) -> None:
        self.active = (self.active + 1) % self.players
        self.turn += 1
        self.stage = ROLL


class Qwixx:
    """The game: `Qwixx().new_game(players=3, seed=7)`."""

    name = "Qwixx"

    def new_game(self, players: int = 3, seed: int | None = None) -> QwixxState:
        return QwixxState(players, seed)


GAME = Qwixx()
