"""rulekit: a rules engine whose games are data."""

from rulekit.engine.game import Game, load_game
from rulekit.engine.state import State
from rulekit.engine.steps import Action
from rulekit.errors import (
    ChanceError,
    Diagnostic,
    EndlessFlowError,
    FlowError,
    GameFileError,
    IllegalActionError,
    NoOptionError,
    RulekitError,
)

__all__ = [
    "Action",
    "ChanceError",
    "Diagnostic",
    "EndlessFlowError",
    "FlowError",
    "Game",
    "GameFileError",
    "IllegalActionError",
    "NoOptionError",
    "RulekitError",
    "State",
    "load_game",
]
