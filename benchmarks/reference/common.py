"""What the plain references share: actions with labels, errors, the parts of the API
that do not depend on the game."""

from __future__ import annotations

import random
from typing import Any


class IllegalActionError(ValueError):
    """An action that is not legal now, or a call that does not fit the moment."""


class ChanceError(ValueError):
    """A chance outcome that cannot happen now (or no chance step is due)."""


class Action:
    """A legal move: its label and what it does, in the game's own terms (`move`)."""

    __slots__ = ("label", "seat", "move")

    def __init__(self, label: str, seat: int, move: Any) -> None:
        self.label = label
        self.seat = seat
        self.move = move

    def __repr__(self) -> str:
        return f"Action({self.label!r})"


def check_roll(outcome: Any, dice: list[str] | tuple[str, ...], sides: int = 6) -> None:
    """An imposed roll names exactly the dice in play, each with a face they can show."""
    if not isinstance(outcome, dict) or set(outcome) != set(dice):
        raise ChanceError(f"a roll gives faces to exactly {', '.join(dice)}")
    for name, face in outcome.items():
        if type(face) is not int or not 1 <= face <= sides:
            raise ChanceError(f"{name} shows 1 to {sides}, not {face!r}")


class BaseState:
    """The game-independent part of a state: the decision due, finding the chosen action,
    winners.

    A game's state defines `_generate()` (the legal actions of the decision due, built once
    per decision), `_play(action)`, `scores()`, and sets `_legal = None` whenever the
    decision due changes.
    """

    log: list[dict]
    rng: random.Random
    over = False
    _legal: list[Action] | None = None

    def _shallow_copy(self) -> Any:
        """A copy sharing every container but the RNG and the log: `clone` copies the rest."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.log = list(self.log)
        return other

    def _generate(self) -> list[Action]:
        raise NotImplementedError

    def _play(self, action: Action) -> None:
        raise NotImplementedError

    def scores(self) -> list[int]:
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def is_chance(self) -> bool:
        raise NotImplementedError

    def legal_actions(self) -> list[Action]:
        if self.is_over:
            raise IllegalActionError("the game is over: there are no legal actions")
        if self.is_chance:
            raise IllegalActionError("a chance step is due: call resolve_chance() first")
        if self._legal is None:
            self._legal = self._generate()
        return list(self._legal)

    def apply(self, action: Action | str) -> None:
        """Play a legal action or its label; an illegal one raises and changes nothing."""
        legal = self.legal_actions()
        label = action.label if isinstance(action, Action) else action
        for a in legal:
            if a is action or a.label == label:
                self._legal = None
                self.log.append({"seat": a.seat, "action": a.label})
                self._play(a)
                return
        raise IllegalActionError(f"{label!r} is not legal now; legal: "
                                 f"{', '.join(a.label for a in legal)}")

    def winners(self) -> list[int]:
        scores = self.scores()
        best = max(scores)
        return [seat for seat, score in enumerate(scores) if score == best]
