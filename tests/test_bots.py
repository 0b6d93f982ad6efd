"""The bots: specs as users write them, and the search bot's promises (reproducible,
blind to what its seat cannot see and to dice not yet rolled, and finding a clear move).

How strong the bots are is measured in the README (`rulekit simulate`), not here.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_security_hidden import domino7_twins

import rulekit
from rulekit import terminal
from rulekit.bots import DEFAULT_OPPONENT, MctsBot, make
from rulekit.cli import main
from rulekit.errors import RulekitError

GAMES = Path(__file__).resolve().parent.parent / "games"
QWIXX = GAMES / "qwixx.yaml"


def qwixx_roll(w1: int, w2: int, red: int = 1, yellow: int = 1, green: int = 1,
               blue: int = 1) -> dict:
    return {"white1": w1, "white2": w2, "red": red, "yellow": yellow, "green": green,
            "blue": blue}


# ---- specs ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("spec", "iterations", "seconds", "rollout"), [
    ("mcts", 200, None, "random"),
    ("mcts:400", 400, None, "random"),
    (" MCTS:0.5s ", None, 0.5, "random"),
    ("mcts:200:greedy", 200, None, "greedy"),
    ("mcts:greedy:2s", None, 2.0, "greedy"),
    ("mcts:2000:1s", 2000, 1.0, "random"),
    ("mcts:10000:10s", 10000, 10.0, "random"),   # the largest budgets
    ("mcts:.25s", None, 0.25, "random"),
    ("mcts:010.0s", None, 10.0, "random"),
])
def test_mcts_specs_give_their_budget_and_rollout(spec, iterations, seconds, rollout) -> None:
    bot = make(spec, seed=1)
    assert isinstance(bot, MctsBot)
    assert (bot.iterations, bot.seconds, bot.rollout) == (iterations, seconds, rollout)
    assert bot.name == spec.strip().lower()


@pytest.mark.parametrize(("spec", "message"), [
    ("alphazero", "unknown bot 'alphazero'; known bots: greedy, mcts, random"),
    ("", "unknown bot ''"),
    ("mcts:0", "bad budget '0' in bot 'mcts:0'"),
    ("mcts:-5", "bad budget '-5'"),
    ("mcts:lots", "bad budget 'lots'"),
    ("mcts:0s", "bad budget '0s'"),
    ("mcts:nans", "bad budget 'nans'"),
    ("mcts:9999s", "budget '9999s' in bot 'mcts:9999s' is too large: a bot thinks at most "
                   "10000 iterations or 10 seconds a move"),
    ("mcts:5000000", "'5000000' in bot 'mcts:5000000' is too large"),
    ("mcts:10001", "is too large"),
    ("mcts:10.5s", "is too large"),
    ("mcts:0.0s", "bad budget '0.0s'"),
    ("mcts:10:20", "two budgets in bot 'mcts:10:20'"),
    ("mcts:1s:2s", "one of iterations and one of seconds at most"),
    ("mcts:greedy:random", "two rollout policies"),
    ("greedy:5", "bot greedy takes no options"),
    ("openspiel-mcts:100000", "budget '100000' in bot 'openspiel-mcts:100000' is too large: "
                              "openspiel-mcts thinks at most 1000 simulations a move"),
    ("openspiel-mcts:0", "simulations from 1 to 1000"),
    ("openspiel-mcts:5:5", "simulations from 1 to 1000"),
])
def test_bad_specs_say_what_is_wrong(spec, message) -> None:
    with pytest.raises(RulekitError) as err:
        make(spec)
    assert message in str(err.value)


def test_the_api_reaches_the_bots_from_the_package_and_they_play_their_own_rng() -> None:
    state = rulekit.load_game(QWIXX).new_game(players=2, seed=4)
    state.resolve_chance(qwixx_roll(3, 4, red=2, yellow=5))
    picks = {name: [make(name, seed=9).choose(state).label for _ in range(2)]
             for name in ("random", "greedy", "mcts:20")}
    for name, labels in picks.items():
        assert labels[0] == labels[1], name  # a seed gives the same move
        assert labels[0] in {a.label for a in state.legal_actions()}
    assert rulekit.bots.make is make


def test_simulate_and_play_take_specs_and_refuse_bad_ones() -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["simulate", str(QWIXX), "--bots", "random,mcts:zero"])
    assert bad.exit_code == 2
    assert "bad budget 'zero'" in bad.output and "Traceback" not in bad.output
    bad = runner.invoke(main, ["play", str(QWIXX), "--auto", "--bots", "mcts:1:2:3"])
    assert bad.exit_code == 2 and "two budgets" in bad.output
    ok = runner.invoke(main, ["simulate", str(QWIXX), "--games", "2", "--players", "2",
                              "--bots", "mcts:5,greedy", "--json"])
    assert ok.exit_code == 0, ok.output
    assert "mcts:5" in ok.output and "greedy" in ok.output


def test_a_level_may_name_a_search_bot_and_a_bad_one_is_a_located_error(tmp_path) -> None:
    base = (GAMES / "qwixx.yaml").read_text()
    good = tmp_path / "good.yaml"
    good.write_text(base + "\nlevels:\n  - {min_score: 0, bots: [mcts:50:greedy]}\n")
    assert rulekit.load_game(good).levels[0]["bots"] == ["mcts:50:greedy"]
    bad = tmp_path / "bad.yaml"
    bad.write_text(base + "\nlevels:\n  - {min_score: 0, bots: [mcts:fast]}\n")
    with pytest.raises(rulekit.GameFileError) as err:
        rulekit.load_game(bad)
    assert "mcts:fast" in str(err.value)


@pytest.mark.parametrize("command", [
    ["play", str(QWIXX), "--auto"],
    ["simulate", str(QWIXX), "--games", "1"],
    ["compare", str(QWIXX), "--set-b", "penalty_points=10", "--games", "1"],
    ["ladder", str(QWIXX), "--games", "1", "--bots", "random,mcts:999999"],
])
def test_an_absurd_budget_is_one_message_from_every_command(command) -> None:
    """`mcts:999999` would think for minutes a move, hours a game: refused before a game."""
    args = command if "--bots" in command else [*command, "--bots", "greedy,mcts:999999"]
    started = time.monotonic()
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "'999999' in bot 'mcts:999999' is too large" in result.output
    assert "at most 10000 iterations or 10 seconds a move" in result.output
    assert "Traceback" not in result.output and time.monotonic() - started < 30


def test_a_bot_from_a_spec_stops_at_the_ceiling_whatever_its_iterations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """mcts:10000:greedy takes minutes a Qwixx move; a spec's bot stops at MAX_SECONDS
    (made small here), while a bot made in Python without a ceiling runs its budget."""
    monkeypatch.setattr(rulekit.bots, "MAX_SECONDS", 0.3)
    state = rulekit.load_game(QWIXX).new_game(players=5, seed=3)
    state.resolve_chance(qwixx_roll(3, 4, red=2, yellow=5))
    bot = make("mcts:10000:greedy", seed=1)
    started = time.monotonic()
    assert bot.choose(state).label in {a.label for a in state.legal_actions()}
    assert time.monotonic() - started < 3
    assert 0 < sum(s["visits"] for s in bot.stats.values()) < 10000
    small = MctsBot(iterations=30)
    small.choose(state, random.Random(1))
    assert sum(s["visits"] for s in small.stats.values()) == 30


@pytest.mark.parametrize("bot", ["mcts:999999", "mcts:3600s", "mcts:500:11s", "mcts:0s"])
def test_a_level_asking_for_an_absurd_budget_is_a_located_error(tmp_path, bot) -> None:
    file = tmp_path / "slow.yaml"
    file.write_text((GAMES / "qwixx.yaml").read_text()
                    + f"\nlevels:\n  - {{min_score: 0, bots: [{bot}]}}\n")
    with pytest.raises(rulekit.GameFileError):
        rulekit.load_game(file)
    for command in (["validate", str(file)], ["play", str(file)]):
        result = CliRunner().invoke(main, command, input="quit\n")
        assert result.exit_code == 1, result.output
        line = next(ln for ln in result.output.splitlines() if bot in ln)
        assert line.startswith(f"{file}:") and f"'{bot}' is not a valid bot" in line
        assert "at most 10000 iterations and 10 seconds a move" in result.output
        assert "Traceback" not in result.output


def test_bots_given_to_play_replace_the_bots_of_a_files_levels(tmp_path) -> None:
    file = tmp_path / "series.yaml"
    file.write_text((GAMES / "qwixx.yaml").read_text()
                    + "\nlevels:\n  - {min_score: 0, bots: [mcts:10000]}\n")
    out = CliRunner().invoke(main, ["play", str(file), "--seed", "1", "--bots", "greedy"],
                             input="quit\n").output
    assert "player 1 (greedy)" in out and "mcts" not in out
    out = CliRunner().invoke(main, ["play", str(file), "--auto", "--seed", "1",
                                    "--bots", "random"]).output
    assert "player 0 (random), player 1 (random)" in out and "mcts" not in out
    assert "level 1 (level 1)" in out  # the level was played to its end
    # without --bots the level's own bots play
    out = CliRunner().invoke(main, ["play", str(file), "--seed", "1"], input="quit\n").output
    assert "player 1 (mcts:10000)" in out
    assert "replace the bots of the file's levels" in " ".join(
        CliRunner().invoke(main, ["play", "--help"]).output.split())


# ---- the search bot -------------------------------------------------------------------------
def test_same_seed_same_decisions_and_statistics() -> None:
    state = rulekit.load_game(QWIXX).new_game(players=3, seed=2)
    state.resolve_chance(qwixx_roll(2, 5, red=6, yellow=3, green=2, blue=4))
    runs = []
    for _ in range(2):
        bot = MctsBot(iterations=60)
        label = bot.choose(state, random.Random(11)).label
        runs.append((label, bot.stats))
    assert runs[0] == runs[1]
    assert sum(s["visits"] for s in runs[0][1].values()) == 60
    other = MctsBot(iterations=60)
    other.choose(state, random.Random(12))
    assert other.stats != runs[0][1]  # the rng is what differs, and it matters


def test_a_time_budget_stops_in_time() -> None:
    state = rulekit.load_game(QWIXX).new_game(players=2, seed=2)
    state.resolve_chance(qwixx_roll(2, 5, red=6))
    bot = make("mcts:0.2s", seed=3)
    started = time.perf_counter()
    bot.choose(state)
    assert time.perf_counter() - started < 1.0  # one iteration at most past the deadline
    assert sum(s["visits"] for s in bot.stats.values()) >= 1


@pytest.mark.parametrize("rollout", ["random", "greedy"])
def test_the_search_does_not_see_what_its_seat_cannot(rollout: str) -> None:
    """Domino 7 positions alike for seat 0 but for the other hands and the stock's order:
    the same rng gives the same decision and the same visits and values per action, with
    random playouts and with greedy ones (which preview every move of their copies)."""
    a, b = domino7_twins()
    assert a.view(0) == b.view(0) and a.view() != b.view()
    results = []
    for state in (a, b):
        bot = MctsBot(iterations=40, rollout=rollout)
        results.append((bot.choose(state, random.Random(21)).label, bot.stats))
    assert results[0] == results[1]
    assert sum(1 for s in results[0][1].values() if s["visits"]) > 1


def test_the_search_does_not_know_the_dice_before_they_are_rolled() -> None:
    """Two Qwixx games with other seeds (other dice to come) and the same roll so far
    look the same to the bot: its statistics are equal for the same rng."""
    game = rulekit.load_game(QWIXX)
    stats = []
    for seed in (1, 2):
        state = game.new_game(players=2, seed=seed)
        state.resolve_chance(qwixx_roll(4, 4, red=2, yellow=6, green=5, blue=1))
        bot = MctsBot(iterations=40)
        bot.choose(state, random.Random(5))
        stats.append(bot.stats)
    assert stats[0] == stats[1]


def qwixx_lock_position(seat1_behind: bool) -> rulekit.State:
    """Qwixx where the first locked row ends the game: seat 0 has crossed red 2 to 6 and
    rolls two white sixes and a red six, so the white sum locks red at once for 13 points.
    Seat 1 has crossed green 12 to 8 (15 points), and unless it is behind, yellow 2 to 6
    and blue 12 to 8 as well (45 points)."""
    state = rulekit.load_game(QWIXX, overrides={"locks_to_end": 1}).new_game(players=2, seed=1)

    def turn(roll: dict, seat0: str, seat1: str, second: str) -> None:
        state.resolve_chance(roll)
        for _ in range(2):  # action 1, the active player first
            state.apply(seat0 if state.current_player == 0 else seat1)
        state.apply(second)  # the active player's action 2

    for v in (2, 3, 4, 5, 6):
        turn(qwixx_roll(1, v - 1), f"red {v}", "pass" if seat1_behind else f"yellow {v}", "pass")
        k = 12 + 2 - v
        turn(qwixx_roll(6, k - 6, blue=k - 6), "pass", f"green {k}",
             "pass" if seat1_behind else f"blue {k}")
    state.resolve_chance(qwixx_roll(6, 6, red=6, yellow=2, green=2, blue=2))
    return state


def test_the_search_does_not_end_a_lost_game_for_points_that_greedy_takes() -> None:
    """Behind 15 to 45, locking red gains 13 points, the most of any move, and greedy takes
    it; but it ends the game lost. The search plays on, whatever its seed; ahead (15 to
    15), it takes the lock that ends the game won."""
    behind = qwixx_lock_position(seat1_behind=False)
    assert behind.scores() == [15, 45] and behind.current_player == 0
    assert sorted(a.label for a in behind.legal_actions()) == ["blue 12", "green 12", "pass",
                                                               "red 12"]
    assert make("greedy", seed=0).choose(behind).label == "red 12"
    for seed in range(3):
        bot = MctsBot(iterations=100)
        assert bot.choose(behind, random.Random(seed)).label != "red 12"
        assert bot.stats["red 12"]["visits"] == min(s["visits"] for s in bot.stats.values())
    ahead = qwixx_lock_position(seat1_behind=True)
    assert ahead.scores() == [15, 15]
    for seed in range(3):
        assert MctsBot(iterations=100).choose(ahead, random.Random(seed)).label == "red 12"
    ahead.apply("red 12")
    ahead.apply("pass")  # seat 1's action 1: the lock ends the game after it
    assert ahead.is_over and ahead.scores() == [28, 15]


def best_margin(state: rulekit.State) -> int:
    """Seat 0's final score minus seat 1's under best play by both (a game of open hands)."""
    if state.is_over:
        scores = state.scores()
        return scores[0] - scores[1]
    values = []
    for action in state.legal_actions():
        copy = state.clone()
        copy.apply(action)
        values.append(best_margin(copy))
    return max(values) if state.current_player == 0 else min(values)


def test_the_search_declines_a_lay_that_scores_now_and_loses_the_game() -> None:
    """Domino Fives cut down to a double-three set, five tiles each and no stock, so seat 0
    can tell seat 1's hand. With open ends 1 and 2, laying 2|2 scores 20 at once (greedy's
    move) and loses the game against best play; 0|2 at the right scores nothing and wins
    it. The search lays 0|2, with random and with greedy playouts."""
    g = rulekit.load_game(GAMES / "domino-fives.yaml",
                          overrides={"highest_pip": 3, "hand_size": 5})
    state = g.new_game(players=2, seed=1)
    hands = ["2|2", "1|3", "0|0", "0|1", "0|2"], ["3|3", "0|3", "1|1", "2|3", "1|2"]
    state.resolve_chance([[int(x) for x in t.split("|")] for hand in hands for t in hand])
    for label in ("3|3", "1|3 left", "2|3 right"):
        state.apply(label)
    assert state.current_player == 0
    assert sorted(a.label for a in state.legal_actions()) == ["0|1 left", "0|2 right",
                                                             "2|2 right"]
    assert state.preview("2|2 right").scores()[0] == 20
    assert rulekit.bots.GreedyAgent().choose(state, random.Random(0)).label == "2|2 right"
    after = {}
    for label in ("2|2 right", "0|2 right"):
        copy = state.clone()
        copy.apply(label)
        after[label] = best_margin(copy)
    assert after["2|2 right"] < 0 < after["0|2 right"]
    for rollout in ("random", "greedy"):
        for seed in range(3):
            bot = MctsBot(iterations=200, rollout=rollout)
            assert bot.choose(state, random.Random(seed)).label == "0|2 right", (rollout, seed)


def test_a_person_is_told_when_a_bot_thinks_and_domino7_ends_with_search_bots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    levels = rulekit.load_game(GAMES / "domino7.yaml").levels
    # the last two levels bring the search bot: one of them, then three
    assert [sum(b.startswith("mcts") for b in level["bots"]) for level in levels[-2:]] == [1, 3]
    assert not any(b.startswith("mcts") for level in levels[:-2] for b in level["bots"])
    file = tmp_path / "slow.yaml"
    file.write_text((GAMES / "domino7.yaml").read_text().split("\nlevels:")[0]
                    + "\nlevels:\n  - {min_score: 0, bots: [mcts:1000, random, random]}\n")
    # an iteration budget keeps the game the same on any machine; a note after 0.01 s
    # shows for 1000 iterations (some hundredths of a second and more) and never for a
    # random bot (microseconds)
    monkeypatch.setattr(terminal, "THINKING_NOTE_AFTER", 0.01)
    result = CliRunner().invoke(main, ["play", str(file), "--seed", "2"], input="a\na\n")
    assert result.exit_code == 0, result.output
    assert "player 1 (mcts:1000) is thinking..." in result.output
    assert "player 2 (random) is thinking" not in result.output


def test_a_person_plays_against_the_search_bot_unless_told_otherwise() -> None:
    """Without --bots the opponents are the default search bot, named in a header that
    fits the screen; it stops at a second whatever the machine; --auto watches random
    bots (quick), and --bots chooses."""
    bot = make(DEFAULT_OPPONENT)
    assert isinstance(bot, MctsBot) and bot.iterations and bot.seconds and bot.seconds <= 1
    # seat 0 decides first, so the game stops before a bot has to move
    out = CliRunner().invoke(main, ["play", str(QWIXX), "--players", "3", "--seed", "1"],
                             input="quit\n", env={"COLUMNS": "80"}).output
    header = out.split("\nEach player")[0]
    assert (f"player 1 ({DEFAULT_OPPONENT}), player 2 ({DEFAULT_OPPONENT})"
            in " ".join(header.split()))
    assert all(len(line) <= 80 for line in header.split("\n"))
    auto = CliRunner().invoke(main, ["play", str(QWIXX), "--auto", "--seed", "1"]).output
    assert auto.startswith("Qwixx, 2 players: player 0 (random), player 1 (random)")
    chosen = CliRunner().invoke(main, ["play", str(QWIXX), "--bots", "greedy", "--seed", "1"],
                                input="quit\n").output
    assert chosen.startswith("Qwixx, 2 players: player 0 (you), player 1 (greedy)")
