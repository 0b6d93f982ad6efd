"""The computer players' former home, kept so that `rulekit.agents` imports go on working.

The bots live in `rulekit.bots`; `make_agent` is `rulekit.bots.make` (it accepts specs
such as `mcts:400`).
"""

from __future__ import annotations

from rulekit.bots import Bot as Agent
from rulekit.bots import GreedyAgent, MctsBot, RandomAgent
from rulekit.bots import known_bots as known_agents
from rulekit.bots import make as make_agent

__all__ = ["Agent", "GreedyAgent", "MctsBot", "RandomAgent", "known_agents", "make_agent"]
