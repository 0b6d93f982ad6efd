"""The example games against OpenSpiel, move by move: where OpenSpiel has the game, the YAML
file follows its rules, so both must offer the same actions (OpenSpiel's action strings are
the labels), pass the turn alike after the same moves and dice, and end with equal returns.

Both sides get the same scripted dice: a chance outcome drawn by the test's own seeded RNG is
imposed on the YAML game with `resolve_chance(outcome)` and applied to OpenSpiel as the
matching chance action.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rulekit

pyspiel = pytest.importorskip("pyspiel")

EXAMPLES = Path(__file__).resolve().parent.parent / "games" / "examples"


@functools.cache
def load(file: str, overrides: tuple) -> Any:
    return rulekit.load_game(str(EXAMPLES / file), overrides=dict(overrides))


def play_both(file: str, spiel_name: str, players: int, seed: int,
              outcome: Callable[[Any, int], Any], overrides: dict | None = None,
              spiel_params: dict | None = None) -> tuple[list, list]:
    """One random game played on both engines; every step is compared. Returns the YAML
    game's scores and OpenSpiel's returns.

    `outcome(state, spiel_action)` turns OpenSpiel's chance action into the YAML game's
    chance outcome.
    """
    game = load(file, tuple(sorted((overrides or {}).items())))
    spiel = pyspiel.load_game(spiel_name, {"players": players, **(spiel_params or {})})
    st = game.new_game(players=players, seed=seed)
    sp = spiel.new_initial_state()
    rng = random.Random(seed)
    moves = 0
    while not sp.is_terminal():
        assert not st.is_over, f"move {moves}: the YAML game ended first"
        if sp.is_chance_node():
            assert st.is_chance, f"move {moves}: OpenSpiel rolls, the YAML game does not"
            actions, probs = zip(*sp.chance_outcomes())
            a = rng.choices(actions, probs)[0]
            st.resolve_chance(outcome(st, a))
            sp.apply_action(a)
        else:
            assert not st.is_chance, f"move {moves}: the YAML game rolls, OpenSpiel does not"
            seat = sp.current_player()
            assert st.current_player == seat, f"move {moves}"
            theirs = {sp.action_to_string(seat, a): a for a in sp.legal_actions()}
            ours = [a.label for a in st.legal_actions()]
            assert sorted(ours) == sorted(theirs), f"move {moves}: {ours} vs {sorted(theirs)}"
            label = rng.choice(sorted(theirs))
            st.apply(label)
            sp.apply_action(theirs[label])
        moves += 1
    assert st.is_over, f"move {moves}: OpenSpiel ended, the YAML game goes on"
    return st.scores(), sp.returns()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pig_plays_as_openspiel_with_equal_returns(players: int) -> None:
    # a small target keeps the games short; both engines take it as a param
    for seed in range(12):
        ours, theirs = play_both("pig.yaml", "pig", players, seed,
                                 lambda st, a: {"d": a + 1}, {"winscore": 20},
                                 {"winscore": 20})
        assert ours == theirs


def test_pig_horizon_ends_with_nobody_winning_as_in_openspiel() -> None:
    ours, theirs = play_both("pig.yaml", "pig", 3, 5, lambda st, a: {"d": a + 1},
                             {"horizon": 7}, {"horizon": 7})
    assert ours == theirs == [0, 0, 0]


def test_pig_returns_are_fractions_for_more_than_two_players() -> None:
    game = rulekit.load_game(str(EXAMPLES / "pig.yaml"), overrides={"winscore": 5})
    st = game.new_game(players=4, seed=0)
    st.apply("roll")
    st.resolve_chance({"d": 6})
    st.apply("stop")
    assert st.is_over
    assert st.scores() == [1, -1 / 3, -1 / 3, -1 / 3]
    assert st.winners() == [0]
