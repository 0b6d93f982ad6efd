"""rulekit games as PettingZoo environments (AEC: one agent acts at a time).

    from rulekit.interop.pettingzoo import env
    e = env("games/mygame.yaml", players=3, max_rounds=8)  # or a shipped game's name
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are `player_0` ... in seat order; the one whose decision is due acts. An action
is an id of `rulekit.interop.encoding` (`e.label(id)` names it); the observation is a
mapping: `observation`, the encoding of what the agent's seat sees (`state.view(seat)`),
and `action_mask`, the legal ids of the agent that acts (zeros for the others). Chance
steps (rolls, deals) resolve inside `step`, from the seed `reset` was given. Rewards come
at the end: each agent's final score.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import rulekit
from rulekit.errors import RulekitError
from rulekit.files import resolve_game
from rulekit.interop.encoding import LARGEST, Encoding, encoding_of


def env(file: str, players: int | None = None, render_mode: str | None = None,
        **params: Any) -> RulekitEnv:
    """An environment for a game file (or a shipped game's name) with `players` seats
    (the file's least by default), its params changed by `params`."""
    game = rulekit.load_game(resolve_game(file), overrides=params or None)
    return RulekitEnv(game, players, render_mode)


class RulekitEnv(AECEnv):
    """A rulekit game as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["ansi", "human"], "name": "rulekit", "is_parallelizable": False}

    def __init__(self, game: rulekit.Game, players: int | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        n = game.min_players if players is None else players
        if not isinstance(n, int) or not game.min_players <= n <= game.max_players:
            raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                               f"players, not {players}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RulekitError(f"render_mode is one of {self.metadata['render_modes']}, "
                               f"not {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.encoding: Encoding = encoding_of(game)
        self.n = n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = list(self.possible_agents)
        actions = max(1, self.encoding.num_actions)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(-LARGEST, LARGEST, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: rulekit.State | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def label(self, action: int) -> str:
        """The label of an action id."""
        return self.encoding.label(int(action))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; with `seed`, its dice and deals are those of that seed (and so are
        the games later resets without a seed start)."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self.state = self.game.new_game(self.n, seed=self._seeds.getrandbits(64))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._advance()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        st = self._state()
        observation = np.asarray(self.encoding.encode(st.view(seat)), dtype=np.float32)
        mask = np.zeros(self.action_spaces[agent].n, dtype=np.int8)
        if not st.is_over and st.current_player == seat:
            for action in st.legal_actions():
                mask[self.encoding.action_id(action.label)] = 1
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self._state()
        if action is None:
            raise RulekitError(f"{agent} is to act: an action id, not None")
        self._cumulative_rewards[agent] = 0.0
        st.apply(self.encoding.label(int(action)))
        self._advance()
        if self.render_mode == "human":
            self.render()

    def _advance(self) -> None:
        """Resolve chance steps until a seat decides or the game is over; at the end every
        agent terminates with its final score as reward."""
        st = self._state()
        while st.is_chance:
            st.resolve_chance()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if st.is_over:
            for agent, score in zip(self.possible_agents, st.scores()):
                if agent in self.agents:
                    self.rewards[agent] = float(score)
                    self.terminations[agent] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[st.current_player]
        self._accumulate_rewards()

    def _state(self) -> rulekit.State:
        if self.state is None:
            raise RulekitError("call reset() before using the environment")
        return self.state

    def render(self) -> str | None:
        """The game as text, as an observer who sees everything does."""
        if self.render_mode is None:
            return None
        text = self._state().render(None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
