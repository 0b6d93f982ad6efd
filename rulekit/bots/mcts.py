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

Each seat maximises its own reward. A playout that reaches the end gives 1 for a win (a
shared win split evenly), 0 otherwise, plus `MARGIN_WEIGHT` times its score margin (own
score minus the best other score) over the game's score range (`score_bounds` when the
file declares both bounds, else the spread of the final scores), so that a lost or a
won game is still played for points. Playouts stop after `PLAYOUT_DECISIONS` decisions
(random moves, or greedy ones with `mcts:200:greedy`: dearer, but they play the
opponents' replies as greedy takes them, which decides a game where a move can leave the
next player points; a greedy move previews every legal move of the copy, and a preview in
a copy made by `determinize` reads the copy as it is), and a cut-off playout gives each
seat the logistic of its margin over the mean margin size met in the search: a short
look ahead that costs little and says more than a long random game.

Selection is UCT with `EXPLORATION` as its constant plus a progressive bias: each
action's one-step value (greedy's score margin right after it, 0 to 1 among the node's
actions) times `PRIOR_WEIGHT` over its visits + 1, and untried actions are tried best
value first. The search starts where greedy would play and leaves it where the
iterations show better. The decision is the most visited root action.

In a `together` window (everyone decides on the same state, the choices resolve
afterwards) the copies imagine what earlier seats chose, which the later seat cannot see.

Iteration budgets are reproducible: the same position, seed and budget give the same
decision and the same statistics, as long as they end within the ceiling of a bot made
from a spec (`MAX_SECONDS` a decision, whatever the iterations). A time budget
(`mcts:0.5s`, or `mcts:500:1s` with both: whichever ends first) is checked between
iterations, so how many run, and hence the decision, depends on the machine's speed.
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any

from rulekit.bots.greedy import GreedyAgent

if TYPE_CHECKING:
    from rulekit import Action, State
    from rulekit.backends.session import SearchCopy

#: UCT's exploration constant, for rewards in [0, 1]: 1/sqrt(2) is the textbook value
EXPLORATION = 0.7
#: the weight of the score margin (a fraction of the score range) in a seat's reward
MARGIN_WEIGHT = 0.05
#: a playout stops after this many decisions and is scored by the score margins then
PLAYOUT_DECISIONS = 8
#: the weight of the one-step prior (progressive bias): an action's greedy value, 0
#: (worst) to 1 (best), adds PRIOR_WEIGHT * value / (visits + 1) to its UCT value
PRIOR_WEIGHT = 1.0
#: whether copies play on the game's flat session where it covers them (the tests compare)
FLAT = True
#: the decisions of a playout to the end, for the flat session (more than any game makes)
ALL_DECISIONS = 1 << 40
#: the iterations of a bare `mcts`
DEFAULT_ITERATIONS = 200
#: the largest budgets a spec may ask for (`--bots`, a file's levels, the ladder), so that
#: a typo or a file cannot make a bot think for hours: 10,000 iterations take a few
#: seconds a decision on a 2-core machine (with random playouts), and a bot made from a
#: spec stops at MAX_SECONDS a decision in any case (greedy playouts cost 10 times more)
MAX_ITERATIONS = 10_000
MAX_SECONDS = 10.0


class _Node:
    """The statistics of one decision sequence, for the seat that made its last decision;
    `prior` holds the one-step value of each action of the next decision met so far."""

    __slots__ = ("seat", "visits", "total", "avail", "children", "prior")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children: dict[tuple[int, str], _Node] = {}
        self.prior: dict[str, float] = {}


class MctsBot:
    """A search bot with a budget of iterations or seconds per decision, or both (it
    stops at whichever ends first).

    After each decision `stats` holds the root's statistics: for every legal action
    label, how many iterations went through it and their mean reward for the seat.
    """

    def __init__(self, iterations: int | None = None, seconds: float | None = None,
                 rollout: str = "random", rng: random.Random | None = None,
                 name: str = "mcts", exploration: float = EXPLORATION,
                 playout_decisions: int | None = PLAYOUT_DECISIONS,
                 prior_weight: float = PRIOR_WEIGHT, ceiling: float | None = None) -> None:
        if iterations is None and seconds is None:
            raise ValueError("give a budget of iterations, of seconds, or both")
        self.iterations = iterations
        self.seconds = seconds
        # seconds a decision may take whatever the budget: a bot made from a spec stops at
        # MAX_SECONDS, so that a budget of iterations too large for the game or the
        # machine cannot keep a person waiting for minutes
        self.ceiling = ceiling
        self.rollout = rollout
        self.rng = rng or random.Random()
        self.name = name
        self.exploration = exploration
        self.playout_decisions = playout_decisions
        self.prior_weight = prior_weight
        self.stats: dict[str, dict[str, float]] = {}
        self._greedy = rollout == "greedy"

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
        if self.prior_weight:
            root.prior = one_step_values(state, state.legal_actions())
        spread = _Spread()
        seconds = min((t for t in (self.seconds, self.ceiling) if t is not None), default=None)
        deadline = time.perf_counter() + seconds if seconds is not None else None
        limit = self.iterations if self.iterations is not None else -1
        # the copies play on the game's flat session where it covers them (the same
        # iterations, see `_iterate_flat`), greedy playouts too (`_greedy_playout`)
        flat = state.game.flat_session if FLAT else None
        if flat is not None:  # (imported here: `rulekit --help` loads the bots, not the engine)
            from rulekit.backends.session import SearchCopy
        entry = flat.search_entry(state) if flat is not None and type(rng) is random.Random \
            else None
        done = 0
        while done != limit:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            if entry is not None:
                path, rewards = self._iterate_flat(
                    root, SearchCopy(state, seat, rng, flat, entry), rng, scale, spread)
            else:
                copy = state.determinize(seat, rng)  # type: ignore[arg-type]
                path = self._descend(root, copy, rng)
                playout(copy, rng, self.playout_decisions, self._greedy)
                rewards = _rewards(copy.scores(), copy.is_over, scale, spread)
            for node in path:
                node.visits += 1
                node.total += rewards[node.seat]  # type: ignore[index]
            done += 1
        return root

    def _descend(self, root: _Node, s: State, rng: random.Random,
                 path: list[_Node] | None = None) -> list[_Node]:
        """Selection and expansion of one node in the copy `s`; the nodes passed through
        (after `path`, where the descent to `root` went on the flat session).

        An action's one-step value (its prior) biases the choice while its visits are
        few (progressive bias), and untried actions are tried best value first.
        """
        node = root
        path = [] if path is None else path
        weight = self.prior_weight
        while not s.is_over:
            if s.is_chance:
                s.resolve_chance()
                continue
            mover = s.current_player
            actions = s.legal_actions()
            prior = node.prior
            if weight and len(actions) > 1 and any(a.label not in prior for a in actions):
                for label, value in one_step_values(s, actions).items():
                    prior.setdefault(label, value)
            child, i, new = self._select(node, mover, [a.label for a in actions], rng)
            s.apply(actions[i])
            path.append(child)
            if new:
                return path
            node = child
        return path

    def _select(self, node: _Node, mover: int, labels: list[str],
                rng: random.Random) -> tuple[_Node, int, bool]:
        """The child of `node` the descent takes among the legal actions' `labels` (each
        tried one's availability counted): an untried one, made (True), the best value
        first; or the best by UCT with the prior's bias. With its index in `labels`."""
        children = node.children
        prior = node.prior
        weight = self.prior_weight
        untried = []
        available = []
        for i, label in enumerate(labels):
            child = children.get((mover, label))
            if child is None:
                untried.append(i)
            else:
                child.avail += 1
                available.append((child, i))
        if untried:
            if weight and len(untried) > 1:
                i = max(untried, key=lambda j: prior.get(labels[j], 0.0))
            else:
                i = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
            child = _Node(mover)
            child.avail = 1
            children[(mover, labels[i])] = child
            return child, i, True
        c = self.exploration
        best_value = -math.inf
        chosen = available[0]
        for pair in available:
            child = pair[0]
            visits = child.visits
            value = child.total / visits + c * math.sqrt(math.log(child.avail) / visits)
            if weight:
                value += weight * prior.get(labels[pair[1]], 0.0) / (visits + 1)
            if value > best_value:
                best_value, chosen = value, pair
        return chosen[0], chosen[1], False

    def _iterate_flat(self, root: _Node, fc: SearchCopy, rng: random.Random,
                      scale: float | None, spread: _Spread) -> tuple[list[_Node], list[float]]:
        """One iteration (descent, playout, rewards) in a copy on the flat session: the
        iteration `_descend`, `playout` and `_rewards` make of the machine's copy, the
        same draws from `rng` in the same order. Where the session hands the copy back to
        the machine, the iteration goes on there from where it stands."""
        node = root
        path: list[_Node] = []
        weight = self.prior_weight
        left = -1 if self.playout_decisions is None else self.playout_decisions
        # where the iteration stands: 0 in the descent (at `node`), 1 expanded, 2 in the
        # playout (from the `since`th move on), 3 asking the scores
        where = 0
        send = fc.gen.send
        try:
            pending = next(fc.gen)
            fc.seed()
            while True:
                if pending.__class__ is int:
                    pending = send(None)
                    continue
                mover, _out, labels = pending
                prior = node.prior
                if weight and len(labels) > 1 and any(x not in prior for x in labels):
                    values = {}
                    for i in range(len(labels)):
                        scores = send(-2 - i)
                        if scores is None:  # the machine previews this one
                            fc.leave()
                            return self._finish(node, fc.st, rng, path, scale, spread)
                        values[labels[i]] = GreedyAgent.value(scores, mover)
                    for label, value in _scaled(values).items():
                        prior.setdefault(label, value)
                child, i, new = self._select(node, mover, labels, rng)
                path.append(child)
                if new:
                    where = 1
                    pending = send(i)
                    break
                node = child
                pending = send(i)
            # the playout: random moves as State.playout draws them (the search's RNG is a
            # plain Random: its `_randbelow`), the generator playing them on its own from
            # the first decision on
            where = 2
            since = len(fc.moves)
            if self._greedy:
                pending = self._greedy_playout(fc, pending, left, rng)
            else:
                while pending.__class__ is int and left:
                    pending = send(None)
                if left:
                    pending = fc.play_on(left if left > 0 else ALL_DECISIONS)
            if pending is None:  # handed to the machine, which played the rest
                st = fc.st
                return path, _rewards(st.scores(), st.is_over, scale, spread)
            where = 3
            scores = send(-1)
            return path, _rewards(scores, False, scale, spread)
        except StopIteration as over:  # the game is over: its final scores
            scores = over.value
            if scores is None:  # they failed: the machine works them out, or says why not
                fc.machine()
                scores = fc.st.scores()
            return path, _rewards(scores, True, scale, spread)
        except BaseException as exc:
            fc.given_back(exc)
            st = fc.st
            if where == 0:
                return self._finish(node, st, rng, path, scale, spread)
            if where == 2:
                made = fc.decisions(since)
                playout(st, rng, None if left < 0 else left - made, self._greedy)
            elif where == 1:
                playout(st, rng, None if left < 0 else left, self._greedy)
            return path, _rewards(st.scores(), st.is_over, scale, spread)

    def _greedy_playout(self, fc: SearchCopy, pending: Any, left: int,
                        rng: random.Random) -> Any:
        """`left` greedy moves (-1: to the end) on the flat session, from its pause
        `pending`, as State.playout plays them: each the move whose preview's scores have
        the best value for the seat deciding, equal ones drawn with the search's
        `_randbelow`. The pause after the last; None where the machine took the copy and
        played the rest (a preview only the machine can make)."""
        send = fc.gen.send
        value = GreedyAgent.value
        randrange = rng._randbelow
        made = 0
        since = len(fc.moves)
        while made != left:
            if pending.__class__ is int:
                pending = send(None)
                continue
            seat, _out, labels = pending
            n = len(labels)
            i = 0
            if n > 1:
                best: list[int] = []
                top = None
                for k in range(n):
                    scores = send(-2 - k)
                    if scores is None:  # the machine previews it, and plays on
                        fc.leave()
                        playout(fc.st, rng, None if left < 0 else left - fc.decisions(since),
                                True)
                        return None
                    v = value(scores, seat)
                    if top is None or v > top:
                        top, best = v, [k]
                    elif v == top:
                        best.append(k)
                i = best[0] if len(best) == 1 else best[randrange(len(best))]
            made += 1
            pending = send(i)
        return pending

    def _finish(self, node: _Node, s: State, rng: random.Random, path: list[_Node],
                scale: float | None, spread: _Spread) -> tuple[list[_Node], list[float]]:
        """The rest of an iteration on the machine's copy `s`, from `node` on."""
        path = self._descend(node, s, rng, path)
        playout(s, rng, self.playout_decisions, self._greedy)
        return path, _rewards(s.scores(), s.is_over, scale, spread)

    def __repr__(self) -> str:
        budget = ", ".join(([f"{self.iterations}"] if self.iterations is not None else [])
                           + ([f"{self.seconds}s"] if self.seconds is not None else []))
        return f"MctsBot({budget}, rollout={self.rollout})"


def one_step_values(state: State, actions: list[Action]) -> dict[str, float]:
    """Each action's one-step value (greedy's score margin right after it), scaled from 0
    (the worst of `actions`) to 1 (the best); all 0 when they are equal."""
    seat = state.current_player
    return _scaled({a.label: GreedyAgent.value(state.preview(a).scores(), seat)
                    for a in actions})


def _scaled(values: dict[str, float]) -> dict[str, float]:
    """Values from 0 (the lowest) to 1 (the highest); all 0 when they are equal."""
    low, high = min(values.values()), max(values.values())
    if high <= low:
        return dict.fromkeys(values, 0.0)
    return {label: (v - low) / (high - low) for label, v in values.items()}


def playout(s: State, rng: random.Random, decisions: int | None, greedy: bool = False) -> None:
    """Play the copy on with random moves (greedy ones with `greedy`), dice from the
    copy's own rng, to its end or for `decisions` decisions (None: to the end).

    Every playout of the search goes through here, and through the engine's fast path
    (`State.playout`: no public call per move; a greedy move is the one
    `GreedyAgent.choose` makes).
    """
    s.playout(rng, decisions, GreedyAgent.value if greedy else None)


class _Spread:
    """The mean size of the score margins met at cut-off playouts, to scale them by."""

    __slots__ = ("total", "count")

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def scale(self, margins: list[int]) -> float:
        for m in margins:
            self.total += abs(m)
        self.count += len(margins)
        return max(1.0, self.total / self.count)


def _rewards(scores: list, over: bool, scale: float | None, spread: _Spread) -> list[float]:
    """Each seat's reward in [0, 1 + MARGIN_WEIGHT].

    At the end: its share of the win plus a small share of its margin (over `scale`,
    the declared score range, else the spread of these scores). Where a playout was
    cut off: the logistic of its margin (own score minus the best other) over the mean
    margin size met so far, an estimate of its chance to win from there.
    """
    n = len(scores)
    margins = []
    for i, x in enumerate(scores):
        others = [y for j, y in enumerate(scores) if j != i]
        margins.append(x - (max(others) if others else 0))
    if not over:
        size = spread.scale(margins)
        return [1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, m / size)))) for m in margins]
    best = max(scores)
    share = 1.0 / sum(1 for x in scores if x == best)
    span = scale if scale is not None else max(1.0, float(best - min(scores)))
    return [(share if scores[i] == best else 0.0)
            + MARGIN_WEIGHT * max(-1.0, min(1.0, margins[i] / span)) for i in range(n)]
