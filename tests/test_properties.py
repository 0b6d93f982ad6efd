"""Properties every shipped game keeps, over random games (hypothesis picks seeds)."""

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulekit

ROOT = Path(__file__).resolve().parent.parent
GAME_FILES = sorted(p for p in (ROOT / "games").rglob("*.yaml") if ".tests." not in p.name)
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


def decision_points(game, seed):
    """A random game of a random size, paused before each decision; the state last."""
    rng = random.Random(seed)
    state = game.new_game(players=seats(game, rng), seed=seed)
    while not state.is_over:
        if state.is_chance:
            state.resolve_chance()
            continue
        yield state
        state.apply(rng.choice(state.legal_actions()))
    yield state


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
    for state in decision_points(game_of(path), seed):
        if state.is_over:
            break
        labels = [a.label for a in state.legal_actions()]
        assert labels and len(set(labels)) == len(labels)
        before = state.view()
        with pytest.raises(rulekit.IllegalActionError):
            state.apply("no such move")
        assert state.view() == before
    assert len(state.scores()) == state.view()["players"]
    assert set(state.winners()) <= set(range(state.view()["players"]))


# ---- conservation: tokens, tiles, items and pawns move, they never appear or vanish --------------
def sizes(state):
    """The conserved counts of all components, added up by what they count."""
    total = Counter()
    for kind in state.game.components:
        total.update(kind.state_size(state))
    return dict(total)


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_tokens_and_tiles_are_conserved(path, seed):
    first = None
    for state in decision_points(game_of(path), seed):
        if first is None:  # the setup is over: what was dealt is in the game from now on
            first = sizes(state)
        assert sizes(state) == first


def test_the_conserved_totals_are_those_the_rules_give(root):
    levelx = game_of(root / "games" / "levelx.yaml")
    for n in (2, 3, 4):
        chips = levelx.params["chips_four_players" if n == 4 else "chips_two_three_players"]
        assert sizes(levelx.new_game(players=n, seed=1)) == {
            "tokens": sum(chips), "items": len(levelx.params["bonus_tiles"]), "pawns": 6 * n}
    domino = game_of(root / "games" / "domino7.yaml")
    state = domino.new_game(players=4, seed=1)
    state.resolve_chance()  # the deal
    assert sizes(state) == {"tiles": 13 * 14 // 2}


# ---- scores: recomputed from what `view()` shows, independently of the engine ------------------
#: the last cell of each Qwixx row: crossing it locks the row, and the lock is one more cross
QWIXX_LAST = {"red": 12, "yellow": 12, "green": 2, "blue": 2}


def qwixx_scores(game, view):
    params = game.params
    out = []
    for seat, rows in enumerate(view["components"]["sheet"]["sheets"]):
        total = 0
        for name, row in rows.items():
            crosses = len(row["crossed"]) + (1 if QWIXX_LAST[name] in row["crossed"] else 0)
            total += params["row_scores"][crosses]
        out.append(total - params["penalty_points"] * view["player_vars"][seat]["penalties"])
    return out


def levelx_scores(game, view):
    won = view["components"]["won"]
    held = view["components"]["bonus"]["held"]
    return [sum(k * c for k, c in zip(won["keys"], counts)) + sum(held[seat])
            for seat, counts in enumerate(won["counts"])]


def domino_scores(game, view):
    params = game.params
    hands = view["components"]["hand"]["hands"]
    line = view["components"]["line"]["line"]
    pips = [sum(int(x) for t in h["tiles"] for x in t.split("|")) for h in hands]
    out = bool(line) and any(h["count"] == 0 for h in hands)
    blocked = view["vars"]["passes"] >= view["players"]
    finished = out or blocked
    results = [v["points"] - (pips[s] if finished else 0)
               for s, v in enumerate(view["player_vars"])]
    best = max(results)
    return [r + (params["winner_bonus"] if finished and r == best else 0) for r in results]


def connect_four_scores(game, view):
    rows = view["components"]["board"]["rows"]
    k = game.params["line"]

    def has_line(piece):
        cells = {(r, c) for r, row in enumerate(rows) for c, x in enumerate(row) if x == piece}
        return any(all((r + i * dr, c + i * dc) in cells for i in range(k))
                   for r, c in cells for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)))

    won = [has_line("x"), has_line("o")]
    return [1 if w else -1 if any(won) else 0 for w in won]


def oh_hell_scores(game, view):
    return [v["points"] for v in view["player_vars"]]  # the deals' points, added up


def pig_scores(game, view):
    banked = [v["points"] for v in view["player_vars"]]
    won = [b >= game.params["winscore"] for b in banked]
    if not any(won):
        return [0] * len(banked)
    return [1 if w else -1 / (len(banked) - 1) for w in won]


def little_pig_scores(game, view):
    return [v["banked"] for v in view["player_vars"]]


def yacht_scores(game, view):
    sheets = [[v for k, v in p.items() if k != "rolls"] for p in view["player_vars"]]
    totals = [sum(v for v in sheet if v > 0) for sheet in sheets]
    if not all(v >= 0 for sheet in sheets for v in sheet):
        return totals
    best, n = max(totals), len(totals)
    leaders = totals.count(best)
    if leaders == n:
        return [0] * n
    return [1 / leaders if t == best else -1 / (n - leaders) for t in totals]


def liars_dice_scores(game, view):
    winner, loser = view["vars"]["winner"], view["vars"]["loser"]
    return [1 if s == winner else -1 if s == loser else 0 for s in range(view["players"])]


def cant_stop_scores(game, view):
    board = view["components"]["board"]
    return [sum(f == n for f, n in zip(row, board["lengths"])) for row in board["positions"]]


RECOMPUTE = {"qwixx": qwixx_scores, "levelx": levelx_scores, "domino": domino_scores,
             "connect-four": connect_four_scores, "oh-hell": oh_hell_scores,
             "pig": pig_scores, "yacht": yacht_scores, "liars-dice": liars_dice_scores,
             "cant-stop": cant_stop_scores, "little-pig": little_pig_scores}


def recompute(path, game, view):
    family = next(k for k in RECOMPUTE if path.stem.startswith(k))
    return RECOMPUTE[family](game, view)


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_scores_equal_a_recomputation_from_the_view(path, seed):
    game = game_of(path)
    for state in decision_points(game, seed):
        assert state.scores() == recompute(path, game, state.view())


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_scores_stay_within_the_declared_bounds(path, seed):
    game = game_of(path)
    rng = random.Random(seed)
    n = seats(game, rng)
    lo, hi = game.score_bounds[n]
    state = play(game.new_game(players=n, seed=seed), rng)
    assert all(lo <= x <= hi for x in state.scores())


# ---- clones: a copy and its original never share anything mutable -----------------------------
@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
@SETTINGS
@given(seed=st.integers(0, 10**6), depth=st.integers(0, 40))
def test_the_original_plays_on_without_touching_its_clone(path, seed, depth):
    game = game_of(path)
    rng = random.Random(seed)
    state = play(game.new_game(players=seats(game, rng), seed=seed), rng, until=depth)
    copy = state.clone()
    before, log, counts = copy.view(), list(copy.log), sizes(copy)
    play(state, random.Random(seed + 3))
    assert copy.view() == before and copy.log == log and sizes(copy) == counts
    # and the copy still plays a whole game of its own
    play(copy, random.Random(seed + 4))
    assert copy.is_over and len(copy.scores()) == copy.view()["players"]
