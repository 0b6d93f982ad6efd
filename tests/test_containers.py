"""List and map components: what a game file stores in them, reads back, and may not do."""

from pathlib import Path

import pytest

import rulekit
from rulekit.errors import FlowError, GameFileError
from tests.test_cli import run

GAME = """\
rulekit: 1
name: Containers
players: {min: 2, max: 3}
params:
  colours: {type: list, items: str, default: [red, blue, green]}
components:
  passed: {kind: list, items: int, max_size: 4}
  claimed: {kind: list, items: str, per: player}
  tally: {kind: map, keys: params.colours, init: 0}
  owner: {kind: map, keys: params.colours, items: str, init: nobody}
vars:
  moves: {init: 0}
flow:
  turn:
    - choose:
        pass: pass
        options:
          - for: "c in params.colours"
            if: "owner[c] == 'nobody'"
            label: "claim {c}"
            do:
              - append: {list: player.claimed, value: c}
              - put: {map: owner, key: c, value: "'player ' + str(player.seat)"}
              - add_to: {map: tally, key: c, amount: "player.seat + 1"}
          - for: "c in player.claimed.items"
            label: "give up {c}"
            do:
              - remove_value: {list: player.claimed, value: c}
              - put: {map: owner, key: c, value: "'nobody'"}
    - append: {list: passed, value: active.seat}
    - add: {moves: 1}
end: {when: "moves >= 4"}
score: "len(player.claimed) * 10 + count(s for s in passed.items if s == player.seat)"
display:
  game: "owners: {join(', ', owner.values)}; last mover {passed.last}"
"""


def load(tmp_path: Path, text: str = GAME) -> rulekit.Game:
    path = tmp_path / "containers.yaml"
    path.write_text(text)
    return rulekit.load_game(path)


def test_lists_and_maps_hold_what_the_effects_put_in_them(tmp_path: Path) -> None:
    state = load(tmp_path).new_game(players=2, seed=0)
    state.apply("claim red")
    state.apply("claim blue")
    # player 0 sees only what is still free, and may give up what it holds
    assert [a.label for a in state.legal_actions()] == ["claim green", "give up red", "pass"]
    state.apply("give up red")
    state.apply("claim red")
    view = state.view()["components"]
    assert view["claimed"] == [[], ["blue", "red"]]
    assert view["owner"] == ["player 1", "player 1", "nobody"]
    assert view["tally"] == [3, 2, 0]  # red: 1 (player 0) + 2 (player 1); blue: 2
    assert view["passed"] == [0, 1, 0, 1]
    assert state.is_over and state.scores() == [2, 22]


def test_containers_show_in_the_terminal(tmp_path: Path) -> None:
    path = tmp_path / "containers.yaml"
    path.write_text(GAME)
    result = run("play", str(path), "--bots", "random", "--seed", "1",
                 input="claim red\npass\npass\n")
    assert result.exit_code == 0, result.output
    assert "tally: red: 1, blue: 0, green: 0" in result.output
    assert "claimed: red" in result.output
    assert "owners: player 0, nobody, nobody; last mover 1" in result.output


def test_a_list_stops_at_its_max_size(tmp_path: Path) -> None:
    game = load(tmp_path, GAME.replace("moves >= 4", "moves >= 9"))
    state = game.new_game(players=2, seed=0)
    for _ in range(4):
        state.apply("pass")
    with pytest.raises(FlowError, match="passed is full: it holds at most 4 items"):
        state.apply("pass")


def test_a_value_of_another_type_is_refused_when_it_is_stored(tmp_path: Path) -> None:
    game = load(tmp_path, GAME.replace("value: active.seat", "value: \"'x'\""))
    state = game.new_game(players=2, seed=0)
    with pytest.raises(FlowError, match="passed holds int values, not 'x'"):
        state.apply("pass")


@pytest.mark.parametrize("old, new, message", [
    ("items: int, max_size: 4", "items: float, max_size: 4",
     "'float' is not one of: int, str, bool"),
    ("items: str, per: player", "items: str, per: player, init: [1, 2]",
     "list of str values: 1 is not of that type"),
    ("init: nobody", "init: 7", "map of str values: 7 is not of that type"),
    ("max_size: 4", "max_size: 100000", "100000 is greater than the maximum of 10000"),
])
def test_mistakes_in_a_container_are_located(tmp_path: Path, old: str, new: str,
                                             message: str) -> None:
    text = GAME.replace(old, new)
    with pytest.raises(GameFileError) as err:
        load(tmp_path, text)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if new in t)
    assert f"containers.yaml:{line}:" in str(err.value)
    assert message in str(err.value)


def test_an_expression_reads_a_container_with_its_types(tmp_path: Path) -> None:
    text = GAME.replace("moves >= 4", "passed.contains('x')")
    with pytest.raises(GameFileError, match="str"):
        load(tmp_path, text)


READS = """\
rulekit: 1
name: Reads
players: {min: 2, max: 2}
components:
  xs: {kind: list, items: int, init: [5, 7, 5]}
  marks: {kind: map, keys: [a, b, c], items: bool}
vars:
  done: {init: false}
flow:
  setup:
    - set_item: {list: xs, index: -1, value: 9}
    - append: {list: xs, value: 7}
    - put: {map: marks, key: "'b'", value: true}
    - put: {map: marks, key: "'c'", value: true}
  turn:
    - choose:
        options:
          - {label: reset, do: [{reset_map: {map: marks}}, {clear_list: {list: xs}}]}
          - {label: keep, do: []}
    - set: {done: true}
end: {when: done}
score: 0
"""

READS_TESTS = """\
scenarios:
  reads:
    steps:
      - values:
          xs.items: [5, 7, 9, 7]
          "[xs.count(7), xs.index_of(9), xs.index_of(4), len(xs), xs[-1]]": [2, 2, -1, 4, 7]
          "[7 in xs, xs.contains(4), marks['b'], 'z' in marks]": [true, false, true, false]
          marks.keys_with(true): [b, c]
      - play: reset
      - values: {"[len(xs), len(marks.keys_with(true))]": [0, 0], "xs.last == none": true}
"""


def test_what_expressions_read_from_lists_and_maps(tmp_path: Path) -> None:
    (tmp_path / "reads.yaml").write_text(READS)
    (tmp_path / "reads.tests.yaml").write_text(READS_TESTS)
    result = run("test", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "1 scenarios: 1 passed, 0 failed" in result.output
