"""The flat backend plays the machine's games: the same draws, moves, log, scores and end.

Every shipped game, variant and example it covers is played from the same seeds both ways,
at every player count, as `State.playout` and as a study's random games; a game it must
give back (a budget that runs out) fails with the machine's own message; and a generator
that writes one comparison wrong is caught.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulekit
from rulekit.backends import flat
from rulekit.cli import main
from rulekit.errors import RulekitError

GAMES = Path(__file__).resolve().parent.parent / "games"
FILES = sorted(p for p in [*GAMES.glob("*.yaml"), *GAMES.glob("examples/*.yaml")]
               if not p.name.endswith(".tests.yaml"))
#: the games the flat backend must cover (a change that drops one fails here)
COVERED = {"qwixx.yaml", "qwixx-any-order.yaml", "domino7.yaml", "domino-fives.yaml",
           "levelx.yaml", "levelx-long.yaml", "levelx-block.yaml", "connect-four.yaml",
           "liars-dice.yaml", "oh-hell.yaml", "pig.yaml", "little-pig.yaml", "cant-stop.yaml",
           "yacht.yaml"}


def _outcome(st: rulekit.State, with_log: bool) -> tuple:
    return ((st.log if with_log else None), st.scores(), st.turn, st.round, st.active,
            st.over, st.end_reason, [dict(p) for p in st.pvars], dict(st.gvars),
            repr(st.comps))


def _play(game: rulekit.Game, players: int, seed: int, study: bool,
          made: flat.FlatGame | None) -> tuple:
    """A random game from `seed`, played by `made` (None: the machine's path)."""
    game.__dict__["flat"] = made
    try:
        st = game.new_game(players=players, seed=seed)
        play = st._playout(random.Random(seed * 7 + 1), None, None, study)
        return (*_outcome(st, not study), play.made, play.options, play.most)
    finally:
        game.__dict__.pop("flat", None)


def _finished(made: flat.FlatGame) -> list:
    """What each flat play of `made` returned, from now on (a game given back raises inside
    and adds nothing)."""
    finished: list = []
    real = made._play

    def counted(*args: object) -> object:
        out = real(*args)
        finished.append(out)
        return out

    made._play = counted
    return finished


def _reloaded(game: rulekit.Game, made: flat.FlatGame, source: str) -> flat.FlatGame:
    """`made` with its module's source changed (a give-back forced, a comparison wrong)."""
    return flat.load(game, source, made.consts, made.entries, made.decisions, made.setup)


def _failures(game: rulekit.Game, players: int, seed: int, rng: int) -> list:
    """A game that breaks, played on the flat path and on the machine's: what each raised
    (the message), its log and its turn."""
    made = game.flat
    assert made is not None
    failures = []
    for use in (made, None):
        game.__dict__["flat"] = use
        st = game.new_game(players=players, seed=seed)
        with pytest.raises(RulekitError) as info:
            st.playout(random.Random(rng))
        failures.append((str(info.value), st.log, st.turn))
    game.__dict__.pop("flat", None)
    return failures


def _copy_played(game: rulekit.Game, st: rulekit.State, use: flat.FlatGame | None, seed: int,
                 study: bool) -> tuple:
    """A copy of the game in progress `st`, played on by `use` (None: the machine's path),
    as a search bot's playout plays it."""
    game.__dict__["flat"] = use
    try:
        c = st.clone()
        p = c._playout(random.Random(seed + 5), None, None, study)
        return (_outcome(c, True), p.made, p.options, p.most)
    finally:
        game.__dict__.pop("flat", None)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_covered_games_play_the_machines_games(path: Path) -> None:
    game = rulekit.load_game(str(path))
    made, why = flat.build(game)
    if made is None:
        assert path.name not in COVERED, why
        assert why  # a reason to show on `rulekit compile --backend flat`
        return
    assert path.name in COVERED
    played = _finished(made)
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(12):
            for study in (False, True):
                assert _play(game, players, seed, study, made) == \
                    _play(game, players, seed, study, None), (players, seed, study)
    assert len(played) == 2 * 12 * (game.max_players - game.min_players + 1)


def test_a_game_given_back_fails_with_the_machines_message() -> None:
    """Too few steps for a game: the flat play gives the game back untouched, and the
    machine stops where it always did, with its message naming the step."""
    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    game.max_steps = 60
    failures = _failures(game, 3, 5, 2)
    assert failures[0] == failures[1]
    assert "did not end within 60 steps" in failures[0][0]


def test_a_wrong_comparison_in_the_generator_is_caught() -> None:
    """An off-by-one in a generated comparison (a row's next cell may be the last crossed
    one) plays other games: the differential comparison sees it."""
    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    made = game.flat
    assert made is not None and "> x1last[" in made.source
    wrong = _reloaded(game, made, made.source.replace("> x1last[", ">= x1last["))

    def differs(seed: int) -> bool:
        try:  # the log is written by replaying the moves: the engine may refuse them
            return _play(game, 3, seed, False, wrong) != _play(game, 3, seed, False, None)
        except (IndexError, RulekitError):
            return True

    assert any(differs(seed) for seed in range(5))


def test_compile_shows_the_flat_module_or_why_not(tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["compile", "--backend", "flat", str(GAMES / "qwixx.yaml")])
    assert shown.exit_code == 0
    assert "def play(" in shown.output and "takes this function" in shown.output
    # every shipped game is covered: a trigger that reads what a turn resets is not (the
    # machine fires it at the first check after the reset)
    left = tmp_path / "reset.yaml"
    left.write_text((GAMES / "qwixx.yaml").read_text().replace(
        "\nend:\n", "\ntriggers:\n  - when: \"active.crossed and active.penalties > 9\"\n"
        "    do: [{set: {active.penalties: 0}}]\nend:\n", 1))
    reason = flat.build(rulekit.load_game(str(left)))[1]
    assert reason == "a trigger that reads what a turn resets"
    why = runner.invoke(main, ["compile", "--backend", "flat", str(left)])
    assert why.exit_code == 0
    assert "engine's path" in why.output and reason in why.output
    shown = runner.invoke(main, ["compile", "--backend", "flat", str(GAMES / "domino7.yaml")])
    assert shown.exit_code == 0
    assert "top-level decision takes this function" in shown.output


@pytest.mark.parametrize("name", ["domino7.yaml", "domino-fives.yaml"])
def test_domino_playouts_run_on_the_flat_path(name: str) -> None:
    """A game whose turns begin with a decision (the deal in the setup): a new game's
    flat play starts at the deal (the first player is the one its file names) and picks
    from the first decision to the end, and the game is the machine's, with its scores
    at the end."""
    game = rulekit.load_game(str(GAMES / name))
    made = game.flat
    assert made is not None and made.decisions and made.setup
    finished = _finished(made)
    entries = []
    counted = made._play

    def entered(*args: object) -> object:
        entries.append(args[5])
        return counted(*args)

    made._play = entered
    for seed in range(3):
        st = game.new_game(players=game.max_players, seed=seed)
        st.playout(random.Random(seed))
        assert finished[-1] is not None  # played to the end by the flat function
        assert st.is_over and st.end_reason in ("out", "blocked")
        assert all(set(parts) == {"pips left", "bonus"} for parts in st.end_scores())
        game.__dict__["flat"] = None
        try:
            again = game.new_game(players=game.max_players, seed=seed)
            again.playout(random.Random(seed))
        finally:
            game.__dict__["flat"] = made
        assert (st.log, st.scores(), st.end_scores()) == \
            (again.log, again.scores(), again.end_scores())
    assert len(finished) == 3 and entries == [-1, -1, -1]


def _shape(source: str) -> list[tuple[int, str]]:
    """The source's tokens, the generator's own numbered names made anonymous."""
    import io
    import tokenize
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        text = tok.string
        if tok.type == tokenize.NAME and re.fullmatch(r"[A-Za-z]+\d+", text):
            text = re.sub(r"\d+", "", text)
        out.append((tok.type, text))
    return out


def test_hostile_names_and_texts_do_not_change_the_flat_modules_shape(tmp_path: Path) -> None:
    """Row and die names and `say` texts that look like code are constants of the module:
    the flat source has the same tokens, with no word of them in it."""
    text = (GAMES / "qwixx.yaml").read_text()
    evil = "red') or __import__('os').system('id') or ('"
    hostile = (text.replace("red: {cells:", f'"{evil}": {{cells:')
               .replace("red: 6,", f'"{evil}": 6,')
               .replace("crossed nothing this turn: penalty",
                        "crossed nothing'); import os; ('this turn: penalty"))
    assert hostile.count(evil) == 2
    for session in (False, True):  # the playout's module and the session's (labels too)
        sources = []
        for name, body in (("plain", text), ("hostile", hostile)):
            path = tmp_path / f"{name}.yaml"
            path.write_text(body)
            made, source = flat.build(rulekit.load_game(str(path)), session)
            assert made is not None, source
            sources.append(source)
        plain, evil_source = sources
        assert [t for t, _s in _shape(plain)] == [t for t, _s in _shape(evil_source)]
        assert _shape(plain) == _shape(evil_source)
        assert "import" not in evil_source and "system" not in evil_source
    game = rulekit.load_game(str(tmp_path / "hostile.yaml"))
    assert _play(game, 3, 1, False, game.flat) == _play(game, 3, 1, False, None)


@pytest.mark.parametrize(("name", "sets"), [("levelx.yaml", True), ("levelx-long.yaml", True),
                                             ("levelx-block.yaml", False)])
def test_level_x_plays_its_games_on_the_flat_path(name: str, sets: bool) -> None:
    """Level X's random games run to their end in the flat function (none given back),
    its trigger firing in them (a pawn that waits short of an occupied X leaves each
    row's chips to one player: random games of that variant complete no sets)."""
    game = rulekit.load_game(str(GAMES / name))
    made = game.flat
    assert made is not None
    finished = _finished(made)
    bonus = [k.name for k in game.components].index("bonus")
    tiles = games = 0
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(4):
            st = game.new_game(players=players, seed=seed)
            st.playout(random.Random(seed))
            games += 1
            assert st.over and st.end_reason in ("tiles", "chips")
            tiles += sum(map(len, st.comps[bonus][1]))
    assert len(finished) == games
    assert (tiles > 0) == sets


def test_triggers_that_change_what_others_read_play_the_machines_games(tmp_path: Path) -> None:
    """A second trigger gives a chip to another player, which may complete a set: the
    first trigger sees it only at the machine's next check. The flat play gives such a
    game back (a trigger left with its condition true) and plays the others itself."""
    text = (GAMES / "levelx.yaml").read_text()
    gift = """  - for: "p in players"
    when: "p.won[5] >= 2 * (p.gifts + 1)"
    do:
      - add: {p.gifts: 1}
      - move_token: {from: chips, key: 10,
                     to: "players[(p.seat + player_count - 1) % player_count].won"}
      - say: "player {p.seat} gives a chip of row 10 to the player before"

end:"""
    assert text.count("\nend:") == 1 and text.count("\nvars:\n") == 1
    path = tmp_path / "gifts.yaml"
    path.write_text(text.replace("\nend:", "\n" + gift)
                    .replace("\nvars:\n", "\nvars:\n  gifts: {per: player, init: 0}\n"))
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None and len(game.triggers) == 2
    finished = _finished(made)
    calls = 0
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(20):
            calls += 1
            assert _play(game, players, seed, False, made) == \
                _play(game, players, seed, False, None), (players, seed)
    assert 0 < len(finished) < calls  # some games given back, the others played flat


def test_a_rule_that_breaks_mid_game_fails_as_on_the_machine(tmp_path: Path) -> None:
    """A row named after no die breaks when its die is read: the flat play gives the game
    back, the machine replays its moves and fails at the same place with its message."""
    text = (GAMES / "qwixx.yaml").read_text().replace("red: {cells:", "purple: {cells:")
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    game = rulekit.load_game(str(path))
    failures = _failures(game, 3, 4, 9)
    assert failures[0] == failures[1]
    assert "purple" in failures[0][0]


def test_a_playout_without_its_log_plays_the_same_game() -> None:
    game = rulekit.load_game(str(GAMES / "qwixx.yaml"))
    logged, bare = game.new_game(players=4, seed=3), game.new_game(players=4, seed=3)
    assert logged.playout(random.Random(8)) == bare.playout(random.Random(8), log=False)
    assert _outcome(logged, False) == _outcome(bare, False)
    assert len(bare.log) < len(logged.log) // 10


@pytest.mark.parametrize("name", ["domino7.yaml", "domino-fives.yaml"])
def test_a_domino_game_given_back_mid_way_is_the_machines(name: str) -> None:
    """The flat play made to give the game back at a later turn (after decisions within
    `none:` steps, forced lays and draws): the engine replays its moves and plays on, and
    the game is the machine's, its log, scores and counts. A game given back in its
    first turn replays the deal the flat play made."""
    game = rulekit.load_game(str(GAMES / name))
    made = game.flat
    assert made is not None and "if cw > CALL_WORK: raise GiveBack" in made.source
    for stop in (0, 3, 17, 40):
        source = made.source.replace("if cw > CALL_WORK: raise GiveBack",
                                     f"if turn > {stop}: raise GiveBack")
        early = _reloaded(game, made, source)
        for seed in range(4):
            for study in (False, True):
                assert _play(game, game.max_players, seed, study, early) == \
                    _play(game, game.max_players, seed, study, None), (stop, seed, study)


@pytest.mark.parametrize("name", ["qwixx.yaml", "domino7.yaml", "domino-fives.yaml"])
def test_a_playout_from_a_copy_in_progress_is_the_machines(name: str) -> None:
    """A search bot's playout: from a copy of a game in progress (often at a turn's
    decision, where the flat play starts by asking it anew), the flat play's game is the
    machine's, its log included."""
    game = rulekit.load_game(str(GAMES / name))
    made = game.flat
    assert made is not None
    for seed in range(6):
        st = game.new_game(players=game.max_players, seed=seed)
        rng = random.Random(seed)
        game.__dict__["flat"] = None
        st.playout(rng, decisions=rng.randrange(1, 30))
        game.__dict__.pop("flat", None)
        for study in (False, True):
            assert _copy_played(game, st, made, seed, study) == \
                _copy_played(game, st, None, seed, study), (seed, study)


@pytest.mark.parametrize("overrides, reason", [({}, "line"),
                                               ({"rows": 2, "columns": 2, "line": 3}, "full")])
def test_connect_four_ends_on_the_flat_path_as_on_the_machine(overrides: dict,
                                                              reason: str) -> None:
    """Pieces dropped into columns until four stand in a line (or, on a board too small
    for one, until it is full): every game is played to its end by the flat function,
    with the machine's log, winner and scores."""
    game = rulekit.load_game(str(GAMES / "examples" / "connect-four.yaml"), overrides)
    made = game.flat
    assert made is not None and made.decisions
    finished = _finished(made)
    for seed in range(10):
        played = _play(game, 2, seed, False, made)
        assert played == _play(game, 2, seed, False, None), seed
        log, scores, end_reason = played[0], played[1], played[6]
        assert end_reason == reason and log
        assert sorted(scores) == ([-1, 1] if reason == "line" else [0, 0])
    assert len(finished) == 10


GRID_GAME = """rulekit: 1
name: Corners
players: {min: 2, max: 3}
components:
  board: {kind: grid, rows: 3, columns: 3, pieces: [a, b, c]}
vars:
  cleared: {init: 0}
flow:
  turn:
    - choose:
        options:
          - for: "r in [0, 1, 2], c in [0, 1, 2]"
            if: "board.is_empty(r, c)"
            label: "put {r} {c}"
            do:
              - place: {grid: board, row: r, column: c, piece: "board.pieces[active.seat]"}
          - for: "c in [0, 1, 2]"
            if: "board.height(c) >= 2 and board.at(0, c) == board.pieces[active.seat]"
            label: "clear {c}"
            do:
              - clear_cell: {grid: board, row: 0, column: c}
              - add: {cleared: 1}
          - for: "c in [0, 1, 2]"
            if: "board.height(c) >= 2"
            label: "drop {c}"
            do:
              - drop: {grid: board, column: c, piece: "board.pieces[active.seat]"}
          - label: "stack"
            if: "not board.is_empty(2, 2)"
            do:
              - place: {grid: board, row: 2, column: 2, piece: "'a'"}
end:
  when:
    three: "board.count('a') >= 3 or board.empty_count == 0 or cleared >= 3"
  text:
    three: "done"
  finish: now
score: "board.count(board.pieces[player.seat])"
"""


def test_a_grid_placed_and_cleared_plays_the_machines_games(tmp_path: Path) -> None:
    """Pieces placed in cells, dropped into columns, read and cleared; an option that
    places a piece in a taken cell or drops one into a full column breaks the rule: the
    flat play gives such a game back, and the machine fails at the same move with its own
    message."""
    path = tmp_path / "corners.yaml"
    path.write_text(GRID_GAME)
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    broken = set()
    for players in (2, 3):
        for seed in range(30):
            outcomes = []
            for use in (made, None):
                try:
                    outcomes.append(_play(game, players, seed, False, use))
                except RulekitError as exc:
                    outcomes.append(str(exc))
            assert outcomes[0] == outcomes[1], (players, seed)
            if isinstance(outcomes[0], str):
                broken.add("full" if "is full" in outcomes[0] else "taken")
    assert broken == {"full", "taken"} and 0 < len(finished) < 60


@pytest.mark.parametrize("numdice", [5, 2])
def test_liars_dice_bids_and_calls_on_the_flat_path(numdice: int) -> None:
    """Bids from range(last bid + 1, all the dice's faces) until someone calls: the call
    counts only the dice left in each cup (with fewer dice, the others left the game in
    the setup), and every game ends on the flat path with the machine's log and scores."""
    game = rulekit.load_game(str(GAMES / "examples" / "liars-dice.yaml"),
                             {"numdice": numdice})
    made = game.flat
    assert made is not None and made.decisions
    finished = _finished(made)
    for seed in range(10):
        played = _play(game, 2, seed, False, made)
        assert played == _play(game, 2, seed, False, None), seed
        assert "calls liar" in str(played[0]) and sorted(played[1]) == [-1, 1]
    assert len(finished) == 10


RANGE_GAME = """rulekit: 1
name: Slide
players: {min: 2, max: 2}
vars:
  low: {init: 2}
flow:
  turn:
    - choose:
        options:
          - for: "b in range(low, 4)"
            label: "take {b}"
            do:
              - set: {low: "b - 1"}
end:
  when: "turn >= 5"
score: "low"
"""


def test_a_range_longer_than_its_bound_gives_the_game_back(tmp_path: Path) -> None:
    """range(low, 4) is bounded as if `low` were never below 0; when it is, the list is
    longer than that and the flat play hands the game to the machine, which plays it on:
    the same games either way, some of them played flat to the end."""
    path = tmp_path / "slide.yaml"
    path.write_text(RANGE_GAME)
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    for seed in range(20):
        assert _play(game, 2, seed, False, made) == _play(game, 2, seed, False, None), seed
    assert 0 < len(finished) < 20


DECK_GAME = """rulekit: 1
name: Tops
players: {min: 2, max: 4}
vars:
  points: {per: player, init: 0}
components:
  cards:
    kind: deck
    suits: [C, D, H, S]
    ranks: [2, 3, 4, 5, 6]
    zones:
      stock: {seen_by: nobody}
      up: {}
      trick: {}
      hand: {per: player, seen_by: owner, sorted: true}
      won: {per: player}
    deal: {to: hand, count: "2 + turn % 2", rest: stock}
  plays: {kind: list, items: int, max_size: 4}
define:
  trump: "cards.up.first.suit if cards.up.size > 0 else ''"
flow:
  turn:
    - deal: cards
    - draw_card: {from: cards.stock, to: cards.up}
    - choose:
        options:
          - for: "c in player.cards.hand.follow(trump)"
            label: "{c}"
            do:
              - move_card: {from: player.cards.hand, card: c, to: cards.trick}
              - append: {list: plays, value: c.value}
    - shuffle: cards
    - draw_card: {from: cards.stock, to: cards.trick, count: 2}
    - choose:
        options:
          - for: "c in player.cards.hand.of_suit(cards.trick.last.suit)"
            label: "{c}"
            do:
              - move_card: {from: player.cards.hand, card: c, to: cards.trick}
          - label: pass
            if: "not player.cards.hand.has_suit(cards.trick.last.suit)"
    - say: "trick {join(' ', [c.name for c in cards.trick.cards])}, plays {plays.size}"
    - add: {active.points: "cards.trick.winner(trump) + plays.items[0]
                            + (1 if cards.trick.holds(cards.card('4H')) else 0)
                            + (2 if cards.trick.first == cards.card('2C') else 0)
                            + (4 if cards.up.last != none else 0)"}
    - move_all: {from: cards.trick, to: active.cards.won}
    - clear_list: {list: plays}
end:
  when: "turn >= 6"
score: "player.points + player.cards.won.size"
"""


def test_deals_shuffles_and_tricks_play_the_machines_games(tmp_path: Path) -> None:
    """Each turn deals the deck anew (a count that follows the turn), turns a card up,
    shuffles the stock, plays cards from sorted hidden hands to a trick and gives it to
    a player: every game is played flat to the end, each deal and shuffle the machine's
    (the hands, the stock and the log), at every player count, as a playout and a study."""
    path = tmp_path / "tops.yaml"
    path.write_text(DECK_GAME)
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    for players in (2, 3, 4):
        for seed in range(8):
            for study in (False, True):
                assert _play(game, players, seed, study, made) == \
                    _play(game, players, seed, study, None), (players, seed, study)
    assert len(finished) == 3 * 8 * 2
    st = game.new_game(players=3, seed=5)
    st.playout(random.Random(2))
    deals = [e["outcome"] for e in st.log if e.get("chance") == "deal"]
    assert len(deals) == 5 and all(len(set(d)) == 20 for d in deals)  # the whole deck


def test_a_game_dealt_in_its_setup_plays_its_turns_flat(tmp_path: Path) -> None:
    """A deal in the setup as well: the machine resolves it, runs on to the first turn's
    deal, and the flat play takes the game from there, the machine's game."""
    path = tmp_path / "dealt.yaml"
    path.write_text(DECK_GAME.replace("flow:\n  turn:", "flow:\n  setup:\n    - deal: cards\n"
                                      "  turn:"))
    assert "setup:" in path.read_text()
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    for seed in range(6):
        for study in (False, True):
            assert _play(game, 3, seed, study, made) == _play(game, 3, seed, study, None)
    assert len(finished) == 12


@pytest.mark.parametrize("old, new, message", [
    ('count: "2 + turn % 2"', 'count: "2 + turn"', "do not fit a deck"),
    ("move_card: {from: player.cards.hand, card: c, to: cards.trick}\n              - append",
     "move_card: {from: cards.stock, card: c, to: cards.trick}\n              - append",
     "does not hold"),
])
def test_a_deck_rule_that_breaks_fails_as_on_the_machine(tmp_path: Path, old: str, new: str,
                                                         message: str) -> None:
    """A deal of more cards than the deck has, a card moved from a zone that does not hold
    it: the flat play gives the game back, and the machine fails at the same place with
    its own message and log."""
    assert old in DECK_GAME
    path = tmp_path / "broken.yaml"
    path.write_text(DECK_GAME.replace(old, new))
    game = rulekit.load_game(str(path))
    failures = _failures(game, 4, 4, 9)
    assert failures[0] == failures[1]
    assert message in failures[0][0]


@pytest.mark.parametrize("name", ["connect-four.yaml", "liars-dice.yaml", "oh-hell.yaml"])
def test_an_example_given_back_mid_way_is_the_machines(name: str) -> None:
    """The flat play made to give the game back after its first, fourth or fifteenth
    decision (in Oh Hell within a deal: its order, the bids and the tricks so far): the
    engine replays its moves (a deal from the order the flat play recorded) and plays on,
    and the game is the machine's, its log, scores and counts."""
    game = rulekit.load_game(str(GAMES / "examples" / name))
    made = game.flat
    assert made is not None
    for stop in (1, 4, 15):
        source = re.sub(r"^( *)moves\.append\(i\)$",
                        rf"\g<0>\n\g<1>if made >= {stop}: raise GiveBack", made.source,
                        flags=re.M)
        assert source != made.source
        early = _reloaded(game, made, source)
        for seed in range(3):
            for study in (False, True):
                assert _play(game, game.max_players, seed, study, early) == \
                    _play(game, game.max_players, seed, study, None), (stop, seed, study)


def test_oh_hell_deals_bids_and_tricks_on_the_flat_path() -> None:
    """Every deal of Oh Hell on the flat path: the deck shuffled as the machine shuffles
    it, a bid from each player after the dealer, every card of the hands played to the
    tricks (one forced when a player holds one card that may follow), all in the
    machine's log."""
    game = rulekit.load_game(str(GAMES / "examples" / "oh-hell.yaml"))
    finished = _finished(game.flat)
    hands = [7, 6, 5, 4, 3, 2, 1]
    for players in (3, 7):
        st = game.new_game(players=players, seed=11)
        st.playout(random.Random(4))
        assert finished[-1] is not None
        game.__dict__["flat"] = None
        try:
            again = game.new_game(players=players, seed=11)
            again.playout(random.Random(4))
        finally:
            game.__dict__.pop("flat", None)
        assert (st.log, st.scores()) == (again.log, again.scores())
        deals = [e["outcome"] for e in st.log if e.get("chance") == "deal"]
        assert len(deals) == len(hands) and all(len(set(d)) == 52 for d in deals)
        bids = [e for e in st.log if str(e.get("action", "")).startswith("bid ")]
        assert len(bids) == players * len(hands)
        cards = [e for e in st.log if "action" in e and not e["action"].startswith("bid ")]
        assert len(cards) == players * sum(hands)
        assert any(e.get("forced") for e in cards)


def test_hostile_card_names_do_not_change_the_deck_games_module(tmp_path: Path) -> None:
    """A suit whose name looks like code is a constant of the flat module, as row and die
    names are: the module has the same tokens, and the game plays as on the machine."""
    evil = "C') or __import__('os').system('id') or ('"
    sources = []
    for name, suit in (("plain", "C"), ("hostile", evil)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(DECK_GAME.replace("suits: [C, D, H, S]", f'suits: ["{suit}", D, H, S]'))
        made, source = flat.build(rulekit.load_game(str(path)))
        assert made is not None, source
        sources.append(source)
    assert _shape(sources[0]) == _shape(sources[1])
    assert "import" not in sources[1] and "system" not in sources[1]
    game = rulekit.load_game(str(tmp_path / "hostile.yaml"))
    assert _play(game, 3, 2, False, game.flat) == _play(game, 3, 2, False, None)


@pytest.mark.parametrize("name", ["pig.yaml", "little-pig.yaml", "cant-stop.yaml", "yacht.yaml"])
def test_a_playout_from_inside_a_repeat_is_the_machines(name: str) -> None:
    """A copy of a game stopped in a turn's `repeat` (the machine's frames: the turn's,
    the repeat's, at a later round; in Yacht also the frame of the option played, at its
    roll): the flat play starts at that step with the round the frame counted, the names
    the round's `let`s and the option gave read from the frames, and its game is the
    machine's."""
    game = rulekit.load_game(str(GAMES / "examples" / name))
    made = game.flat
    assert made is not None
    finished = _finished(made)
    nested = later = deeper = 0
    for seed in range(30):
        st = game.new_game(players=game.max_players, seed=seed)
        rng = random.Random(seed)
        game.__dict__["flat"] = None
        st.playout(rng, decisions=rng.randrange(1, 40))
        if not st.over and st.is_chance and seed % 2:
            st.resolve_chance()  # a decision after a roll, too
        game.__dict__.pop("flat", None)
        if st.over:
            continue
        inside = len(st._stack) >= 2
        nested += inside
        later += inside and st._stack[1].env["#rounds"] > 0
        deeper += len(st._stack) == 3
        for study in (False, True):
            before = len(finished)
            flat_game = _copy_played(game, st, made, seed, study)
            if inside:
                assert len(finished) == before + 1, (seed, study)  # played flat
            assert flat_game == _copy_played(game, st, None, seed, study), (seed, study)
    assert nested > 5 and later > 0
    assert (deeper > 0) == (name == "yacht.yaml")  # a roll in the option's steps


CAPPED = """rulekit: 1
name: Capped
players: {min: 2, max: 3}
vars:
  points: {per: player, init: 0}
  total: {init: 0, reset: turn}
  limit: {init: 1}
  rolls: {init: 0}
components:
  die: {kind: dice, dice: {d: 6}}
flow:
  turn:
    - repeat: REPEAT
      do:
        - roll: die
        - add: {total: die.d}
        - add: {rolls: 1}
        - choose:
            options:
              - label: more
              - label: bank
                do: [{add: {active.points: total}}, {set: {total: 0}}, {break: true}]
    - add: {active.points: total}
    - set: {limit: "limit % 4 + 1"}
end:
  when: {done: "max(p.points for p in players) >= 60"}
score: player.points
"""


@pytest.mark.parametrize("head", ["{max: 3}", "{max: limit, until: \"total >= 12\"}",
                                  "{max: 2, while: \"total < 9\"}", "{max: 0}"])
def test_a_repeat_that_reaches_its_max_is_the_machines(tmp_path: Path, head: str) -> None:
    """`repeat` with a `max:` (a number, or a variable that changes every turn), `until`
    and `while`: rounds end at the cap, by the conditions or by a `break`, as on the
    machine, and every game is played flat."""
    text = CAPPED.replace("REPEAT", head)
    if head == "{max: 0}":  # no round at all: a turn is the steps after it
        text = text.replace("    - add: {active.points: total}\n",
                            "    - roll: die\n    - add: {active.points: die.d}\n")
    path = tmp_path / "capped.yaml"
    path.write_text(text)
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    capped = 0
    for players in (2, 3):
        for seed in range(10):
            for study in (False, True):
                ours = _play(game, players, seed, study, made)
                assert ours == _play(game, players, seed, study, None), (players, seed, study)
            if head == "{max: 3}":  # a turn of three rolls and no bank: the cap ended it
                st = game.new_game(players=players, seed=seed)
                st.playout(random.Random(seed * 7 + 1))
                moves = [e for e in st.log if "action" in e or "chance" in e]
                capped += any(
                    [m.get("action") for m in moves[k:k + 6]] == [None, "more"] * 3
                    for k in range(len(moves) - 5))
    assert len(finished) == 2 * 2 * 10
    if head == "{max: 3}":
        assert capped > 0


NESTED = """rulekit: 1
name: Nested
players: {min: 2, max: 3}
vars:
  points: {per: player, init: 0}
  total: {init: 0, reset: turn}
components:
  die: {kind: dice, dice: {d: 6}}
flow:
  turn:
    - repeat: {max: 3}
      do:
        - roll: die
        - let: {face: die.d}
        - repeat: {max: 2, until: "total > 20"}
          do:
            - choose:
                options:
                  - label: more
                  - label: enough
                    do: [{break: true}]
            - add: {total: face}
            - roll: die
        - choose:
            options:
              - label: go on
              - label: bank
                do: [{add: {active.points: total}}, {break: true}]
    - say: "turn over"
end:
  when: {done: "max(p.points for p in players) >= 50"}
score: player.points
"""


def test_a_repeat_in_a_repeat_starts_where_the_machine_stands(tmp_path: Path) -> None:
    """A `repeat` in a round of another, a `let` of the outer round read in the inner one:
    the flat play starts in the inner loop (three frames: the turn's and both loops', each
    loop at the round its frame counted) and in the outer one, and plays the machine's
    games, every one of them flat."""
    path = tmp_path / "nested.yaml"
    path.write_text(NESTED)
    game = rulekit.load_game(str(path))
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    for players in (2, 3):
        for seed in range(8):
            for study in (False, True):
                assert _play(game, players, seed, study, made) == \
                    _play(game, players, seed, study, None), (players, seed, study)
    assert len(finished) == 2 * 2 * 8
    deep = 0
    for seed in range(30):
        st = game.new_game(players=3, seed=seed)
        rng = random.Random(seed)
        game.__dict__["flat"] = None
        st.playout(rng, decisions=rng.randrange(1, 30))
        if not st.over and st.is_chance and seed % 2:
            st.resolve_chance()
        game.__dict__.pop("flat", None)
        if st.over:
            continue
        deep += len(st._stack) == 3
        before = len(finished)
        flat_game = _copy_played(game, st, made, seed, False)
        assert len(finished) == before + 1, seed  # played flat
        assert flat_game == _copy_played(game, st, None, seed, False), seed
    assert deep > 5


#: two phases, each ending by its `until` (the game "spend over" after the second, unless
#: one player got rich first and the round was played out), extra turns (`next_player:
#: active`, in a branch and in an option) and turns passed over (two seats on)
PHASES = """rulekit: 1
name: Phased
players: {min: 2, max: 4}
vars:
  gathered: {per: player, init: 0}
  spent: {per: player, init: 0}
  extra: {init: 0}
components:
  die: {kind: dice, dice: {d: 6}}
flow:
  phases:
    - name: gather
      turn:
        - roll: die
        - add: {active.gathered: die.d}
        - if: "die.d == 6 and extra < 3"
          then: [{add: {extra: 1}}, {next_player: active}]
      until: "turn >= 2 * player_count"
    - name: spend
      turn:
        - roll: die
        - choose:
            options:
              - for: "k in range(1, 4)"
                if: "active.spent + k <= active.gathered"
                label: "spend {k}"
                do:
                  - add: {active.spent: k}
              - label: wait
              - label: again
                if: "die.d == 5"
                do: [{next_player: active}]
        - if: "die.d == 6"
          then: [{next_player: "(active.seat + 2) % player_count"}]
        - if: "die.d == 1"
          then: [{next_player: active}]
        - say: "{phase}: {active} has spent {active.spent}"
      until: "all(p.spent + 3 > p.gathered for p in players) or turn > 80"
end:
  when: {rich: "max(p.spent for p in players) >= 12"}
  finish: round
score: "player.spent * 10 - player.gathered"
"""


def _game(tmp_path: Path, text: str, name: str) -> rulekit.Game:
    path = tmp_path / name
    path.write_text(text)
    return rulekit.load_game(str(path))


def test_phases_and_chosen_next_players_play_the_machines_games(tmp_path: Path) -> None:
    """Turns in the phase the game is in, each phase over when its `until` holds after a
    turn, the chosen next player and the rounds it completes (an extra turn none): the
    machine's games at every player count, every one of them flat, ending both ways."""
    game = _game(tmp_path, PHASES, "phases.yaml")
    made = game.flat
    assert made is not None, flat.build(game)[1]
    assert "phase == 1" in made.source and "nxt = " in made.source
    finished = _finished(made)
    reasons, extra = set(), 0
    for players in (2, 3, 4):
        for seed in range(8):
            for study in (False, True):
                ours = _play(game, players, seed, study, made)
                assert ours == _play(game, players, seed, study, None), (players, seed, study)
                reasons.add(ours[6])
                extra += ours[8]["extra"]
    assert len(finished) == 3 * 8 * 2
    assert reasons == {"spend over", "rich"} and extra > 0


@pytest.mark.parametrize("at", ["turn", "chosen"])
def test_phases_given_back_mid_way_are_the_machines(tmp_path: Path, at: str) -> None:
    """The flat play made to give the game back at a later turn's start, or just after a
    `next_player` step chose the next seat: the engine replays its moves (the phase, the
    seat chosen) and plays on, and the game is the machine's."""
    game = _game(tmp_path, PHASES, "phases.yaml")
    made = game.flat
    assert made is not None
    for stop in (2, 7, 15):
        if at == "turn":
            source = made.source.replace("if steps < TURN_STEPS",
                                         f"if turn > {stop} or steps < TURN_STEPS")
        else:
            source = re.sub(r"^( *)nxt = x\d+$",
                            rf"\g<0>\n\g<1>if turn > {stop}: raise GiveBack", made.source,
                            flags=re.M)
        assert source != made.source
        early = _reloaded(game, made, source)
        finished = _finished(early)
        for seed in range(4):
            for study in (False, True):
                assert _play(game, 3, seed, study, early) == \
                    _play(game, 3, seed, study, None), (stop, seed, study)
        assert len(finished) < 8  # some were given back


#: a map of the game's (counts by face), one of texts, and one of truths for each player:
#: every read and effect of the kind
MAPPED = """rulekit: 1
name: Mapped
players: {min: 2, max: 4}
vars:
  points: {per: player, init: 0}
components:
  die: {kind: dice, dice: {d: 6}}
  seen: {kind: map, keys: "range(1, 7)", init: 0}
  claimed: {kind: map, keys: [low, high], items: str, init: ""}
  marks: {kind: map, keys: [odd, even], items: bool, init: false, per: player}
flow:
  turn:
    - roll: die
    - add_to: {map: seen, key: die.d, amount: 1}
    - choose:
        options:
          - for: "side in claimed.keys"
            if: "claimed[side] == ''"
            label: "claim {side}"
            do:
              - put: {map: claimed, key: side, value: "str(active.seat)"}
              - add: {active.points: "seen.get(die.d)"}
          - label: "mark"
            do:
              - put: {map: active.marks, key: "'odd' if die.d % 2 == 1 else 'even'", value: true}
              - add: {active.points: "len(seen.keys_with(0)) + len(active.marks.keys_with(true))"}
          - label: "clear"
            if: "sum(seen.values) > 8"
            do: [{reset_map: {map: claimed}}, {reset_map: {map: active.marks}}]
end:
  when: {done: "max(p.points for p in players) >= 25"}
score: player.points
"""


def test_maps_play_the_machines_games(tmp_path: Path) -> None:
    """A map's values read by key, by `get`, as `values` and by `keys_with`, set by `put`
    and `add_to` and reset: the machine's games at every player count, all of them flat."""
    game = _game(tmp_path, MAPPED, "mapped.yaml")
    made = game.flat
    assert made is not None, flat.build(game)[1]
    finished = _finished(made)
    for players in (2, 3, 4):
        for seed in range(8):
            for study in (False, True):
                assert _play(game, players, seed, study, made) == \
                    _play(game, players, seed, study, None), (players, seed, study)
    assert len(finished) == 3 * 8 * 2


def test_a_map_read_at_a_key_it_has_not_fails_as_on_the_machine(tmp_path: Path) -> None:
    """A key past the map's (a six, plus one): the flat play gives the game back and the
    machine replays its moves and fails there with its message."""
    game = _game(tmp_path, MAPPED.replace("seen.get(die.d)", "seen.get(die.d + 1)"),
                 "broken.yaml")
    failures = _failures(game, 3, 2, 5)
    assert failures[0] == failures[1]
    assert "has no key 7" in failures[0][0] and failures[0][2] > 1
