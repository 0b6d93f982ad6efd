"""Hidden information stays hidden: a bot's look-ahead copy depends on its seat's view
only, and `rulekit play` keeps back the seed (which deals every hidden hand) until the
game is over.

Two games are dealt through the public API with imposed deals that look the same to one
seat (its own hand, the same public moves) but differ in everything it cannot see: the
other hands, the stock's order, the game's seed.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from test_cli import run

import rulekit
from rulekit.bots import GreedyAgent
from rulekit.studies.play import derive_seed

ROOT = Path(__file__).resolve().parent.parent
DOMINO7 = ROOT / "games" / "domino7.yaml"
FIVES = ROOT / "games" / "domino-fives.yaml"
QWIXX = ROOT / "games" / "qwixx.yaml"


def names(highest: int) -> list[str]:
    return [f"{a}|{b}" for a in range(highest + 1) for b in range(a, highest + 1)]


def outcome(order: list[str]) -> list[list[int]]:
    """A deal outcome: the hands in seat order, then the stock from its front."""
    return [[int(x) for x in t.split("|")] for t in order]


def hands_with(fixed: list[list[str]], highest: int, size: int) -> list[list[str]]:
    """Hands of `size` tiles that start with the `fixed` ones, the rest filled in set order."""
    named = {t for h in fixed for t in h}
    rest = iter(t for t in names(highest) if t not in named)
    return [h + [next(rest) for _ in range(size - len(h))] for h in fixed]


def dealt(game: rulekit.Game, players: int, seed: int, hands: list[list[str]],
          stock: list[str], moves: list[str]) -> rulekit.State:
    state = game.new_game(players=players, seed=seed)
    state.resolve_chance(outcome([t for h in hands for t in h] + stock))
    for label in moves:
        state.apply(label)
    return state


def domino7_twins() -> tuple[rulekit.State, rulekit.State]:
    """Two Domino 7 positions where seat 0 is to lay, equal in its eyes only.

    Seat 0 opens with 12|12; seats 1, 2 and 3 lay 1|12, 2|12 and 1|3. In the second
    game seats 2 and 3 hold each other's remaining tiles, the stock is reversed, and
    the seed differs.
    """
    g = rulekit.load_game(DOMINO7)
    hands = hands_with([["12|12", "2|3", "0|2", "0|3"], ["1|12"], ["2|12"], ["1|3"]], 12, 18)
    stock = [t for t in names(12) if not any(t in h for h in hands)]
    moves = ["12|12", "1|12 left", "2|12 right", "1|3 left"]
    a = dealt(g, 4, 1, hands, stock, moves)
    swapped = [hands[0], hands[1], hands[2][:1] + hands[3][1:], hands[3][:1] + hands[2][1:]]
    b = dealt(g, 4, 2, swapped, stock[::-1], moves)
    return a, b


def fives_twins() -> tuple[rulekit.State, rulekit.State]:
    """Two Domino Fives positions where seat 0 is to lay, equal in its eyes only: seat 1's
    unplayed tiles are exchanged with tiles of the stock, and the stock is reordered."""
    g = rulekit.load_game(FIVES)
    hands = hands_with([["6|6", "4|5", "0|4", "5|6"], ["4|6"]], 6, 7)
    stock = [t for t in names(6) if not any(t in h for h in hands)]
    moves = ["6|6", "4|6 right"]
    a = dealt(g, 2, 3, hands, stock, moves)
    other = [hands[1][:1] + stock[:6], hands[1][1:] + stock[6:]]
    b = dealt(g, 2, 4, [hands[0], other[0]], other[1][::-1], moves)
    return a, b


TWINS = {"domino7": domino7_twins, "domino-fives": fives_twins}


@pytest.fixture(params=sorted(TWINS))
def twins(request: pytest.FixtureRequest) -> tuple[rulekit.State, rulekit.State]:
    a, b = TWINS[request.param]()
    # the premise: seat 0 sees the same, and it has a real choice; the truth differs
    assert a.current_player == b.current_player == 0
    assert a.view(0) == b.view(0)
    assert len(a.legal_actions()) > 1
    assert a.view()["components"]["hand"] != b.view()["components"]["hand"]
    return a, b


def hidden_tiles(state: rulekit.State, seat: int) -> list[str]:
    hand = state.view()["components"]["hand"]
    return [t for s, h in enumerate(hand["hands"]) if s != seat for t in h["tiles"]] \
        + hand["stock"]["order"]


def test_positions_a_seat_cannot_tell_apart_give_equal_copies(twins) -> None:
    a, b = twins
    ca, cb = a.determinize(0, random.Random(5)), b.determinize(0, random.Random(5))
    assert ca.view() == cb.view()
    assert ca.log == cb.log
    # the copies go on alike: the same random moves and chance outcomes give the same game
    for copy in (ca, cb):
        moves = random.Random(8)
        while not copy.is_over:
            if copy.is_chance:
                copy.resolve_chance()
            else:
                copy.apply(moves.choice(copy.legal_actions()))
    assert ca.view() == cb.view() and ca.log == cb.log and ca.scores() == cb.scores()


def test_the_copy_holds_no_deal_outcome_and_no_seed(twins) -> None:
    a, _ = twins
    copy = a.determinize(0, random.Random(5))
    assert copy.seed is None
    deals = [e for e in copy.log if e.get("chance") == "deal"]
    assert deals and all("outcome" not in e for e in deals)
    # the real deal is still in the real game's log (for its replay), untouched
    assert "outcome" in next(e for e in a.log if e.get("chance") == "deal")
    # what seat 0 sees is kept: its hand and the line
    assert copy.view(0) == a.view(0)


def test_the_copy_is_not_the_true_deal_in_another_order(twins) -> None:
    """Dealt from the unseen tiles in a fixed order: the same rng gives the same copy
    whether the truth is one deal or the other, so the copy says nothing of either."""
    a, b = twins
    copies = [s.determinize(0, random.Random(k)) for s in (a, b) for k in range(3)]
    assert [hidden_tiles(c, 0) for c in copies[:3]] == [hidden_tiles(c, 0) for c in copies[3:]]
    assert sorted(hidden_tiles(copies[0], 0)) == sorted(hidden_tiles(a, 0))


def test_previews_and_the_greedy_bot_decide_alike_on_both(twins) -> None:
    a, b = twins
    labels = [x.label for x in a.legal_actions()]
    assert labels == [x.label for x in b.legal_actions()]
    for label in labels:
        pa, pb = a.preview(label), b.preview(label)
        assert pa.view() == pb.view() and pa.scores() == pb.scores()
        assert pa.view() == a.preview(label).view()  # reproducible for the same position
    bot = GreedyAgent()
    for k in range(5):
        assert bot.choose(a, random.Random(k)).label == bot.choose(b, random.Random(k)).label


def test_a_copy_for_a_seat_that_is_not_deciding_offers_the_imagined_hand(twins) -> None:
    """Another seat is to lay: its legal actions in the real game name its tiles, so the
    copy seat 0 imagines offers what the copy's own hand for that seat gives, and the same
    for positions seat 0 cannot tell apart."""
    copies = []
    for state in twins:
        state.apply(state.legal_actions()[0])
        mover = state.current_player
        assert mover not in (None, 0)
        copy = state.determinize(0, random.Random(5))
        held = copy.view()["components"]["hand"]["hands"][copy.current_player]["tiles"]
        labels = [a.label for a in copy.legal_actions()]
        assert labels and all(label.split()[0] in held for label in labels)
        for label in labels:
            copy.preview(label)  # each can be played in the copy
        copies.append((copy.view(), labels))
    assert copies[0] == copies[1]


def test_a_preview_in_a_copy_reads_the_copy(twins) -> None:
    """A copy made by `determinize` holds nothing hidden that is true: a preview in it
    lays the tile in the copy as it stands (the imagined hands and stock unchanged),
    where a preview of the real game deals what the seat cannot see anew."""
    a, _ = twins
    copy = a.determinize(0, random.Random(5))
    for action in copy.legal_actions():
        seen = copy.preview(action)
        assert hidden_tiles(seen, 0) == hidden_tiles(copy, 0)
        tile = action.label.split()[0]
        assert tile not in seen.view(0)["components"]["hand"]["hands"][0]["tiles"]
        assert tile in copy.view(0)["components"]["hand"]["hands"][0]["tiles"]
    # the real game's preview deals the unseen tiles anew: the same tiles, placed otherwise
    real = a.preview(a.legal_actions()[0])
    assert hidden_tiles(real, 0) != hidden_tiles(a, 0)
    assert sorted(hidden_tiles(real, 0)) == sorted(hidden_tiles(a, 0))


def test_a_preview_does_not_know_the_rolls_to_come() -> None:
    """A preview's copy rolls its own dice: two Level X games that differ only in their
    seed give previews whose next rolls are the same."""
    g = rulekit.load_game(ROOT / "games" / "levelx.yaml")
    rolls = []
    for seed in (1, 2):
        state = g.new_game(players=2, seed=seed)
        state.resolve_chance({"d1": 1, "d2": 2, "d3": 3, "d4": 5})
        copy = state.preview("pass")
        copy.apply("pass")
        rolls.append((copy.resolve_chance(), state))
    (one, a), (other, b) = rolls
    assert one == other
    truths = []
    for state in (a, b):
        state.apply("pass")
        truths.append(state.resolve_chance())
    assert truths[0] != truths[1]  # the games' own dice do differ by their seeds


def rolls(state: rulekit.State, n: int) -> list:
    """The next n roll outcomes of a Level X state, passing every turn."""
    out = []
    while len(out) < n:
        if state.is_chance:
            out.append(state.resolve_chance())
        else:
            state.apply("pass")
    return out


def test_a_copy_rolls_from_its_own_rng_made_at_its_first_roll() -> None:
    """A preview's copy rolls as a Random(0) would, and a determinized copy as a Random
    seeded from the bot's rng; a clone of such a copy, made before or after its first
    roll, rolls on as the copy does. The copies make their RNG only when they first roll,
    which a preview seldom does."""
    g = rulekit.load_game(ROOT / "games" / "levelx.yaml")
    state = g.new_game(players=2, seed=3)
    state.resolve_chance({"d1": 1, "d2": 2, "d3": 3, "d4": 5})
    preview = state.preview("pass")
    early, explicit = preview.clone(), preview.clone()
    explicit.rng = random.Random(0)
    assert rolls(preview, 6) == rolls(explicit, 6) == rolls(early, 6)
    late = preview.clone()
    assert rolls(late, 4) == rolls(preview, 4)
    # Level X hides nothing: the copy's seed is the first draw from the bot's rng
    imagined = state.determinize(0, random.Random(9))
    before, seeded = imagined.clone(), imagined.clone()
    seeded.rng = random.Random(random.Random(9).getrandbits(64))
    assert rolls(imagined, 6) == rolls(seeded, 6) == rolls(before, 6)
    assert rolls(imagined.clone(), 3) == rolls(imagined, 3)
    # random play in a copy draws from the copy's RNG too, and a clone of it plays alike
    a = state.determinize(0, random.Random(4))
    c, d = a.clone(), a.clone()
    d.rng = random.Random(random.Random(4).getrandbits(64))
    for copy in (a, c, d):
        copy.playout(random.Random(1))
    assert a.log == c.log == d.log and a.scores() == c.scores() == d.scores()


def test_the_copy_of_a_seat_holds_its_log_as_it_grows() -> None:
    """A determinized copy holds the log as its seat may read it (a deal without its
    outcome, no private line to another seat), at every move of a game: kept per seat
    and extended as the log grows, it is the log read afresh."""
    state = rulekit.load_game(DOMINO7).new_game(players=4, seed=6)
    moves = random.Random(2)
    seen_private = 0
    for _ in range(60):
        if state.is_over:
            break
        if state.is_chance:
            state.resolve_chance()
            continue
        for seat in range(4):
            fresh = [{"chance": e["chance"]} if e.get("chance") == "deal" else e
                     for e in state.log if e.get("to", seat) == seat]
            assert state.log_for(seat) == fresh
            assert state.determinize(seat, random.Random(seat)).log == fresh
        seen_private += sum(1 for e in state.log if "to" in e)
        state.apply(moves.choice(state.legal_actions()))
    assert seen_private > 0  # some seat drew a tile, which only it was told


def test_a_preview_is_not_seeded_by_the_game_seed() -> None:
    """The same position dealt under two seeds previews the same way."""
    g = rulekit.load_game(FIVES)
    hands = hands_with([["6|6", "4|5", "0|4", "5|6"], ["4|6"]], 6, 7)
    stock = [t for t in names(6) if not any(t in h for h in hands)]
    a = dealt(g, 2, 10, hands, stock, ["6|6", "4|6 right"])
    b = dealt(g, 2, 11, hands, stock, ["6|6", "4|6 right"])
    assert a.view() == b.view() and a.seed != b.seed
    for action in a.legal_actions():
        assert a.preview(action.label).view() == b.preview(action.label).view()


# ---- the seed in `rulekit play` ----------------------------------------------------------------


def shows(seed: int, text: str) -> bool:
    return re.search(rf"(?<!\d){seed}(?!\d)", text) is not None


def test_play_keeps_back_the_seed_of_a_hidden_game_until_it_is_over(tmp_path: Path) -> None:
    log = tmp_path / "fives.jsonl"
    args = ["play", str(FIVES), "--seed", "1", "--log", str(log)]
    # enough input for level 1 (which this seed passes) and one answer in level 2
    answers = run(*args, input="a\n" * 400).output.split("game over after ")[0].count("\n> ")
    out = run(*args, input="a\n" * (answers + 1)).output
    first, second = derive_seed(1, "level", 1), derive_seed(1, "level", 2)
    assert out.count("game over after ") == 1 and "the series stops at level 2" in out
    during, after = out.split("game over after ")
    assert "seed" not in during and not shows(first, during)
    assert re.search(rf"^seed {first}$", after, re.M)
    # level 2 is not over: its seed is never shown, but the log keeps it for the replay
    assert not shows(second, out)
    assert json.loads(log.read_text().splitlines()[0])["seed"] == second


def test_play_keeps_back_the_seed_when_the_person_quits(tmp_path: Path) -> None:
    out = run("play", str(DOMINO7), "--seed", "4242", input="1\nquit\n").output
    assert "you quit" in out
    assert not shows(4242, out) and not shows(derive_seed(4242, "level", 1), out)


def test_a_game_without_hidden_parts_still_shows_its_seed_at_the_start() -> None:
    out = run("play", str(QWIXX), "--bots", "random", "--seed", "4242", input="pass\n").output
    assert "; seed 4242" in out.splitlines()[0]


def test_choices_made_in_a_window_are_hidden_from_the_copies_of_later_seats() -> None:
    # everyone decides the white sum at once: seat 1 must not learn what seat 0 chose
    game = rulekit.load_game(QWIXX)

    def after(choice: str) -> rulekit.State:
        state = game.new_game(players=3, seed=1)
        state.resolve_chance({"white1": 3, "white2": 4, "red": 6, "yellow": 1, "green": 2,
                              "blue": 5})
        state.apply(choice)
        assert state.current_player == 1
        return state

    crossed, passed = after("red 7"), after("pass")
    assert crossed.view(1) == passed.view(1)
    copies = [s.determinize(1, random.Random(5)) for s in (crossed, passed)]
    assert copies[0].log == copies[1].log
    for copy in copies:  # the window resolves alike in both copies
        copy.apply("pass")
        copy.apply("pass")
    assert copies[0].view(None) == copies[1].view(None)
    # the real game is untouched: seat 0's cross is still its choice
    assert crossed.log[-1] == {"seat": 0, "action": "red 7"}


# ---- the log a seat reads while a window is open ------------------------------------------------
WHITE_SIX = {"white1": 3, "white2": 3, "red": 1, "yellow": 2, "green": 5, "blue": 4}


def window_open() -> rulekit.State:
    """Qwixx, 3 players, the white dice show 6: seat 0 has crossed green 6, seat 1 decides."""
    state = rulekit.load_game(QWIXX).new_game(players=3, seed=1)
    state.resolve_chance(WHITE_SIX)
    state.apply("green 6")
    assert state.current_player == 1
    return state


def test_log_for_masks_what_others_chose_until_the_window_resolves() -> None:
    """Before, `log_for(1)` told seat 1 that seat 0 crossed green 6 while seat 1 still had
    to decide; only callers that also read `hidden_choices` kept it back."""
    state = window_open()
    hidden = {"seat": 0, "hidden": True}
    for seat in (1, 2):
        assert state.log_for(seat)[-1] == hidden
        assert "green 6" not in json.dumps(state.log_for(seat))
    assert state.log_for(0)[-1] == {"seat": 0, "action": "green 6"}  # its own choice
    assert state.log_for(None)[-1] == {"seat": 0, "action": "green 6"}  # an observer's
    state.apply("red 6")
    assert state.log_for(1)[-2:] == [hidden, {"seat": 1, "action": "red 6"}]
    assert state.log_for(2)[-2:] == [hidden, {"seat": 1, "hidden": True}]
    assert state.log_for(0)[-1] == {"seat": 1, "hidden": True}
    # the last seat decides, the window resolves: every choice shows, to every seat,
    # though each seat's log was read (and kept) while it was open
    state.apply("pass")
    told = [{"seat": 0, "action": "green 6"}, {"seat": 1, "action": "red 6"},
            {"seat": 2, "action": "pass"}]
    for seat in (None, 0, 1, 2):
        assert state.log_for(seat)[1:4] == told
    # what a person is shown says the same: chosen, and shown when everyone has
    from rulekit.terminal import describe_entry

    assert describe_entry(hidden, lambda p: f"player {p}", frozenset()) == (
        "player 0: has chosen (shown when everyone has)")


def test_log_for_is_the_log_read_afresh_at_every_move_of_bots_games() -> None:
    """Kept per seat and extended as the log grows, it equals the log with the choices
    `hidden_choices` names masked, at every decision of a few games."""
    game = rulekit.load_game(QWIXX)
    windows = 0
    for seed in range(3):
        state = game.new_game(players=3, seed=seed)
        moves = random.Random(seed)
        while not state.is_over:
            if state.is_chance:
                state.resolve_chance()
                continue
            for seat in range(3):
                masked = set(state.hidden_choices(seat))
                windows += bool(masked)
                fresh = [{"seat": e["seat"], "hidden": True} if i in masked else e
                         for i, e in enumerate(state.log)]
                assert state.log_for(seat) == fresh
            state.apply(moves.choice(state.legal_actions()))
    assert windows > 0


def test_a_search_bot_still_decides_in_a_window_and_its_games_replay(tmp_path: Path) -> None:
    state = window_open()
    copy = state.determinize(1, random.Random(3))
    # the copy holds an imagined choice of seat 0 (no mask), so its window plays on
    assert "action" in copy.log[-1] and copy.log[-1]["seat"] == 0
    assert not any(e.get("hidden") for e in copy.log + copy.log_for(1))
    copy.apply("pass")
    copy.apply("pass")
    copy.playout(random.Random(1))
    assert copy.is_over
    bot = rulekit.bots.make("mcts:30", seed=1)
    assert bot.choose(state).label in {a.label for a in state.legal_actions()}
    # a whole game of search bots, logged and replayed move for move
    log = tmp_path / "game.jsonl"
    played = run("play", str(QWIXX), "--auto", "--bots", "mcts:10", "--seed", "4",
                 "--log", str(log))
    assert played.exit_code == 0, played.output
    replayed = run("replay", str(log), "--game", str(QWIXX))
    assert replayed.exit_code == 0, replayed.output
