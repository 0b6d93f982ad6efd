"""A new game played through the public API runs on the flat backend's session and is the
machine's game: the same decisions, labels, chance outcomes, log, scores and failures.

Every game the flat backend covers is played by the loop of `legal_actions()`, `apply()`
and `resolve_chance()` from the same seeds twice, on its session and on the machine (the
session set aside), move by move; then games that leave the session half-way (a view, a
copy, the log, an imposed outcome, an illegal move) go on as the machine's do.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulekit
from rulekit.backends.session import SessionState
from rulekit.errors import IllegalActionError, RulekitError

GAMES = Path(__file__).resolve().parent.parent / "games"
FILES = sorted(p for p in [*GAMES.glob("*.yaml"), *GAMES.glob("examples/*.yaml")]
               if not p.name.endswith(".tests.yaml"))


def _loop(st: rulekit.State, rng: random.Random, moves: int = -1, by_label: bool = False
          ) -> list:
    """The API loop for `moves` moves (-1: to the end): what each step showed."""
    seen = []
    while not st.is_over and moves != 0:
        moves -= 1
        if st.is_chance:
            seen.append(("chance", st.current_player, st.resolve_chance()))
            continue
        actions = st.legal_actions()
        pick = rng.choice(actions)
        seen.append((st.current_player, [(a.label, a.seat) for a in actions], pick.label))
        st.apply(pick.label if by_label else pick)
    return seen


def _end(st: rulekit.State) -> tuple:
    return (st.log, st.scores(), st.turn, st.round, st.active, st.over, st.end_reason,
            [dict(p) for p in st.pvars], dict(st.gvars), repr(st.comps))


def _machine(game: rulekit.Game) -> None:
    game.__dict__["flat_session"] = None


def _both(game: rulekit.Game, players: int, seed: int, then=None, moves: int = -1,
          by_label: bool = False) -> tuple[tuple, tuple, bool]:
    """A game from `seed` on the session and on the machine; `then(state)` after `moves`
    moves, and the loop on to the end. Whether the first was a session's."""
    out = []
    sessions = []
    for machine in (False, True):
        game.__dict__.pop("flat_session", None)
        if machine:
            _machine(game)
        try:
            st = game.new_game(players=players, seed=seed)
            rng = random.Random(seed + 11)
            seen = _loop(st, rng, moves, by_label)
            sessions.append(type(st) is SessionState)
            if then is not None:
                seen.append(then(st))
            seen += _loop(st, rng, -1, by_label)
            out.append((seen, _end(st)))
        finally:
            game.__dict__.pop("flat_session", None)
    return out[0], out[1], sessions[0]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_api_loop_on_a_session_is_the_machines_game(path: Path) -> None:
    game = rulekit.load_game(str(path))
    if game.flat_session is None:
        assert game.flat is None  # every game the flat backend covers has a session
        return
    for players in range(game.min_players, game.max_players + 1):
        # a session begins where the flat play can begin: a new game of the shipped games
        # (not one whose setup has more chance steps than a last deal, as Liar's Dice)
        begins = game.flat_session.entry(game.new_game(players=players, seed=0), False)
        assert begins is not None or path.parent.name == "examples"
        for seed in range(4):
            session, machine, on = _both(game, players, seed, moves=3, by_label=seed % 2 == 1)
            assert on == (begins is not None), (players, seed)  # three moves in
            assert session == machine, (players, seed)


@pytest.mark.parametrize("name", ["qwixx.yaml", "levelx.yaml", "domino7.yaml"])
@pytest.mark.parametrize("leave", ["log", "view", "clone", "scores", "title"])
def test_a_game_that_leaves_its_session_half_way_is_the_machines(name: str, leave: str) -> None:
    """Whatever else reads the state (the log, a seat's view, a copy, the scores, the
    decision's title) makes it the machine's at once, with the moves made so far, and the
    game goes on as the machine's."""
    game = rulekit.load_game(str(GAMES / name))
    reads = {"log": lambda st: list(st.log), "view": lambda st: repr(st.view(0)),
             "clone": lambda st: _end(st.clone()), "scores": lambda st: st.scores(),
             "title": lambda st: st.decision_title() if not st.is_chance else None}
    for seed in range(3):
        for moves in (1, 7, 25):
            session, machine, _on = _both(game, game.max_players, seed, reads[leave], moves)
            assert session == machine, (seed, moves)


def test_an_illegal_move_is_refused_as_the_machine_refuses_it() -> None:
    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    messages = []
    for machine in (False, True):
        game.__dict__.pop("flat_session", None)
        if machine:
            _machine(game)
        st = game.new_game(players=3, seed=4)
        st.resolve_chance()
        with pytest.raises(IllegalActionError) as exc:
            st.apply("purple 7")
        messages.append(str(exc.value))
        st.apply(st.legal_actions()[-1])  # and the game goes on
        messages.append(st.current_player)
    game.__dict__.pop("flat_session", None)
    assert messages[0] == messages[2] and "'purple 7' is not a legal action" in messages[0]
    assert messages[1] == messages[3]


def test_an_imposed_roll_leaves_the_session_and_is_played() -> None:
    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    st = game.new_game(players=3, seed=2)
    assert type(st) is SessionState
    faces = {"white1": 6, "white2": 6, "red": 1, "yellow": 2, "green": 3, "blue": 4}
    assert st.resolve_chance(faces) == faces
    assert type(st) is rulekit.State
    assert "green 12" in [a.label for a in st.legal_actions()]


def test_a_game_that_runs_out_of_steps_fails_with_the_machines_message() -> None:
    """A budget the session might exhaust hands the game to the machine, which fails with
    its own located message, at the same move."""
    failures = []
    for machine in (False, True):
        game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
        game.max_steps = 40
        if machine:
            _machine(game)
        st = game.new_game(players=3, seed=1)
        rng = random.Random(3)
        made = 0
        with pytest.raises(RulekitError) as exc:
            while True:
                made += 1
                if st.is_chance:
                    st.resolve_chance()
                else:
                    st.apply(rng.choice(st.legal_actions()))
        failures.append((made, str(exc.value), st.log))
    assert failures[0] == failures[1]
    assert "did not end within 40 steps" in failures[0][1]


def test_a_wrong_comparison_in_the_sessions_module_is_caught() -> None:
    """The check above fails on a session written one comparison wrong (a number that
    may be crossed again): it offers other actions than the machine does."""
    from rulekit.backends import flat

    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    made = game.flat_session
    assert "> x1last[" in made.source
    wrong = flat.load(game, made.source.replace("> x1last[", ">= x1last["), made.consts,
                      made.entries, made.decisions, made.setup)
    caught = 0
    for seed in range(4):
        game.__dict__["flat_session"] = wrong
        try:
            st = game.new_game(players=3, seed=seed)
            seen = _loop(st, random.Random(seed))
        finally:
            game.__dict__.pop("flat_session", None)
        _machine(game)
        try:
            again = game.new_game(players=3, seed=seed)
            caught += seen != _loop(again, random.Random(seed))
        finally:
            game.__dict__.pop("flat_session", None)
    assert caught


@pytest.mark.parametrize("name", ["PHASES", "MAPPED"])
def test_phases_chosen_turns_and_maps_on_a_session_are_the_machines(tmp_path: Path,
                                                                    name: str) -> None:
    """The flat tests' games of two phases with chosen next players, and of maps, played
    by the API loop on their sessions: the machine's games, move by move."""
    from tests import test_flat

    path = tmp_path / "game.yaml"
    path.write_text(getattr(test_flat, name))
    game = rulekit.load_game(str(path))
    assert game.flat_session is not None
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(4):
            session, machine, on = _both(game, players, seed, moves=3, by_label=seed % 2 == 1)
            assert on, (players, seed)
            assert session == machine, (players, seed)
        st = game.new_game(players=players, seed=9)
        rng = random.Random(9)
        while not st.is_over:
            if st.is_chance:
                st.resolve_chance()
            else:
                st.apply(rng.choice(st.legal_actions()))
        assert st._unlogged is not None  # the session played it to its end


def test_a_deal_that_cannot_fit_fails_at_the_call_the_machine_fails_at(tmp_path: Path) -> None:
    """A deal of more cards than the deck has: the session hands the game to the machine
    before drawing, and the same `resolve_chance()` call fails with the machine's message."""
    from test_flat import DECK_GAME

    path = tmp_path / "broken.yaml"
    path.write_text(DECK_GAME.replace('count: "2 + turn % 2"', 'count: "2 + turn"'))
    failures = []
    for machine in (False, True):
        game = rulekit.load_game(str(path))
        if machine:
            _machine(game)
        st = game.new_game(players=4, seed=4)
        rng = random.Random(9)
        calls = 0
        with pytest.raises(RulekitError) as exc:
            while True:
                calls += 1
                if st.is_chance:
                    st.resolve_chance()
                else:
                    st.apply(rng.choice(st.legal_actions()))
        failures.append((calls, str(exc.value), st.log))
    assert failures[0] == failures[1]
    assert "do not fit a deck" in failures[0][1]


def test_a_session_that_begins_in_a_window_logs_the_machines_game(tmp_path: Path) -> None:
    """Qwixx with the white sum asked before the roll: a new game's first pause is a
    `together` window, where its session begins; the log, replayed from the copy made
    there, is the machine's, and every turn's window begins with no choice made."""
    text = (GAMES / "qwixx.yaml").read_text()
    turn = "  turn:\n    - roll: dice\n    - run: white_sum\n"
    assert turn in text
    path = tmp_path / "game.yaml"
    path.write_text(text.replace(turn, "  turn:\n    - run: white_sum\n    - roll: dice\n"))
    game = rulekit.load_game(str(path))
    for seed in range(3):
        st = game.new_game(players=3, seed=seed)
        assert game.flat_session.entry(st, False) is not None  # it begins in the window
        session, machine, on = _both(game, 3, seed, moves=4, by_label=seed == 1)
        assert on
        assert session == machine, seed
