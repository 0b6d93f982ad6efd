"""Computer players: small objects that pick an action through the public State API only.

An agent has a `name` and `choose(state, rng) -> Action`. It receives its own
`random.Random` so that a seeded simulation is reproducible and the agent's
randomness never disturbs the game's dice. New agents are one entry in `AGENTS`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from rulekit.agents.greedy import GreedyAgent
from rulekit.agents.random_bot import RandomAgent
from rulekit.errors import RulekitError

if TYPE_CHECKING:
    from rulekit import Action, State


class Agent(Protocol):
    """What the simulator and `rulekit play` need from a computer player."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Action:
        """One of `state.legal_actions()` for `state.current_player`."""
        ...


#: agent name -> factory; the CLI's `--bots` accepts exactly these names
AGENTS: dict[str, Callable[[], Agent]] = {
    RandomAgent.name: RandomAgent,
    GreedyAgent.name: GreedyAgent,
}


def known_agents() -> list[str]:
    """The agent names `make_agent` accepts, sorted, for messages and help texts."""
    return sorted(AGENTS)


def make_agent(name: str) -> Agent:
    """A fresh agent by name, so a bad `--bots` value fails with the list of valid ones."""
    factory = AGENTS.get(name.strip().lower())
    if factory is None:
        raise RulekitError(f"unknown bot {name!r}; known bots: {', '.join(known_agents())}")
    return factory()


__all__ = ["AGENTS", "Agent", "GreedyAgent", "RandomAgent", "known_agents", "make_agent"]
