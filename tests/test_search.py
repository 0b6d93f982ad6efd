"""`mcts` searches its copies on the game's flat session where it covers them: the same
search as on the machine, iteration for iteration (the same decisions and the same
statistics from the same seed), since studies and players reproduce with it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulekit
from rulekit import bots
from rulekit.bots import mcts
from rulekit.errors import RulekitError

GAMES = Path(__file__).resolve().parent.parent / "games"
FILES = sorted(p for p in [*GAMES.glob("*.yaml"), *GAMES.glob("examples/*.yaml")]
               if not p.name.endswith(".tests.yaml"))


def _positions(game: rulekit.Game, players: int, seed: int, count: int) -> list[rulekit.State]:
    """Copies of a random game at `count` of its decisions, spread over it."""
    rng = random.Random(seed)
    states = []
    st = game.new_game(players=players, seed=seed)
    while not st.is_over:
        if st.is_chance:
            st.resolve_chance()
            continue
        if len(st.legal_actions()) > 1:
            states.append(st.clone())
        st.apply(rng.choice(st.legal_actions()))
    step = max(1, len(states) // count)
    return states[::step][:count]


def _search(states: list[rulekit.State], spec: str, flat: bool) -> list:
    """Each position's decision and root statistics, or the failure's message."""
    mcts.FLAT = flat
    out = []
    try:
        for st in states:
            bot = bots.make(spec, seed=3)
            try:
                action = bot.choose(st.clone(), random.Random(5))
            except RulekitError as exc:
                out.append(str(exc))
                continue
            out.append((action.label, bot.stats))
    finally:
        mcts.FLAT = True
    return out


def _counted(game: rulekit.Game) -> list[int]:
    """Counts the copies that began on the game's flat session."""
    made = game.flat_session
    begun = [0]
    begin = made.begin_search

    def counting(st: rulekit.State) -> object:
        out = begin(st)
        begun[0] += out is not None
        return out

    made.begin_search = counting  # type: ignore[method-assign]
    return begun


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_mcts_on_the_flat_session_is_the_machines_search(path: Path) -> None:
    game = rulekit.load_game(str(path))
    if game.flat_session is None:
        return
    begun = _counted(game)
    for players in sorted({game.min_players, game.max_players}):
        states = _positions(game, players, seed=players, count=3)
        assert _search(states, "mcts:40", True) == _search(states, "mcts:40", False), players
    if path.parent == GAMES:  # the shipped games' searches run on the session
        assert begun[0] > 0


def test_a_copy_given_back_mid_search_goes_on_as_the_machines() -> None:
    """Too few steps for a copy's playouts: the session gives the copy back where its
    budget might run out, and the machine plays on and fails or not as it does."""
    outcomes = []
    for flat in (True, False):
        game = rulekit.load_game(str(GAMES / "levelx.yaml"))
        states = _positions(game, 2, seed=4, count=3)
        game.max_steps = 12
        outcomes.append(_search(states, "mcts:30", flat))
    assert outcomes[0] == outcomes[1]


def test_a_wrong_comparison_in_the_sessions_module_changes_the_search() -> None:
    """The comparison above fails on a session written one comparison wrong (a number
    that may be crossed again): the search sees other moves than the machine's."""
    from rulekit.backends import flat

    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    made = game.flat_session
    states = _positions(game, 2, seed=1, count=4)
    right = _search(states, "mcts:40", True)
    wrong = flat.load(game, made.source.replace("> x1last[", ">= x1last["), made.consts,
                      made.entries, made.decisions, made.setup)
    game.__dict__["flat_session"] = wrong
    assert _search(states, "mcts:40", True) != right
    game.__dict__["flat_session"] = made
    assert _search(states, "mcts:40", False) == right
