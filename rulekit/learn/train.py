"""Self-play training of a value model: TD(lambda) with forward-view lambda-returns.

Every seat is played by the same network, one-ply: each legal action is previewed, the
state after it is valued for the deciding seat (`rulekit.learn.features`, from its view
alone), and the best is played; with probability `epsilon` a random action instead, so
that the games also show what the network would not try. A game gives, for each seat,
the states after its decisions x_1 .. x_T with the values v_1 .. v_T the network gave
them, and the seat's result z (its share of the win). The network is taught the
lambda-returns

    G_T = z,    G_t = (1 - lambda) * v_{t+1} + lambda * G_{t+1}

(TD(lambda)'s forward view: a mix of what the next positions were worth and how the game
ended), a batch of games at a time (`MLPRegressor.partial_fit`, one pass of Adam over the
batch). The first batch is played at random and taught its results alone.

Every `checkpoint` games the network plays evaluation games (seats alternating, fixed
seeds) against greedy and against the previous checkpoint; the best checkpoint against
greedy is the model kept, also when training is stopped with Ctrl-C.

The same game, settings and seed train the same model: games are seeded from the seed and
their number, scikit-learn's shuffling from the seed, and evaluation games take their own
seeds, so they change nothing in training. A time budget (`minutes`) stops after the
batch that passes it, so how many games it trains on depends on the machine.
"""

from __future__ import annotations

import hashlib
import math
import random
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rulekit.bots.greedy import GreedyAgent
from rulekit.bots.net import NetBot, outcome
from rulekit.errors import RulekitError
from rulekit.learn.features import Features, features_of
from rulekit.learn.model import FORMAT, VERSION, Model

if TYPE_CHECKING:
    from rulekit import Game

#: games of self-play between two updates of the network
BATCH_GAMES = 8
#: a game of self-play or evaluation is cut off after this many times the decisions of
#: the longest random game of the layout (and 100 more): a network that learnt to stall
#: (to stop with nothing gained, again and again) must not keep a game going for ever. A
#: game cut off is won by nobody.
CUTOFF_FACTOR = 10
#: the smallest standard deviation a feature is scaled by (a constant one is left alone)
MIN_SCALE = 1e-6


@dataclass
class Settings:
    """How to train; all of it is stored in the model's header."""

    players: int
    games: int | None = None
    minutes: float | None = None
    seed: int = 0
    hidden: int = 64
    lam: float = 0.7
    epsilon: float = 0.05
    learning_rate: float = 0.001
    checkpoint: int | None = None
    eval_games: int = 20

    def checkpoint_every(self) -> int:
        """Games between checkpoints: as set, else a tenth of the games (whole batches),
        else 400 with a time budget."""
        if self.checkpoint is not None:
            every = self.checkpoint
        elif self.games is not None:
            every = self.games // 10
        else:
            every = 400
        return max(BATCH_GAMES, every // BATCH_GAMES * BATCH_GAMES)


@dataclass
class Checkpoint:
    """One evaluation: after how many games, and the share of the win against each."""

    games: int
    vs_greedy: float
    vs_previous: float | None
    model: Model = field(repr=False)


def derive(seed: int, *parts: object) -> int:
    """A seed from the run's seed and a name, the same in any process."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def _sklearn() -> Any:
    try:
        from sklearn.neural_network import MLPRegressor
    except ImportError:
        raise RulekitError("rulekit train needs scikit-learn, the extra rulekit[train]: "
                           "python -m pip install 'rulekit[train]'") from None
    return MLPRegressor


class Trainer:
    """A training run; `run()` trains, `best` is the model to keep (also after Ctrl-C)."""

    def __init__(self, game: Game, settings: Settings, jobs: int = 1) -> None:
        regressor = _sklearn()
        #: processes the games of self-play run in (any number trains the same model): at
        #: most a batch's games, one each
        self.jobs = max(1, min(jobs, BATCH_GAMES))
        self.game = game
        self.settings = settings
        self.features: Features = features_of(game, settings.players)
        sample = np.asarray(self.features.sample, dtype=np.float64)
        self.mean = sample.mean(axis=0)
        scale = sample.std(axis=0)
        self.scale = np.where(scale < MIN_SCALE, 1.0, scale)
        self.net = regressor(hidden_layer_sizes=(settings.hidden,), activation="relu",
                             solver="adam", learning_rate_init=settings.learning_rate,
                             batch_size=64, alpha=1e-4, shuffle=True,
                             random_state=settings.seed % 2**32)
        self.games = 0
        self.fitted = False
        self.checkpoints: list[Checkpoint] = []
        self.best: Checkpoint | None = None
        self.started = time.monotonic()
        #: the most decisions a game may take before it is cut off (won by nobody)
        self.cutoff = cutoff(self.features)
        self._pool: Any = None

    # ---- the model ---------------------------------------------------------------------------
    def model(self) -> Model:
        """The network as it stands, as a model file's arrays and header."""
        s = self.settings
        header = {
            "format": FORMAT, "version": VERSION, "game": self.game.name,
            "params": self.game.params, "players": s.players, "inputs": self.features.size,
            "layout": self.features.fingerprint, "hidden": [s.hidden], "activation": "relu",
            "target": "the seat's share of the win",
            "training": {**asdict(s), "games_played": self.games, "method": "TD(lambda) "
                         "self-play, forward-view lambda-returns, scikit-learn MLPRegressor"},
        }
        weights = [(w.copy(), b.copy()) for w, b in zip(self.net.coefs_, self.net.intercepts_)]
        return Model(header, self.mean, self.scale, weights)

    def kept(self) -> Model | None:
        """The model to write: the best checkpoint, else the network if it learnt at all."""
        if self.best is not None:
            return self.best.model
        return self.model() if self.fitted else None

    # ---- training ----------------------------------------------------------------------------
    def run(self, progress: Callable[[Trainer], None] | None = None) -> Model:
        """Train until the games or the minutes are spent; the best model."""
        s = self.settings
        every = s.checkpoint_every()
        deadline = self.started + s.minutes * 60 if s.minutes is not None else None
        if self.jobs > 1:
            import multiprocessing

            from rulekit.studies.runner import Side

            # spawn: a clean interpreter per process, as the studies' pool
            self._pool = multiprocessing.get_context("spawn").Pool(
                self.jobs, initializer=_pool_start,
                initargs=(Side.of(self.game), s))
        try:
            return self._run(progress, every, deadline)
        finally:
            if self._pool is not None:
                self._pool.terminate()  # on Ctrl-C too
                self._pool.join()
                self._pool = None

    def _run(self, progress: Callable[[Trainer], None] | None, every: int,
             deadline: float | None) -> Model:
        s = self.settings
        while True:
            if s.games is not None and self.games >= s.games:
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
            size = BATCH_GAMES if s.games is None else min(BATCH_GAMES, s.games - self.games)
            self.batch(size)
            if self.games % every == 0:
                self.checkpoint()
            if progress is not None:
                progress(self)
        if not self.checkpoints or self.checkpoints[-1].games != self.games:
            self.checkpoint()
            if progress is not None:
                progress(self)
        kept = self.kept()
        assert kept is not None
        return kept

    def batch(self, size: int) -> None:
        """Play `size` games of self-play and teach the network their lambda-returns."""
        model = self.model() if self.fitted else None
        indices = list(range(self.games, self.games + size))
        if self._pool is not None:
            chunks = [indices[i::self.jobs] for i in range(self.jobs)]
            played: dict[int, Any] = {}
            pending = self._pool.map_async(_pool_games, [(model, chunk) for chunk in chunks])
            while not pending.ready():  # a wait without a timeout would not see Ctrl-C
                pending.wait(0.1)
            for chunk, results in zip(chunks, pending.get()):
                played.update(zip(chunk, results))
            games = [played[i] for i in indices]  # in game order: the same for any jobs
        else:
            games = [play_game(self.game, self.features, self.settings, self.cutoff, model, i)
                     for i in indices]
        self.games += size
        xs: list[list[float]] = []
        targets: list[float] = []
        for seats in games:
            for rows, values in seats:
                xs.extend(rows)
                targets.extend(values)
        if xs:
            self._fit((np.asarray(xs) - self.mean) / self.scale, np.asarray(targets))
            self.fitted = True

    def _fit(self, x: np.ndarray, y: np.ndarray) -> None:
        """One pass of the optimiser. scikit-learn catches Ctrl-C inside it (and goes on
        training), so the signal is held until the pass ends and raised then."""
        caught: list[int] = []
        try:
            previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
        except ValueError:  # not the main thread: signals are not ours to take
            previous = None
        try:
            self.net.partial_fit(x, y)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt

    # ---- evaluation --------------------------------------------------------------------------
    def checkpoint(self) -> Checkpoint:
        """Evaluate the network against greedy and the previous checkpoint; keep the best."""
        model = self.model()
        s = self.settings
        previous = self.checkpoints[-1].model if self.checkpoints else None
        vs_greedy = match(self.game, s.players, model, None, s.eval_games,
                          derive(s.seed, "eval", "greedy"), self.cutoff)
        vs_previous = None if previous is None else match(
            self.game, s.players, model, previous, s.eval_games,
            derive(s.seed, "eval", "previous"), self.cutoff)
        point = Checkpoint(self.games, vs_greedy, vs_previous, model)
        self.checkpoints.append(point)
        if self.best is None or vs_greedy >= self.best.vs_greedy:
            self.best = point
        return point


def play_game(game: Game, feats: Features, settings: Settings, limit: int,
              model: Model | None, index: int) -> list[tuple[list[list[float]], list[float]]]:
    """Game `index` of self-play, every seat played by `model` (at random without one);
    per seat, the features of the states after its decisions and their lambda-returns.
    Its dice and moves are seeded by the run's seed and `index` alone."""
    s = settings
    n = s.players
    rng = random.Random(derive(s.seed, "moves", index))
    st = game.new_game(n, seed=derive(s.seed, "game", index))
    rows: list[list[list[float]]] = [[] for _ in range(n)]
    values: list[list[float]] = [[] for _ in range(n)]
    decisions = 0
    while not st.is_over and decisions < limit:
        if st.is_chance:
            st.resolve_chance()
            continue
        seat = st.current_player
        actions = st.legal_actions()
        decisions += 1
        if len(actions) == 1:
            st.apply(actions[0])
            continue
        previews = [st.preview(a) for a in actions]
        vectors = [None if p.is_over else feats.vector(p, seat) for p in previews]
        if model is None or rng.random() < s.epsilon:
            k = rng.randrange(len(actions))
            estimate = None
        else:
            estimates = _values(model, previews, vectors, seat)
            best = max(estimates)
            top = [i for i, v in enumerate(estimates) if v == best]
            k = top[0] if len(top) == 1 else rng.choice(top)
            estimate = estimates[k]
        if vectors[k] is not None:
            rows[seat].append(vectors[k])  # type: ignore[arg-type]
            if estimate is None and model is not None:
                estimate = _values(model, [previews[k]], [vectors[k]], seat)[0]
            values[seat].append(estimate if estimate is not None else math.nan)
        st.apply(actions[k])
    scores = st.scores()
    out = []
    for seat in range(n):
        z = outcome(scores, seat) if st.is_over else 0.0
        returns = lambda_returns(values[seat], z, s.lam if model is not None else 1.0)
        out.append((rows[seat], returns))
    return out


_POOL: tuple = ()


def _pool_start(side: Any, settings: Settings) -> None:
    """In a pool process: the game built again, its features, Ctrl-C left to the main."""
    global _POOL
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    game = side.game()
    feats = features_of(game, settings.players)
    _POOL = (game, feats, settings, cutoff(feats))


def _pool_games(task: tuple[Model | None, list[int]]) -> list:
    model, indices = task
    return [play_game(*_POOL, model, i) for i in indices]


def lambda_returns(values: list[float], z: float, lam: float) -> list[float]:
    """The targets of a seat's states: G_T = z, G_t = (1-lam) v_{t+1} + lam G_{t+1}."""
    out = [0.0] * len(values)
    g = z
    for t in range(len(values) - 1, -1, -1):
        out[t] = g
        v = values[t]
        g = (1.0 - lam) * v + lam * g if not math.isnan(v) else g
    return out


def _values(model: Model, previews: list, vectors: list, seat: int) -> list[float]:
    """The model's values of previewed states for `seat`; an ended game its result."""
    out = [0.0] * len(previews)
    rows = [v for v in vectors if v is not None]
    estimates = iter(model.values(np.asarray(rows, dtype=np.float64))) if rows else iter(())
    for i, (p, v) in enumerate(zip(previews, vectors)):
        out[i] = outcome(p.scores(), seat) if v is None else float(next(estimates))
    return out


def cutoff(features: Features) -> int:
    """The most decisions a game of training or evaluation may take (see CUTOFF_FACTOR)."""
    return CUTOFF_FACTOR * features.longest + 100


def match(game: Game, players: int, model: Model, other: Model | None, games: int,
          seed: int, limit: int) -> float:
    """The model's mean share of the win in `games` games against `other` (greedy when
    None) in every other seat; the model's seat turns game by game. A game that takes
    more than `limit` decisions is cut off and counts as lost."""
    total = 0.0
    for i in range(games):
        me = i % players
        rng = random.Random(derive(seed, "moves", i))
        bots: list[Any] = [NetBot(model, rng) if seat == me else
                           (GreedyAgent(rng) if other is None else NetBot(other, rng))
                           for seat in range(players)]
        st = game.new_game(players, seed=derive(seed, "game", i))
        decisions = 0
        while not st.is_over and decisions < limit:
            if st.is_chance:
                st.resolve_chance()
            else:
                decisions += 1
                st.apply(bots[st.current_player].choose(st, rng))
        total += outcome(st.scores(), me) if st.is_over else 0.0
    return total / games if games else 0.0
