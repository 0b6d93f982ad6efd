"""The deck kind through Oh Hell (games/examples/oh-hell.yaml): scripted deals through the
public API test the rules of a trick; hidden hands stay hidden from view(seat) and from
what determinize lets a bot imagine."""

import random
from pathlib import Path

import pytest

import rulekit
from rulekit.errors import ChanceError, GameFileError
from tests.conftest import GAMES
from tests.test_cli import run

FILE = GAMES / "examples" / "oh-hell.yaml"
SUITS, RANKS = "CDHS", "23456789TJQKA"
DECK = [r + s for s in SUITS for r in RANKS]


def deal(*hands: list[str], up: str | None = None) -> list[str]:
    """A whole deck in dealing order: the hands seat by seat, then the card turned up."""
    first = [c for h in hands for c in h] + ([up] if up else [])
    return first + [c for c in DECK if c not in first]


@pytest.fixture(scope="module")
def two_cards() -> rulekit.Game:
    """One deal of two cards each."""
    return rulekit.load_game(FILE, overrides={"hands": [2]})


def labels(state: rulekit.State) -> list[str]:
    return [a.label for a in state.legal_actions()]


def test_suit_is_followed_a_trump_wins_and_the_winner_leads(two_cards: rulekit.Game) -> None:
    state = two_cards.new_game(players=3, seed=0)
    state.resolve_chance(deal(["AS", "2H"], ["KS", "3S"], ["4H", "5D"], up="7H"))
    assert state.view(0)["components"]["cards"]["up"]["cards"] == ["7H"]
    # bids from the dealer's left; the dealer (seat 0) may not make them add up to 2
    assert state.current_player == 1
    state.apply("bid 1")
    state.apply("bid 1")
    assert state.current_player == 0 and labels(state) == ["bid 1", "bid 2"]
    state.apply("bid 1")
    # the dealer's left leads; a player without spades may play any card
    assert state.current_player == 1 and labels(state) == ["3S", "KS"]
    state.apply("KS")
    assert labels(state) == ["5D", "4H"]
    state.apply("4H")
    # seat 0 must follow with its only spade (played by itself); the trump 4H takes the
    # trick, so seat 2 leads 5D, which seat 0 trumps with 2H: one trick each for 0 and 2
    assert state.is_over
    assert [p["tricks"] for p in state.view()["player_vars"]] == [1, 0, 1]
    assert state.scores() == [11, 0, 11]  # exact bids score 10 plus a point a trick
    said = [e["say"] for e in state.log if "say" in e]
    assert "player 2 takes the trick (KS 4H AS) with 4H" in said
    assert "player 0 takes the trick (5D 2H 3S) with 2H" in said


def test_without_trumps_the_highest_card_of_the_suit_led_wins() -> None:
    game = rulekit.load_game(FILE, overrides={"hands": [13]})
    state = game.new_game(players=4, seed=0)
    hands = [[r + s for r in "23456789TJQKA"] for s in "CDHS"]
    hands[1][0], hands[2][0] = "2H", "2D"  # seats 1 and 2 swap their lowest cards
    state.resolve_chance(deal(*hands))
    assert state.view()["components"]["cards"]["up"]["count"] == 0  # no card is left
    for _ in range(4):
        state.apply(labels(state)[0])
    # seat 1 leads 2H; seat 2 must follow with a heart; seats 3 and 0 have none
    state.apply("2H")
    assert labels(state) == [r + "H" for r in RANKS[1:]]
    state.apply("AH")
    assert len(labels(state)) == 13  # any spade
    state.apply("AS")
    state.apply("AC")
    assert "player 2 takes the trick (2H AH AS AC) with AH" in [e.get("say") for e in state.log]
    assert state.current_player == 2


def test_hidden_hands_stay_hidden_and_determinize_redeals_only_them() -> None:
    game = rulekit.load_game(FILE, overrides={"hands": [5]})
    a = game.new_game(players=3, seed=0)
    hands = [DECK[0:5], DECK[5:10], DECK[10:15]]
    a.resolve_chance(deal(*hands, up="AS"))
    cards = a.view(0)["components"]["cards"]
    assert cards["hand"][0] == {"count": 5, "cards": DECK[0:5]}
    assert cards["hand"][1] == {"count": 5} and cards["stock"] == {"count": 36}
    assert "2C" not in a.render(1) and "hand: 5 cards (hidden)" in a.render(1)
    # a position seat 0 cannot tell apart: seats 1 and 2 hold each other's cards
    b = game.new_game(players=3, seed=99)
    b.resolve_chance(deal(hands[0], hands[2], hands[1], up="AS"))
    ca = a.determinize(0, random.Random(5)).view()
    cb = b.determinize(0, random.Random(5)).view()
    assert ca["components"] == cb["components"]
    mine = ca["components"]["cards"]
    assert mine["hand"][0]["cards"] == DECK[0:5] and mine["up"]["cards"] == ["AS"]
    assert mine["hand"][1]["cards"] != hands[1]  # drawn anew from the unseen cards
    unseen = mine["hand"][1]["cards"] + mine["hand"][2]["cards"] + mine["stock"]["cards"]
    assert sorted(unseen) == sorted(set(DECK) - set(DECK[0:5]) - {"AS"})


def test_an_impossible_deal_is_refused_and_changes_nothing(two_cards: rulekit.Game) -> None:
    state = two_cards.new_game(players=3, seed=0)
    for outcome, why in [(DECK[:-1], "the whole deck in dealing order: 52 card names"),
                         (["2C"] + DECK[:-1], "2C is dealt twice"),
                         (["1X"] + DECK[1:], "'1X' is not a card of the deck")]:
        with pytest.raises(ChanceError, match=why):
            state.resolve_chance(outcome)
    assert state.is_chance


def test_oh_hell_plays_in_the_terminal_and_validates() -> None:
    result = run("play", str(FILE), "--players", "3", "--bots", "random", "--seed", "4",
                 "--level", "2", "--set", "hands=[2, 1]", input="#1\n" * 40)
    assert result.exit_code == 0, result.output
    assert "your hand:" in result.output and "hand: 2 cards (hidden)" in result.output
    assert "game over after 2 turns: all 2 deals are played" in result.output
    result = run("validate", "--simulate", "10", str(FILE))
    assert result.exit_code == 0, result.output


DECK_FILE = """\
rulekit: 1
name: Cards
players: {min: 2, max: 4}
components:
  cards:
    kind: deck
    suits: [C, D, H, S]
    ranks: [7, 8, 9, 10]
    zones:
      stock: {seen_by: nobody}
      hand: {per: player, seen_by: owner}
    deal: {to: hand, count: 5, rest: stock}
flow:
  setup: [{deal: cards}]
  turn:
    - choose:
        options:
          - for: "c in player.cards.hand.cards"
            label: "{c}"
            do: [{move_card: {from: player.cards.hand, card: c, to: cards.stock}}]
end: {when: "turn >= 2"}
score: 0
"""


@pytest.mark.parametrize("old, new, message", [
    ("count: 5", "count: 5", "4 hands of 5 cards do not fit a deck of 16 cards"),
    ("stock: {seen_by: nobody}", "stock: {seen_by: owner}", "only a player's zone has an owner"),
    ("ranks: [7, 8, 9, 10]", "ranks: [7, 8, 7]", "ranks need distinct names"),
    ("ranks: [7, 8, 9, 10]", "ranks: [7, 8, J]", "ranks must be all names or all whole numbers"),
    ("rest: stock", "rest: hand", "the deal's `rest` must be a game-wide zone"),
    ("stock: {seen_by: nobody}", "all: {seen_by: nobody}", "'all' cannot name a zone"),
    ("ranks: [7, 8, 9, 10]", "ranks: range(1000)",
     "4 suits of 1000 ranks make more than the 1000 cards a deck may have"),
])
def test_mistakes_in_a_deck_are_located(tmp_path: Path, old: str, new: str,
                                        message: str) -> None:
    path = tmp_path / "cards.yaml"
    text = DECK_FILE.replace(old, new)
    path.write_text(text)
    with pytest.raises(GameFileError) as err:
        rulekit.load_game(path)
    assert message in str(err.value)
    assert f"cards.yaml:{next(i for i, t in enumerate(text.splitlines(), 1) if new in t)}:" \
        in str(err.value)


def test_a_small_deck_deals_and_plays(tmp_path: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(DECK_FILE.replace("max: 4", "max: 3"))
    state = rulekit.load_game(path).new_game(players=3, seed=1)
    state.resolve_chance([f"{r}{s}" for s in "SHDC" for r in (10, 9, 8, 7)])
    # an unsorted hand keeps the dealing order; ranks may be numbers
    assert labels(state) == ["10S", "9S", "8S", "7S", "10H"]


def test_the_draw_pile_is_shuffled_as_a_chance_step(tmp_path: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(DECK_FILE.replace("max: 4", "max: 2").replace(
        "to: cards.stock}}]", "to: cards.stock}}]\n    - shuffle: cards"))
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance([f"{r}{s}" for s in "SHDC" for r in (10, 9, 8, 7)])
    state.apply("10S")
    assert state.is_chance
    stock = state.view()["components"]["cards"]["stock"]["cards"]
    assert stock == ["8D", "7D", "10C", "9C", "8C", "7C", "10S"]
    with pytest.raises(ChanceError, match="a shuffle holds exactly the cards of stock"):
        state.resolve_chance(["AS"] + stock[1:])
    state.resolve_chance(stock[::-1])
    assert state.view()["components"]["cards"]["stock"]["cards"] == stock[::-1]
    assert state.view(0)["components"]["cards"]["stock"] == {"count": 7}


def test_a_32_card_deck_is_a_param_away() -> None:
    game = rulekit.load_game(FILE, overrides={"ranks": list("789TJQKA"), "hands": [10]})
    state = game.new_game(players=3, seed=3)
    state.resolve_chance()
    cards = state.view()["components"]["cards"]
    assert [h["count"] for h in cards["hand"]] == [10, 10, 10]
    assert cards["stock"]["count"] == 1 and cards["up"]["count"] == 1
    assert not any(c.startswith(("2", "6")) for h in cards["hand"] for c in h["cards"])


def test_the_example_games_pass_their_scenarios() -> None:
    result = run("test", str(GAMES / "examples"))
    assert result.exit_code == 0, result.output
    assert "6 scenarios: 6 passed, 0 failed" in result.output


def test_a_deal_written_by_hands_names_cards_of_the_deck(tmp_path: Path) -> None:
    (tmp_path / "oh-hell.yaml").write_text(FILE.read_text())
    (tmp_path / "oh-hell.tests.yaml").write_text(
        "scenarios:\n  bad card:\n    params: {hands: [1]}\n    steps:\n"
        "      - deal: {hands: [[AS], [1X], [2C]]}\n")
    result = run("test", str(tmp_path))
    assert result.exit_code == 1
    assert ('oh-hell.tests.yaml:5:15: scenario bad card: "1X" is not a card of the deck: '
            "write its name, rank then suit (QH)") in result.output


def test_draw_card_moves_the_first_cards_and_stops_at_an_empty_zone(tmp_path: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(DECK_FILE.replace("max: 4", "max: 2").replace(
        "  setup: [{deal: cards}]",
        "  setup:\n    - deal: cards\n"
        "    - draw_card: {from: cards.stock, to: \"players[0].cards.hand\", count: 2}\n"
        "    - draw_card: {from: cards.stock, to: \"players[1].cards.hand\", count: 9}"))
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance([f"{r}{s}" for s in "SHDC" for r in (10, 9, 8, 7)])
    cards = state.view()["components"]["cards"]
    assert cards["hand"][0]["cards"][-2:] == ["8D", "7D"]  # the stock's first two
    assert cards["hand"][1]["count"] == 5 + 4 and cards["stock"]["count"] == 0


def test_oh_hell_plays_as_openspiels_oh_hell_move_by_move() -> None:
    """One deal of k cards, OpenSpiel's scoring: the same deal, bids and cards give the same
    legal moves at every decision and the same returns. Labels differ only in spelling:
    OpenSpiel writes a bid as `2` and a card suit first (`SA`)."""
    import pyspiel

    def ours_of(label: str) -> str:
        return f"bid {label}" if label.isdigit() else label[1:] + label[0]

    rng = random.Random(11)
    compared = 0
    for k, players in [(1, 3), (3, 3), (4, 4), (5, 5), (7, 3)]:
        game = rulekit.load_game(FILE, overrides={"hands": [k],
                                                  "missed_bid_scores_tricks": True})
        theirs = pyspiel.load_game("oh_hell", {"players": players, "num_tricks_fixed": k})
        for _ in range(4):
            t = theirs.new_initial_state()
            t.apply_action(t.chance_outcomes()[0][0])  # the number of tricks: fixed
            t.apply_action(0)  # player 0 deals, as the first dealer of the YAML game
            dealt = []
            while t.is_chance_node():  # a card to each player in turn, then the trump
                a = rng.choice(t.chance_outcomes())[0]
                dealt.append(ours_of(t.action_to_string(a)))
                t.apply_action(a)
            ours = game.new_game(players=players, seed=0)
            ours.resolve_chance(deal(*[dealt[p:players * k:players] for p in range(players)],
                                     up=dealt[-1]))
            while not t.is_terminal():
                seat, legal = t.current_player(), t.legal_actions()
                action = rng.choice(legal)
                if len(legal) > 1 or t.action_to_string(seat, action).isdigit():
                    # a single playable card plays itself in the YAML game
                    assert ours.current_player == seat
                    assert sorted(labels(ours)) == sorted(
                        ours_of(t.action_to_string(seat, a)) for a in legal)
                    ours.apply(ours_of(t.action_to_string(seat, action)))
                    compared += 1
                t.apply_action(action)
            assert ours.is_over
            assert ours.scores() == [int(r) for r in t.returns()]
    assert compared > 200
