"""The simulate study's bookkeeping and the bots, on a tiny scripted game and on Qwixx."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulekit
from rulekit.bots import GreedyAgent, RandomAgent
from rulekit.errors import FlowError, RulekitError
from rulekit.studies.play import derive_seed, seat_bots
from rulekit.studies.simulate import simulate

QWIXX = Path(__file__).resolve().parent.parent / "games" / "qwixx.yaml"


# ---- a scripted stand-in for a Game, so the statistics can be checked by hand -----------------
class FakeAction:
    def __init__(self, label: str, seat: int) -> None:
        self.label = label
        self.seat = seat


class FakeState:
    """Each seat decides once between 'win' (+1 point) and 'lose'; one roll first."""

    def __init__(self, game: FakeGame, players: int, seed: int) -> None:
        self.game = game
        self.n = players
        self.seed = seed
        self.points = [0] * players
        self.seat = 0
        self.rolled = False
        self.turn = 1
        self.active = 0
        self.end_reason: str | None = None
        self.log: list[dict] = []

    @property
    def is_over(self) -> bool:
        return self.seat >= self.n

    @property
    def is_chance(self) -> bool:
        return not self.rolled

    @property
    def current_player(self) -> int | None:
        return None if self.is_over or self.is_chance else self.seat

    def resolve_chance(self, outcome: object = None) -> object:
        self.rolled = True
        if self.game.flow_error:
            raise FlowError("the rules broke")
        return {"d": 1}

    def legal_actions(self) -> list[FakeAction]:
        return [FakeAction(x, self.seat) for x in self.game.labels]

    def apply(self, action: FakeAction | str) -> None:
        label = action.label if isinstance(action, FakeAction) else action
        self.points[self.seat] += self.game.labels[label]
        self.seat += 1
        self.turn += 1
        if self.is_over:
            self.end_reason = "all decided"

    def preview(self, action: FakeAction | str) -> FakeState:
        c = FakeState(self.game, self.n, self.seed)
        c.points = list(self.points)
        c.seat = self.seat
        c.rolled = True
        c.apply(action)
        return c

    def scores(self) -> list[int]:
        return list(self.points)

    def winners(self) -> list[int]:
        best = max(self.points)
        return [i for i, p in enumerate(self.points) if p == best]


class FakeGame:
    name = "Fake"
    min_players = 2
    max_players = 4
    params = {"x": 1}

    def __init__(self, labels: dict[str, int] | None = None, flow_error: bool = False) -> None:
        self.labels = labels if labels is not None else {"win": 1, "lose": 0}
        self.flow_error = flow_error

    def new_game(self, players: int, seed: int) -> FakeState:
        return FakeState(self, players, seed)


def without_time(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "seconds"}


# ---- seating, seeds ---------------------------------------------------------------------------
def test_bots_fill_seats_cyclically_and_rotate_every_game() -> None:
    bots = ["random", "greedy"]
    assert seat_bots(bots, 3, 0) == ["random", "greedy", "random"]
    assert seat_bots(bots, 3, 1) == ["greedy", "random", "greedy"]
    assert seat_bots(["a", "b", "c"], 2, 2) == ["c", "a"]
    seen = {(seat, seat_bots(["a", "b", "c"], 3, i)[seat]) for i in range(3) for seat in range(3)}
    assert len(seen) == 9  # every bot in every seat


def test_derived_seeds_are_stable_and_distinct() -> None:
    assert derive_seed(0, "game", 1) == derive_seed(0, "game", 1)
    seeds = {derive_seed(s, "game", i) for s in range(5) for i in range(50)}
    assert len(seeds) == 250
    assert all(0 <= s < 2**63 for s in seeds)


# ---- statistics on the scripted game ----------------------------------------------------------
def test_greedy_always_wins_the_scripted_game_and_random_does_not() -> None:
    r = simulate(FakeGame(), games=40, players=2, bots=["greedy", "random"], seed=3)
    by_bot = {b["bot"]: b for b in r["by_bot"]}
    assert by_bot["greedy"]["seat_games"] == by_bot["random"]["seat_games"] == 40
    assert by_bot["greedy"]["score"]["mean"] == 1.0
    assert by_bot["greedy"]["win_rate"]["rate"] > by_bot["random"]["win_rate"]["rate"]
    # ties share the win: the seats' win rates add up to one game per game
    assert sum(s["wins"] for s in r["by_seat"]) == pytest.approx(40)
    assert r["end_reasons"] == {"all decided": 40}
    assert r["length"]["decisions"] == {
        "mean": 2.0, "ci95": [2.0, 2.0], "stdev": 0.0, "min": 2, "max": 2,
        "percentiles": {"5": 2, "25": 2, "50": 2, "75": 2, "95": 2}}
    # two options at each of the two decisions of every game
    assert r["options_per_decision"] == {"mean": 2.0, "ci95": [2.0, 2.0], "max": 2}
    assert r["params"] == {"x": 1}


def test_ties_count_one_over_the_number_of_winners() -> None:
    r = simulate(FakeGame({"same": 0}), games=10, players=4, bots=["random"], seed=0)
    assert [s["win_rate"]["rate"] for s in r["by_seat"]] == [0.25] * 4
    assert r["by_bot"][0]["win_rate"]["rate"] == 0.25
    assert r["tie_rate"] == {"rate": 1.0, "ci95": [0.7225, 1.0]}  # Wilson, 10 of 10
    assert r["by_bot"][0]["seat_games"] == 40


def test_same_seed_same_report_and_progress_is_called_per_game() -> None:
    calls: list[int] = []
    a = simulate(FakeGame(), 30, 3, ["random"], seed=11, progress=calls.append)
    b = simulate(FakeGame(), 30, 3, ["random"], seed=11)
    c = simulate(FakeGame(), 30, 3, ["random"], seed=12)
    assert without_time(a) == without_time(b)
    assert without_time(a) != without_time(c)
    assert sum(calls) == 30


def test_a_flow_error_stops_the_run_naming_the_game() -> None:
    with pytest.raises(FlowError, match=r"game 0 \(seed \d+.*the rules broke"):
        simulate(FakeGame(flow_error=True), 5, 2, ["random"], seed=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bots": ["nosuch"]}, "unknown bot 'nosuch'; known bots: greedy, mcts, random"),
        ({"players": 5}, "2 to 4 players, not 5"),
        ({"games": 0}, "at least 1"),
        ({"bots": []}, "no bots"),
    ],
)
def test_bad_arguments_are_user_errors(kwargs: dict, message: str) -> None:
    args = {"games": 3, "players": 2, "bots": ["random"], "seed": 0} | kwargs
    with pytest.raises(RulekitError, match=message):
        simulate(FakeGame(), **args)


# ---- bots -------------------------------------------------------------------------------------
def test_make_knows_random_greedy_and_mcts() -> None:
    assert rulekit.bots.known_bots() == ["greedy", "mcts", "random"]
    assert isinstance(rulekit.bots.make("random"), RandomAgent)
    assert isinstance(rulekit.bots.make(" Greedy "), GreedyAgent)
    with pytest.raises(RulekitError, match="known bots: greedy, mcts, random"):
        rulekit.bots.make("minimax")


def test_greedy_prefers_the_margin_and_breaks_ties_at_random() -> None:
    assert GreedyAgent.value([10, 4, 7], 0) == 3
    assert GreedyAgent.value([10, 4, 7], 1) == -6
    assert GreedyAgent.value([5], 0) == 5
    game = FakeGame({"a": 2, "b": 2, "c": 1})
    state = game.new_game(2, 0)
    state.rolled = True
    picks = {GreedyAgent().choose(state, random.Random(i)).label for i in range(30)}
    assert picks == {"a", "b"}


# ---- on a real game ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def qwixx() -> rulekit.Game:
    return rulekit.load_game(QWIXX)


def test_bots_only_play_legal_actions_in_qwixx(qwixx: rulekit.Game) -> None:
    rng = random.Random(5)
    for agent in (RandomAgent(), GreedyAgent()):
        state = qwixx.new_game(players=3, seed=5)
        while not state.is_over:
            if state.is_chance:
                state.resolve_chance()
                continue
            legal = {a.label for a in state.legal_actions()}
            choice = agent.choose(state, rng)
            assert choice.label in legal
            state.apply(choice)
        assert len(state.scores()) == 3


def test_qwixx_report_is_reproducible_and_complete(qwixx: rulekit.Game) -> None:
    a = simulate(qwixx, 12, 3, ["random", "greedy"], seed=4)
    b = simulate(qwixx, 12, 3, ["random", "greedy"], seed=4)
    assert without_time(a) == without_time(b)
    assert [s["seat"] for s in a["by_seat"]] == [0, 1, 2]
    assert sum(s["wins"] for s in a["by_seat"]) == pytest.approx(12)
    assert sum(a["end_reasons"].values()) == 12
    assert set(a["end_reasons"]) <= {"penalties", "locks"}
    assert a["length"]["turns"]["min"] >= 1
    assert {b["bot"]: b["seat_games"] for b in a["by_bot"]} == {"random": 18, "greedy": 18}


def test_greedy_beats_random_in_qwixx(qwixx: rulekit.Game) -> None:
    r = simulate(qwixx, 200, 2, ["greedy", "random"], seed=1)
    by_bot = {b["bot"]: b for b in r["by_bot"]}
    greedy, rand = by_bot["greedy"], by_bot["random"]
    # not only more wins: the intervals do not overlap
    assert greedy["win_rate"]["ci95"][0] > rand["win_rate"]["ci95"][1]
    assert greedy["score"]["ci95"][0] > rand["score"]["ci95"][1]
