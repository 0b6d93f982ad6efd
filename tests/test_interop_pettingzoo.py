"""Every game file as a PettingZoo AEC environment (rulekit.interop.pettingzoo)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import rulekit
from rulekit.errors import GameFileError, IllegalActionError, RulekitError
from rulekit.interop.pettingzoo import RulekitEnv, env
from tests.conftest import GAMES

#: the shipped games and variants, and the example games (games/examples/) where present
SHIPPED = sorted(p for p in [*GAMES.glob("*.yaml"), *GAMES.glob("examples/*.yaml")]
                 if ".tests." not in p.name)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_pettingzoos_api_and_seed_tests_pass_on_every_shipped_game(path):
    with warnings.catch_warnings():
        # PettingZoo's own board games observe a mapping too, and are listed as such
        warnings.filterwarnings("ignore", "Observation is not (a )?NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        api_test(env(str(path)), num_cycles=15)
        seed_test(lambda: env(str(path)), num_cycles=15)


def play(e: RulekitEnv, seed: int) -> tuple[dict, list]:
    """A whole game with random legal actions; the rewards summed, the labels played."""
    e.reset(seed=seed)
    for i, agent in enumerate(e.possible_agents):
        e.action_space(agent).seed(seed + i)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    labels = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = {a.label for a in e.state.legal_actions()}
        mask = obs["action_mask"]
        # the mask is exactly the legal actions, named by their labels
        assert {e.label(i) for i in np.flatnonzero(mask)} == legal
        action = e.action_space(agent).sample(mask)
        labels.append(e.label(action))
        e.step(action)
    return totals, labels


def test_rewards_are_the_final_scores_and_a_seed_gives_the_same_game():
    e = env("qwixx", players=3)
    totals, labels = play(e, seed=5)
    assert list(totals.values()) == [float(s) for s in e.state.scores()]
    assert e.state.is_over and len(labels) > 20
    assert play(env("qwixx", players=3), seed=5) == (totals, labels)
    assert play(env("qwixx", players=3), seed=6)[1] != labels


def test_params_change_the_game():
    e = env("qwixx", penalty_points=10, max_penalties=1)
    assert e.game.params["penalty_points"] == 10
    play(e, seed=1)
    # the game ends at the first penalty
    assert e.state.end_reason == "penalties"
    assert sorted(p["penalties"] for p in e.state.view()["player_vars"]) == [0, 1]


def test_only_the_acting_agent_has_legal_actions():
    e = env("domino7")
    e.reset(seed=3)
    acting = e.agent_selection
    for agent in e.possible_agents:
        mask = e.observe(agent)["action_mask"]
        assert mask.any() == (agent == acting)


def test_an_observation_never_shows_what_its_seat_cannot_see():
    e = env("domino-fives")
    e.reset(seed=0)
    game = rulekit.load_game(GAMES / "domino-fives.yaml")
    tiles = [[a, b] for a in range(7) for b in range(a, 7)]
    other = tiles[:]
    other[8], other[9] = other[9], other[8]  # two tiles of seat 1's hand swap with each other
    other[7], other[20] = other[20], other[7]  # and one with the stock
    seen = []
    for deal in (tiles, other):
        e.state = game.new_game(2, seed=1)
        e.state.resolve_chance(deal)
        seen.append((e.observe("player_0")["observation"], e.observe("player_1")["observation"]))
    assert np.array_equal(seen[0][0], seen[1][0])
    assert not np.array_equal(seen[0][1], seen[1][1])  # seat 1 sees its own hand change


def test_ansi_rendering_shows_the_game_to_an_observer():
    e = env("domino-fives", render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert "player 0" in text and "player 1" in text
    assert "(hidden)" not in text  # an observer of the environment sees every hand
    assert env("domino-fives").render() is None


def test_mistakes_get_one_clear_message():
    with pytest.raises(RulekitError, match="for 2 to 5 players, not 7"):
        env("qwixx", players=7)
    with pytest.raises(GameFileError, match="penalty_points.*below the minimum 0"):
        env("qwixx", penalty_points=-1)
    with pytest.raises(RulekitError, match="render_mode is one of"):
        env("qwixx", render_mode="rgb_array")
    e = env("qwixx")
    with pytest.raises(RulekitError, match="call reset"):
        e.observe("player_0")
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="is not a legal action"):
        e.step(illegal)
    with pytest.raises(RulekitError, match="no action has the id 100000"):
        e.step(100000)
