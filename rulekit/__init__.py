"""rulekit: a rules engine whose games are data.

The engine is imported on first use of a name that needs it, so that the command line
starts fast (`rulekit --help` imports no parser, no schema validator).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from rulekit.engine.game import Game, load_game
    from rulekit.engine.state import State
    from rulekit.engine.steps import Action

#: the engine's public names and the modules that define them
_LAZY = {"Game": "rulekit.engine.game", "load_game": "rulekit.engine.game",
         "State": "rulekit.engine.state", "Action": "rulekit.engine.steps"}


def __getattr__(name: str) -> Any:
    if name == "bots":  # `rulekit.bots.make("mcts:200")` after a plain `import rulekit`
        import importlib

        return importlib.import_module("rulekit.bots")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rulekit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
