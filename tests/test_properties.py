"""Properties every shipped game keeps, over random games (hypothesis picks seeds)."""

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit

ROOT = Path(__file__).resolve().parent.parent
GAME_FILES = sorted((ROOT / "games").rglob("*.yaml"))
_GAMES: dict = {}


def game_of(path):
    if path not in _GAMES:
        _GAMES[path] = rulekit.load_game(path)
    return _GAMES[path]


def play(state, rng, until=None):
    """Random moves until the game ends (or `until` decisions were made)."""
    n = 0
    while not state.is_over and (until is None or n < until):
        if state.is_chance:
            state.resolve_chance()
        else:
            state.apply(rng.choice(state.legal_actions()))
            n += 1
    return state


def seats(game, rng):
    return rng.randint(game.min_players, game.max_players)


SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_same_seed_and_decisions_give_the_same_game(path, seed):
    game = game_of(path)
    n = seats(game, random.Random(seed))
    a = play(game.new_game(players=n, seed=seed), random.Random(seed))
    b = play(game.new_game(players=n, seed=seed), random.Random(seed))
    assert a.log == b.log and a.scores() == b.scores() and a.end_reason == b.end_reason


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6), depth=st.integers(0, 60))
def test_a_clone_is_independent_and_equal(path, seed, depth):
    game = game_of(path)
    rng = random.Random(seed)
    state = play(game.new_game(players=seats(game, rng), seed=seed), rng, until=depth)
    before = state.view()
    copy = state.clone()
    assert copy.view() == before
    # the copy plays on; the original must not move, then plays the same way itself
    play(copy, random.Random(seed + 1))
    assert state.view() == before
    again = play(state.clone(), random.Random(seed + 1))
    assert again.log == copy.log and again.scores() == copy.scores()


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_a_game_replayed_from_its_log_ends_identical(path, seed):
    game = game_of(path)
    rng = random.Random(seed)
    n = seats(game, rng)
    original = play(game.new_game(players=n, seed=seed), rng)
    # a different seed: every chance outcome comes from the log, not from the RNG
    replayed = game.new_game(players=n, seed=seed + 7)
    for entry in original.log:
        if "chance" in entry:
            replayed.resolve_chance(entry["outcome"])
        elif "action" in entry and not entry.get("forced"):
            assert replayed.current_player == entry["seat"]
            replayed.apply(entry["action"])
    assert replayed.is_over
    assert replayed.log == original.log and replayed.scores() == original.scores()


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_legal_actions_have_unique_labels_and_an_illegal_one_changes_nothing(path, seed):
    game = game_of(path)
    rng = random.Random(seed)
    state = game.new_game(players=seats(game, rng), seed=seed)
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
            continue
        actions = state.legal_actions()
        labels = [a.label for a in actions]
        assert actions and len(set(labels)) == len(labels)
        before = state.view()
        with pytest.raises(rulekit.IllegalActionError):
            state.apply("no such move")
        assert state.view() == before
        state.apply(rng.choice(actions))
    assert len(state.scores()) == state.view()["players"]
    assert set(state.winners()) <= set(range(state.view()["players"]))
