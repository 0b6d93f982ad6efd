"""The baseline opponent: any legal action, uniformly; what every other bot must beat."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulekit import Action, State


class RandomAgent:
    """Picks uniformly among the legal actions, so it needs no knowledge of the game."""

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(self, state: State, rng: random.Random | None = None) -> Action:
        """A uniformly random legal action, drawn from `rng` (else the bot's own)."""
        return (rng or self.rng).choice(state.legal_actions())

    def __repr__(self) -> str:
        return "RandomAgent()"
