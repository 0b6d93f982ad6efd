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


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the copies made on a flat session."""
    from rulekit.backends import session

    begun = [0]
    made = session.SearchCopy

    def counting(*args: object) -> object:
        begun[0] += 1
        return made(*args)

    monkeypatch.setattr(session, "SearchCopy", counting)
    return begun


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_mcts_on_the_flat_session_is_the_machines_search(path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    game = rulekit.load_game(str(path))
    if game.flat_session is None:
        return
    begun = _counted(monkeypatch)
    for players in sorted({game.min_players, game.max_players}):
        states = _positions(game, players, seed=players, count=3)
        assert _search(states, "mcts:40", True) == _search(states, "mcts:40", False), players
    if path.parent == GAMES:  # the shipped games' searches run on the session
        assert begun[0] > 0


@pytest.mark.parametrize(("name", "players", "steps"),
                         [("domino7.yaml", 4, 14), ("qwixx.yaml", 3, 18)])
def test_a_copy_given_back_mid_search_goes_on_as_the_machines(
        name: str, players: int, steps: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Few steps for a copy: the session gives the copy back where its budget might run
    out, as it starts (Domino 7, the copy's RNG not yet seeded) or later (Qwixx), and the
    machine plays on from the same copy and fails or not as it does."""
    from rulekit.backends import session

    given = []
    give_back = session.SearchCopy.given_back

    def counting(fc: session.SearchCopy, exc: BaseException) -> None:
        given.append(fc.seeded)
        give_back(fc, exc)

    monkeypatch.setattr(session.SearchCopy, "given_back", counting)
    outcomes = []
    for flat in (True, False):
        game = rulekit.load_game(str(GAMES / name))
        states = _positions(game, players, seed=4, count=3)
        game.max_steps = steps
        outcomes.append(_search(states, "mcts:30", flat))
    assert outcomes[0] == outcomes[1]
    assert (name != "domino7.yaml") in given
    assert any(isinstance(x, tuple) for x in outcomes[0])  # some searches end
    failed = [x for x in outcomes[0] if isinstance(x, str)]  # and some fail, located
    assert failed
    assert all(f"did not end within {steps} steps" in x for x in failed)


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


@pytest.mark.parametrize("name", ["qwixx.yaml", "domino7.yaml", "levelx.yaml"])
def test_greedy_playouts_on_the_flat_session_are_the_machines(name: str) -> None:
    """`mcts:N:greedy`: each playout move previews every option, on the session too."""
    game = rulekit.load_game(str(GAMES / name))
    states = _positions(game, game.max_players, seed=2, count=3)
    spec = "mcts:25:greedy"
    assert _search(states, spec, True) == _search(states, spec, False)


@pytest.mark.parametrize("path", [p for p in FILES if p.name in
                                  ("qwixx.yaml", "levelx.yaml", "connect-four.yaml",
                                   "cant-stop.yaml", "little-pig.yaml")],
                         ids=lambda p: p.name)
def test_greedy_bots_on_a_session_play_the_machines_games(path: Path) -> None:
    """A greedy bot's previews on a new game are answered by its session (games without
    hidden parts, whose previews deal nothing anew): the same games as on the machine."""
    from rulekit.backends.session import SessionState

    game = rulekit.load_game(str(path))
    bot = bots.GreedyAgent()
    for players in sorted({game.min_players, game.max_players}):
        for seed in range(2):
            games = []
            for machine in (False, True):
                game.__dict__.pop("flat_session", None)
                if machine:
                    game.__dict__["flat_session"] = None
                st = game.new_game(players=players, seed=seed)
                rng = random.Random(seed)
                moves = 0
                while not st.is_over:
                    if st.is_chance:
                        st.resolve_chance()
                    else:
                        st.apply(bot.choose(st, rng))
                        moves += 1
                        if moves == 5 and not machine:  # still on its session
                            assert type(st) is SessionState
                games.append((st.log, st.scores(), st.turn))
                game.__dict__.pop("flat_session", None)
            assert games[0] == games[1], (players, seed)


def test_a_final_score_that_fails_fails_the_search_with_the_machines_message(
        tmp_path: Path) -> None:
    """Domino 7 whose bonus at the end divides by zero: the session leaves the final
    scores to the machine, which fails in the search as it does on the machine."""
    text = (GAMES / "domino7.yaml").read_text()
    bonus = 'bonus: "params.winner_bonus if'
    assert bonus in text
    path = tmp_path / "game.yaml"
    path.write_text(text.replace(bonus, 'bonus: "1 // (turn - turn) if'))
    game = rulekit.load_game(str(path))
    states = _positions(game, 4, seed=1, count=8)[-3:]  # near the end: playouts end it
    flat, machine = _search(states, "mcts:60", True), _search(states, "mcts:60", False)
    assert flat == machine
    assert any(isinstance(x, str) and "ZeroDivisionError" in x for x in flat), flat
