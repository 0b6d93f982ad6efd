"""The example games in games/examples/, written in YAML only, as a designer meets them:
each is valid, plays through with random bots at every player count it allows, and plays
in the terminal to a result."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import run

EXAMPLES = sorted(p for p in (Path(__file__).resolve().parent.parent / "games" / "examples")
                  .glob("*.yaml") if ".tests." not in p.name)


def test_every_example_is_valid_and_plays_through_at_every_player_count():
    result = run("validate", "--strict", "--simulate", "12", *map(str, EXAMPLES))
    assert result.exit_code == 0, result.output
    assert result.output.count("no problems") == len(EXAMPLES) >= 6


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_plays_in_the_terminal_to_a_result(path: Path):
    result = run("play", str(path), "--auto", "--seed", "2", "--bots", "greedy", "--no-color")
    assert result.exit_code == 0, result.output
    assert "game over after" in result.output and "winner" in result.output


CANT_STOP = Path(__file__).resolve().parent.parent / "games" / "examples" / "cant-stop.yaml"


def dice(*faces: int) -> dict:
    return {f"d{i + 1}": f for i, f in enumerate(faces)}


def markers(st, track: str, seat: int) -> dict:
    """The fields a seat's pawns stand on, by column (columns where it has none left out)."""
    snap = st.view()["components"][track]
    return {lane: f for lane, f in zip(snap["lanes"], snap["positions"][seat]) if f}


def test_cant_stop_pairs_the_dice_and_limits_the_runners():
    import rulekit

    st = rulekit.load_game(CANT_STOP).new_game(players=2, seed=0)
    st.resolve_chance(dice(1, 2, 3, 4))
    assert [a.label for a in st.legal_actions()] == ["3 + 7", "4 + 6", "5 + 5"]
    st.apply("3 + 7")
    st.apply("roll again")
    # one runner left: 2 and 10 would need two, a double six needs one
    st.resolve_chance(dice(1, 1, 5, 5))
    assert [a.label for a in st.legal_actions()] == ["6 + 6", "2", "10"]
    st.apply("6 + 6")
    st.apply("roll again")
    assert markers(st, "climb", 0) == {3: 1, 6: 2, 7: 1}
    st.resolve_chance(dice(1, 1, 1, 1))  # only 2s: no runner left for them, the climb is lost
    assert st.active_player == 1 and markers(st, "climb", 0) == markers(st, "board", 0) == {}
    st.resolve_chance(dice(2, 2, 2, 2))
    st.apply("4 + 4")
    st.apply("stop")
    assert markers(st, "board", 1) == {4: 2} and st.active_player == 0


def test_cant_stop_a_claimed_column_sends_the_others_back_and_wins():
    import rulekit

    game = rulekit.load_game(CANT_STOP, overrides={"heights": [3] * 11, "columns_to_win": 2})
    st = game.new_game(players=2, seed=0)
    st.resolve_chance(dice(2, 2, 3, 3))  # player 0: 4 + 6, 5 + 5
    st.apply("5 + 5")
    st.apply("stop")
    st.resolve_chance(dice(2, 3, 2, 3))  # player 1: 5 + 5 twice, to the top of column 5
    st.apply("5 + 5")
    st.apply("roll again")
    st.resolve_chance(dice(1, 4, 1, 4))
    assert "5 + 5" not in [a.label for a in st.legal_actions()]  # one field left in 5
    st.apply("5")
    st.apply("stop")
    assert markers(st, "board", 1) == {5: 3} and markers(st, "board", 0) == {}
    st.resolve_chance(dice(2, 3, 1, 4))  # column 5 is claimed: no move into it
    assert [a.label for a in st.legal_actions()] == ["3 + 7", "4 + 6"]
    st.apply("4 + 6")
    st.apply("stop")
    assert not st.is_over and st.scores() == [0, 1]
    st.resolve_chance(dice(1, 1, 1, 1))  # player 1 climbs column 2 to the top: two columns
    st.apply("2 + 2")
    st.apply("roll again")
    st.resolve_chance(dice(1, 1, 1, 1))
    st.apply("2")
    st.apply("stop")
    assert st.is_over and st.scores() == [0, 2] and st.winners() == [1]
    assert st.end_text() == "player 1 claimed 2 columns"


@pytest.mark.parametrize("name, players", [("liars-dice", "2"), ("yacht", "2"),
                                           ("pig", "3")])  # pig: scores of -0.5 each
def test_a_logged_example_replays_to_the_same_result(tmp_path, name, players):
    import shutil

    game = tmp_path / f"{name}.yaml"
    shutil.copy(CANT_STOP.parent / f"{name}.yaml", game)
    played = run("play", str(game), "--auto", "--seed", "4", "--log", str(tmp_path / "g.jsonl"),
                 "--no-color", "--players", players)
    assert played.exit_code == 0, played.output
    replayed = run("replay", str(tmp_path / "g.jsonl"))
    assert replayed.exit_code == 0, replayed.output
    result = [line.replace(" (random)", "") for line in played.output.splitlines()
              if line.startswith(("scores:", "winner"))]
    assert len(result) == 2 and all(line in replayed.output for line in result)
