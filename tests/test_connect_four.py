"""Connect Four, written as YAML on the grid kind, plays as OpenSpiel's connect_four does.

Each game is played in both at once: after every move the player to move, the legal moves
(OpenSpiel's action strings against rulekit's labels), whether the game is over and, at
the end, the returns must agree.
"""

import random

import pyspiel
import pytest

import rulekit
from tests.conftest import GAMES
from tests.test_cli import run

FILE = GAMES / "examples" / "connect-four.yaml"

#: a game that fills the board without four in a line (OpenSpiel: a draw)
DRAW = [3, 3, 0, 2, 5, 4, 5, 6, 4, 2, 2, 3, 3, 5, 5, 2, 2, 4, 3, 3, 1, 1, 2, 1, 5, 5, 0,
        4, 0, 4, 4, 6, 6, 6, 6, 0, 1, 0, 6, 0, 1, 1]


@pytest.fixture(scope="module")
def game() -> rulekit.Game:
    return rulekit.load_game(FILE)


def play_both(game: rulekit.Game, choose) -> tuple[rulekit.State, object]:
    """Play one game in rulekit and OpenSpiel side by side, checking them at every move."""
    theirs = pyspiel.load_game("connect_four").new_initial_state()
    ours = game.new_game(players=2, seed=0)
    while not theirs.is_terminal():
        assert not ours.is_over
        seat = theirs.current_player()
        assert ours.current_player == seat
        legal = theirs.legal_actions()
        assert [a.label for a in ours.legal_actions()] == [
            theirs.action_to_string(seat, a) for a in legal]
        action = choose(legal, len(theirs.history()))
        ours.apply(theirs.action_to_string(seat, action))
        theirs.apply_action(action)
    assert ours.is_over
    assert ours.scores() == [int(r) for r in theirs.returns()]
    return ours, theirs


def test_random_games_agree_with_openspiel_move_by_move(game: rulekit.Game) -> None:
    rng = random.Random(2024)
    outcomes = set()
    for _ in range(40):
        ours, theirs = play_both(game, lambda legal, _i: rng.choice(legal))
        outcomes.add(tuple(theirs.returns()))
    assert outcomes == {(1.0, -1.0), (-1.0, 1.0)}  # both seats won some games


def test_a_full_board_without_a_line_is_a_draw(game: rulekit.Game) -> None:
    ours, theirs = play_both(game, lambda _legal, i: DRAW[i])
    assert ours.scores() == [0, 0]
    assert ours.end_reason == "full"


def test_a_diagonal_of_four_wins() -> None:
    state = rulekit.load_game(FILE).new_game(players=2, seed=0)
    # x climbs a diagonal from column 0 to column 3; o fills in below it
    for label in ["x0", "o1", "x1", "o2", "x2", "o3", "x2", "o3", "x3", "o6"]:
        state.apply(label)
    assert not state.is_over
    state.apply("x3")
    assert state.is_over and state.scores() == [1, -1]
    assert "player 0 (x) has 4 in a line" in state.end_text()


def test_a_full_column_takes_no_more_pieces(game: rulekit.Game) -> None:
    state = game.new_game(players=2, seed=0)
    for k in range(6):
        state.apply(f"{'xo'[k % 2]}5")
    assert [a.label for a in state.legal_actions()] == ["x0", "x1", "x2", "x3", "x4", "x6"]


def test_the_board_plays_in_the_terminal() -> None:
    moves = "".join(f"x{c}\n" for c in [3, 3, 3, 3, 2, 4, 1, 5, 0, 6, 0, 1, 2, 4, 5, 6] * 2)
    result = run("play", str(FILE), "--bots", "random", "--seed", "3", "--level", "1",
                 input=moves)
    assert result.exit_code == 0, result.output
    # the board drawn top row first, with column numbers underneath
    assert "  0 1 2 3 4 5 6" in result.output
    assert "player 0 (you): x3" in result.output
    assert "game over after" in result.output


def test_validate_simulate_finds_no_problem() -> None:
    result = run("validate", "--simulate", "30", str(FILE))
    assert result.exit_code == 0, result.output
    assert "no problems" in result.output


def test_a_line_check_run_too_often_stops_at_the_work_budget(tmp_path) -> None:
    # every check scans the whole board: a hostile file cannot make it run for ever
    text = FILE.read_text().replace(
        'line: "active.won"', 'line: "any(board.has_line(\'x\', 90) for i in range(100000))"')
    text = text.replace("max: 20, doc: rows", "max: 100, doc: rows").replace(
        "max: 20, doc: columns", "max: 100, doc: columns")
    path = tmp_path / "big.yaml"
    path.write_text(text)
    game = rulekit.load_game(path, overrides={"rows": 100, "columns": 100})
    # the end is checked as the first turn begins: the setup stops, naming the condition
    with pytest.raises(rulekit.RulekitError) as info:
        game.new_game(players=2, seed=0)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "range(100000)" in row)
    assert str(info.value).startswith(f"{path}:{line}:")
    assert "the end condition 'line' went past a budget" in str(info.value)
    assert "more work than the setup may take" in str(info.value)


TIC_TAC_TOE = """\
rulekit: 1
name: Tic-tac-toe
players: {min: 2, max: 2}
components:
  board: {kind: grid, rows: 3, columns: 3, pieces: [x, o]}
define:
  piece: {per: player, expr: "board.pieces[player.seat]"}
  won: {per: player, expr: "board.has_line(player.piece, 3)"}
flow:
  setup:                      # a piece placed and taken away leaves the cell free
    - place: {grid: board, row: 1, column: 1, piece: "'o'"}
    - clear_cell: {grid: board, row: 1, column: 1}
  turn:
    - choose:
        options:
          - for: "r in range(3), c in range(3)"
            if: "board.is_empty(r, c)"
            label: "{player.piece}({r},{c})"
            do: [{place: {grid: board, row: r, column: c, piece: player.piece}}]
end: {when: {line: "active.won", full: "board.full"}}
score: "1 if player.won else -1 if any(p.won for p in players) else 0"
"""


def test_placing_pieces_in_cells_plays_as_openspiels_tic_tac_toe(tmp_path) -> None:
    path = tmp_path / "tic-tac-toe.yaml"
    path.write_text(TIC_TAC_TOE)
    game = rulekit.load_game(path)
    rng = random.Random(7)
    outcomes = set()
    for _ in range(30):
        theirs = pyspiel.load_game("tic_tac_toe").new_initial_state()
        ours = game.new_game(players=2, seed=0)
        while not theirs.is_terminal():
            seat = theirs.current_player()
            legal = theirs.legal_actions()
            assert [a.label for a in ours.legal_actions()] == [
                theirs.action_to_string(seat, a) for a in legal]
            action = rng.choice(legal)
            ours.apply(theirs.action_to_string(seat, action))
            theirs.apply_action(action)
        assert ours.is_over and ours.scores() == [int(r) for r in theirs.returns()]
        outcomes.add(tuple(theirs.returns()))
    assert len(outcomes) == 3  # wins for each seat, and draws


def test_placing_on_a_taken_cell_is_an_error_of_the_rules(tmp_path) -> None:
    path = tmp_path / "tic-tac-toe.yaml"
    path.write_text(TIC_TAC_TOE.replace('if: "board.is_empty(r, c)"', 'if: "r == 0"'))
    state = rulekit.load_game(path).new_game(players=2, seed=0)
    state.apply("x(0,0)")
    with pytest.raises(rulekit.RulekitError, match="the cell at row 0, column 0 holds x"):
        state.apply("o(0,0)")
