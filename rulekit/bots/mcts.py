"""`mcts`: information-set Monte Carlo tree search over the public State API.

Every iteration searches a fresh copy made by `state.determinize(seat, rng)`: what the
deciding seat cannot see (other hands, the stock's order) is dealt anew from what it
can, and the copy rolls its own dice. So the bot never reads a hidden part and never
knows a die before it is rolled, in any game, without knowing the game.

The tree is open loop: a node is the sequence of decisions (seat, action label) from
the root; chance steps between decisions are sampled in each copy and are not nodes.
Because the legal actions at a node then vary from copy to copy (other dice, other
imagined hands), selection uses the availability count of each action (how often it
was legal when its node was visited) in place of the parent's visit count: the
single-observer ISMCTS of Cowling, Powley and Whitehouse (2012).

Each seat maximises its own reward: 1 for a win (a shared win split evenly), 0
otherwise, plus `MARGIN_WEIGHT` times its score margin (own score minus the best
other score) over the game's score range (`score_bounds` when the file declares both
bounds, else the spread of the final scores), so that a lost or a won game is still
played for points. Selection is UCT with `EXPLORATION` as its constant; the playout
after the tree is random or greedy (`mcts:200:greedy`). The decision is the most
visited root action.

In a `together` window (everyone decides on the same state, the choices resolve
afterwards) the copies imagine what earlier seats chose, which the later seat cannot see.

Iteration budgets are reproducible: the same position, seed and budget give the same
decision and the same statistics. A time budget (`mcts:0.5s`) is checked between
iterations, so how many run, and hence the decision, depends on the machine's speed.
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING

from rulekit.bots.greedy import GreedyAgent

if TYPE_CHECKING:
    from rulekit import Action, State

#: UCT's exploration constant, for rewards in [0, 1]: 1/sqrt(2) is the textbook value
EXPLORATION = 0.7
#: the weight of the score margin (a fraction of the score range) in a seat's reward
MARGIN_WEIGHT = 0.05
#: the iterations of a bare `mcts`
DEFAULT_ITERATIONS = 200
#: the largest budgets a spec may ask for
MAX_ITERATIONS = 1_000_000
MAX_SECONDS = 600.0


class _Node:
    """The statistics of one decision sequence, for the seat that made its last decision."""

    __slots__ = ("seat", "visits", "total", "avail", "children")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children: dict[tuple[int, str], _Node] = {}


class MctsBot:
    """A search bot with a budget of iterations or seconds per decision.

    After each decision `stats` holds the root's statistics: for every legal action
    label, how many iterations went through it and their mean reward for the seat.
    """

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 rollout: str = "random", rng: random.Random | None = None,
                 name: str = "mcts", exploration: float = EXPLORATION) -> None:
        if (iterations is None) == (seconds is None):
            raise ValueError("give a budget of iterations or of seconds, not both or none")
        self.iterations = iterations
        self.seconds = seconds
        self.rollout = rollout
        self.rng = rng or random.Random()
        self.name = name
        self.exploration = exploration
        self.stats: dict[str, dict[str, float]] = {}
        self._greedy = GreedyAgent() if rollout == "greedy" else None

    def choose(self, state: State, rng: random.Random | None = None) -> Action:
        """The most visited legal action after the budget's iterations; ties by mean."""
        actions = state.legal_actions()
        if len(actions) == 1:
            self.stats = {actions[0].label: {"visits": 0, "value": 0.0}}
            return actions[0]
        # one draw from the caller's rng, so the bot moves it alike whatever the budget
        search_rng = random.Random((rng or self.rng).getrandbits(64))
        root = self._search(state, search_rng)
        seat = state.current_player
        stats = {}
        for a in actions:
            child = root.children.get((seat, a.label))
            visits = child.visits if child else 0
            stats[a.label] = {"visits": visits,
                              "value": child.total / visits if child and visits else 0.0}
        self.stats = stats
        best = max(range(len(actions)), key=lambda i: (stats[actions[i].label]["visits"],
                                                       stats[actions[i].label]["value"], -i))
        return actions[best]

    # ---- the search --------------------------------------------------------------------------
    def _search(self, state: State, rng: random.Random) -> _Node:
        seat = state.current_player
        root = _Node(None)
        bounds = state.game.score_bounds.get(state.n, (None, None))
        lo, hi = bounds if bounds else (None, None)
        scale = float(hi - lo) if lo is not None and hi is not None and hi > lo else None
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        done = 0
        while True:
            if deadline is None:
                if done >= self.iterations:  # type: ignore[operator]
                    break
            elif done and time.perf_counter() >= deadline:
                break
            copy = state.determinize(seat, rng)  # type: ignore[arg-type]
            path = self._descend(root, copy, rng)
            self._playout(copy, rng)
            rewards = self._rewards(copy, scale)
            for node in path:
                node.visits += 1
                node.total += rewards[node.seat]  # type: ignore[index]
            done += 1
        return root

    def _descend(self, root: _Node, s: State, rng: random.Random) -> list[_Node]:
        """Selection and expansion of one node in the copy `s`; the nodes passed through."""
        node = root
        path: list[_Node] = []
        c = self.exploration
        while not s.is_over:
            if s.is_chance:
                s.resolve_chance()
                continue
            mover = s.current_player
            actions = s.legal_actions()
            children = node.children
            untried = []
            available = []
            for a in actions:
                child = children.get((mover, a.label))  # type: ignore[arg-type]
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
                    available.append((child, a))
            if untried:
                a = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                child = _Node(mover)
                child.avail = 1
                children[(mover, a.label)] = child  # type: ignore[index]
                s.apply(a)
                path.append(child)
                return path
            best_value = -math.inf
            chosen = available[0]
            for pair in available:
                child = pair[0]
                value = child.total / child.visits + c * math.sqrt(
                    math.log(child.avail) / child.visits)
                if value > best_value:
                    best_value, chosen = value, pair
            node = chosen[0]
            s.apply(chosen[1])
            path.append(node)
        return path

    def _playout(self, s: State, rng: random.Random) -> None:
        """Play the copy to its end with the rollout policy; dice from the copy's own rng."""
        greedy = self._greedy
        while not s.is_over:
            if s.is_chance:
                s.resolve_chance()
            elif greedy is not None:
                s.apply(greedy.choose(s, rng))
            else:
                actions = s.legal_actions()
                s.apply(actions[rng.randrange(len(actions))] if len(actions) > 1
                        else actions[0])

    @staticmethod
    def _rewards(s: State, scale: float | None) -> list[float]:
        """Each seat's reward: its share of the win plus a small share of its margin
        (over `scale`, the declared score range, else the spread of these scores)."""
        scores = s.scores()
        best = max(scores)
        winners = [i for i, x in enumerate(scores) if x == best]
        share = 1.0 / len(winners)
        span = scale if scale is not None else max(1.0, float(best - min(scores)))
        out = []
        for i, x in enumerate(scores):
            others = [y for j, y in enumerate(scores) if j != i]
            margin = x - (max(others) if others else 0)
            out.append((share if x == best else 0.0)
                       + MARGIN_WEIGHT * max(-1.0, min(1.0, margin / span)))
        return out

    def __repr__(self) -> str:
        budget = f"{self.iterations}" if self.iterations is not None else f"{self.seconds}s"
        return f"MctsBot({budget}, rollout={self.rollout})"
