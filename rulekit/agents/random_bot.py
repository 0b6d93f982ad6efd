"""The baseline opponent: any legal action, uniformly; what every other bot must beat."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulekit import Action, State


class RandomAgent:
    """Picks uniformly among the legal actions, so it needs no knowledge of the game."""

    name = "random"

    def choose(self, state: State, rng: random.Random) -> Action:
        """A uniformly random legal action, drawn from the agent's own rng."""
        return rng.choice(state.legal_actions())

    def __repr__(self) -> str:
        return "RandomAgent()"
