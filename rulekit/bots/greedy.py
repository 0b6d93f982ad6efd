"""A one-ply bot: the action whose immediate result looks best on the score sheet.

It only reads `state.preview(action).scores()`, so it works for every game whose
score expression says something about the position mid-game.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rulekit import Action, State


class GreedyAgent:
    """Maximises own score minus the best other score right after the action.

    The margin rather than the own score alone is the value: among actions with the
    same own gain it prefers the one that helps no opponent (e.g. one that does not
    open a shared effect to the others). Ties are broken by the agent's rng, so
    that it does not always favour the first label of equal actions.
    """

    name = "greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(self, state: State, rng: random.Random | None = None) -> Action:
        """The legal action with the best score margin after it; ties at random."""
        rng = rng or self.rng
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        me = state.current_player
        # a new game's session works a preview's scores out itself, where it can
        session = getattr(type(state), "_preview_scores", None) is not None
        best: list[Action] = []
        best_value = None
        for i, action in enumerate(actions):
            scores = state._preview_scores(i) if session else None
            if scores is None:
                session = False
                scores = state.preview(action).scores()
            value = self.value(scores, me)
            if best_value is None or value > best_value:
                best_value, best = value, [action]
            elif value == best_value:
                best.append(action)
        return best[0] if len(best) == 1 else rng.choice(best)

    @staticmethod
    def value(scores: list[int], seat: int | None) -> float:
        """Own score minus the best score among the others (own score when alone)."""
        if seat is None:
            return 0.0
        others = [s for i, s in enumerate(scores) if i != seat]
        return scores[seat] - (max(others) if others else 0)

    def __repr__(self) -> str:
        return "GreedyAgent()"
