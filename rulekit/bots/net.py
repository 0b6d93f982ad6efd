"""`net:MODEL`: one-ply play on a learned value (a model written by `rulekit train`).

For every legal action the bot previews the state after it (`state.preview`, which in a
game with hidden parts deals anew what the seat cannot see, and rolls its own dice) and
asks the model what that state is worth to the deciding seat, from that seat's view
alone; it plays the best, ties broken by its rng. A state that ends the game is worth
its result (the seat's share of the win), not the model's guess.

The model is checked against the game when the bot first meets it: a model for another
game, other params (a variant), another player count or another feature layout is
refused with one message.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rulekit.errors import RulekitError
from rulekit.learn.features import Features, features_of
from rulekit.learn.model import Model, load

if TYPE_CHECKING:
    from rulekit import Action, Game, State

#: models by resolved path, with the file's size and time, the latest last
_MODELS: dict[str, tuple[tuple[int, int], Model]] = {}
_MODELS_SIZE = 8


def model_path(text: str, root: str | Path | None = None) -> Path:
    """The file a spec's model path names. With `root` (the folder of the game file whose
    levels name it) it must be a relative path that stays inside that folder, links
    followed, as every file a game file names; without, it is the user's own path."""
    if not text:
        raise RulekitError("a net bot names its model file: net:FILE.npz (one `rulekit "
                           "train` writes)")
    if root is None:
        return Path(text)
    base = Path(root).resolve()
    rel = Path(text)
    if rel.is_absolute() or "\\" in text or any(part == ".." for part in rel.parts):
        raise RulekitError(f"the model {text!r} is outside the game's folder: a game file "
                           f"names a model by a path relative to its own folder")
    path = (base / rel).resolve()
    if path != base and base not in path.parents:
        raise RulekitError(f"the model {text!r} is outside the game's folder: a game file "
                           f"names a model by a path relative to its own folder")
    return path


def cached_model(path: Path) -> Model:
    """The model of a file, read once per process while the file stays the same."""
    key = os.path.abspath(path)
    try:
        st = path.stat()
        stamp = (st.st_size, st.st_mtime_ns)
    except OSError:
        stamp = (-1, -1)
    found = _MODELS.pop(key, None)
    if found is None or found[0] != stamp:
        found = (stamp, load(path))
        while len(_MODELS) >= _MODELS_SIZE:
            del _MODELS[next(iter(_MODELS))]
    _MODELS[key] = found
    return found[1]


def outcome(scores: list[int], seat: int) -> float:
    """A seat's share of the win: 1 alone on the best score, 1/k shared by k, else 0."""
    best = max(scores)
    if scores[seat] != best:
        return 0.0
    return 1.0 / sum(1 for s in scores if s == best)


class Evaluator:
    """A model bound to a game: the value of states for a seat, checked once per game."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._bound: tuple[Game, int, Features] | None = None

    def bind(self, game: Game, players: int) -> Features:
        """The game's feature layout, after checking that the model fits the game."""
        bound = self._bound
        if bound is None or bound[0] is not game or bound[1] != players:
            self.model.check_game(game, players)
            feats = features_of(game, players)
            self.model.check_game(game, players, feats.fingerprint, feats.size)
            bound = self._bound = (game, players, feats)
        return bound[2]

    def features(self, state: State) -> Features:
        return self.bind(state.game, state.n)

    def values(self, states: list[State], seat: int) -> list[float]:
        """Each state's value for `seat`: its result if it is over, else the model's."""
        feats = self.features(states[0])
        out = [0.0] * len(states)
        rows = []
        where = []
        for i, s in enumerate(states):
            if s.is_over:
                out[i] = outcome(s.scores(), seat)
            else:
                rows.append(feats.vector(s, seat))
                where.append(i)
        if rows:
            for i, v in zip(where, self.model.values(np.asarray(rows, dtype=np.float64))):
                out[i] = float(v)
        return out


class NetBot:
    """Plays the action whose previewed state the model values most for its seat."""

    def __init__(self, model: Model, rng: random.Random | None = None,
                 name: str = "net") -> None:
        self.evaluator = Evaluator(model)
        self.rng = rng or random.Random()
        self.name = name
        #: after each decision: the value of each legal action's label, for people and tests
        self.stats: dict[str, float] = {}

    def choose(self, state: State, rng: random.Random | None = None) -> Action:
        """The legal action of the best value after it; ties by the rng."""
        rng = rng or self.rng
        actions = state.legal_actions()
        seat = state.current_player
        if len(actions) == 1 or seat is None:
            self.evaluator.features(state)  # a model for another game is refused at once
            return actions[0]
        values = self.evaluator.values([state.preview(a) for a in actions], seat)
        self.stats = {a.label: v for a, v in zip(actions, values)}
        best = max(values)
        top = [a for a, v in zip(actions, values) if v == best]
        return top[0] if len(top) == 1 else rng.choice(top)

    def __repr__(self) -> str:
        return f"NetBot({self.name})"
