"""OpenSpiel's MCTS as a rulekit bot: `--bots openspiel-mcts:400` (400 simulations).

It searches the game as `rulekit.interop.openspiel` presents it, from a copy of the
position as the deciding seat may imagine it (`State.determinize`: what it cannot see is
dealt anew), so that it plays by what its seat sees, like rulekit's own bots. Rollouts
are random; the exploration constant is scaled by the game's score range.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from rulekit.bots import OPENSPIEL_MAX_SIMULATIONS
from rulekit.errors import RulekitError

if TYPE_CHECKING:
    from rulekit import Action, Game, State
    from rulekit.interop.openspiel import RulekitGame

#: simulations per move when the spec names none; the most a spec may ask for is the bots'
#: cap, one number wherever a spec is read
DEFAULT_SIMULATIONS = 100
MAX_SIMULATIONS = OPENSPIEL_MAX_SIMULATIONS


class OpenSpielMctsBot:
    """OpenSpiel's `MCTSBot` with random rollouts, deciding for a rulekit state."""

    def __init__(self, simulations: int, rng: random.Random, name: str) -> None:
        self.simulations = simulations
        self.rng = rng
        self.name = name
        self._games: dict[tuple[int, int], RulekitGame] = {}

    def _game(self, game: Game, players: int) -> RulekitGame:
        from rulekit.interop.openspiel import RulekitGame

        key = (id(game), players)
        found = self._games.get(key)
        if found is None or found.rulekit_game is not game:
            found = self._games[key] = RulekitGame({"players": players}, game)
        return found

    def choose(self, state: State, rng: random.Random | None = None) -> Action:
        import numpy as np
        from open_spiel.python.algorithms.mcts import MCTSBot, RandomRolloutEvaluator

        rng = rng or self.rng
        seat = state.current_player
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        game = self._game(state.game, state.n)
        position = game.state_of(state.determinize(seat, rng))
        spread = game.max_utility() - game.min_utility()
        numbers = np.random.RandomState(rng.getrandbits(32))
        bot = MCTSBot(game, uct_c=2.0 * max(1.0, spread if spread < 1e9 else 1.0),
                      max_simulations=self.simulations,
                      evaluator=RandomRolloutEvaluator(1, numbers), random_state=numbers,
                      solve=False)
        label = game.encoding.label(int(bot.step(position)))
        for action in actions:
            if action.label == label:
                return action
        raise RulekitError(f"openspiel-mcts chose {label!r}, which is not legal now")


def make(options: list[str], spec: str, rng: random.Random) -> OpenSpielMctsBot:
    """The bot of a spec `openspiel-mcts[:SIMULATIONS]`; needs the extra rulekit[openspiel]."""
    if len(options) > 1 or (options and not (
            options[0].isdigit() and 1 <= int(options[0]) <= MAX_SIMULATIONS)):
        raise RulekitError(f"bad bot {spec!r}: openspiel-mcts takes a number of simulations "
                           f"from 1 to {MAX_SIMULATIONS}, e.g. openspiel-mcts:400")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        raise RulekitError("the bot openspiel-mcts needs OpenSpiel: "
                           "pip install 'rulekit[openspiel]'") from None
    simulations = int(options[0]) if options else DEFAULT_SIMULATIONS
    return OpenSpielMctsBot(simulations, rng, f"openspiel-mcts:{simulations}")
