"""`mcts[:BUDGET]:net:MODEL`: the search bot with a learned value at its leaves.

It is `MctsBot` (the same tree, selection, one-step prior and decision) with one change:
where `mcts` plays a short playout from the node it expanded and scores the margins
then, this bot asks the model what the expanded state is worth to every seat (each from
its own view) and backs that up. A state that ends the game is scored by its result.
So an iteration costs a model evaluation per seat instead of a playout, and the search
weighs what a move gives up as the model learnt it from self-play, not as eight random
moves show it.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

import numpy as np

from rulekit.bots.mcts import MctsBot, _Node, one_step_values
from rulekit.bots.net import Evaluator, outcome

if TYPE_CHECKING:
    from rulekit import State
    from rulekit.learn.model import Model


class NetMctsBot(MctsBot):
    """Information-set MCTS whose leaves are valued by a model, not by playouts."""

    def __init__(self, model: Model, iterations: int | None = None,
                 seconds: float | None = None, rng: random.Random | None = None,
                 name: str = "mcts:net", ceiling: float | None = None) -> None:
        super().__init__(iterations=iterations, seconds=seconds, rollout="random", rng=rng,
                         name=name, playout_decisions=0, ceiling=ceiling)
        self.evaluator = Evaluator(model)

    def leaf_values(self, s: State) -> list[float]:
        """Every seat's value of the state: its result if over, else the model's (0 to 1)."""
        scores_over = s.scores() if s.is_over else None
        if scores_over is not None:
            return [outcome(scores_over, seat) for seat in range(s.n)]
        feats = self.evaluator.features(s)
        rows = np.asarray([feats.vector(s, seat) for seat in range(s.n)], dtype=np.float64)
        return [min(1.0, max(0.0, float(v))) for v in self.evaluator.model.values(rows)]

    def _search(self, state: State, rng: random.Random) -> _Node:
        seat = state.current_player
        self.evaluator.features(state)  # a model that does not fit is refused at once
        root = _Node(None)
        if self.prior_weight:
            root.prior = one_step_values(state, state.legal_actions())
        seconds = min((t for t in (self.seconds, self.ceiling) if t is not None), default=None)
        deadline = time.perf_counter() + seconds if seconds is not None else None
        limit = self.iterations if self.iterations is not None else -1
        done = 0
        while done != limit:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            copy = state.determinize(seat, rng)  # type: ignore[arg-type]
            path = self._descend(root, copy, rng)
            rewards = self.leaf_values(copy)
            for node in path:
                node.visits += 1
                node.total += rewards[node.seat]  # type: ignore[index]
            done += 1
        return root

    def __repr__(self) -> str:
        return f"NetMctsBot({self.name})"
