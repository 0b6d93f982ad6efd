"""Located diagnostics for broken game files: YAML, schema, semantics, overrides, extends."""

from pathlib import Path

import pytest

import rulekit

QWIXX = (Path(__file__).resolve().parent.parent / "games" / "qwixx.yaml").read_text()


def errors(tmp_path, text, name="game.yaml", overrides=None):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(rulekit.GameFileError) as exc:
        rulekit.load_game(path, overrides=overrides)
    return exc.value.diagnostics


def line_of(text, needle):
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i, line.index(needle) + 1
    raise AssertionError(needle)


def test_yaml_syntax_error_is_located(tmp_path):
    text = QWIXX.replace("players: {min: 2, max: 5}", "players: {min: 2, max: 5")
    (d,) = errors(tmp_path, text)
    assert d.file.endswith("game.yaml") and d.line > 0 and "YAML syntax" in d.message


def test_unknown_top_level_key_has_a_did_you_mean(tmp_path):
    text = QWIXX.replace("\nscore:", "\nscroe:")
    ds = errors(tmp_path, text)
    msgs = [d.message for d in ds]
    assert "unknown key 'scroe'" in msgs
    d = ds[msgs.index("unknown key 'scroe'")]
    assert d.hint == "did you mean 'score'?"
    assert d.line == line_of(text, "scroe:")[0]


def test_misspelt_step_is_located_with_a_hint(tmp_path):
    text = QWIXX.replace("    - roll: dice", "    - rol: dice")
    ds = errors(tmp_path, text)
    assert any(d.message == "unknown key 'rol'" and d.hint == "did you mean 'roll'?" and
               d.line == line_of(text, "rol: dice")[0] for d in ds)


def test_wrong_type_and_out_of_range_default(tmp_path):
    text = QWIXX.replace("penalty_points: {type: int, default: 5,", "penalty_points: {type: int, "
                         "default: five,")
    ds = errors(tmp_path, text)
    assert any("penalty_points" in d.message and "expected int" in d.message for d in ds)


def test_expression_syntax_error_points_at_the_column_inside_the_expression(tmp_path):
    text = QWIXX.replace('last_needs: "row.crosses >= params.min_crosses_to_lock"',
                         'last_needs: "row.crosses >= >= params.min_crosses_to_lock"')
    (d,) = errors(tmp_path, text)
    line, col = line_of(text, "row.crosses >= >=")
    assert (d.line, d.col) == (line, col + len("row.crosses >= "))
    assert "last_needs" in d.path


def test_unknown_name_in_expression_with_hint(tmp_path):
    text = QWIXX.replace("params.penalty_points * player.penalties",
                         "params.penalty_points * player.penaltys")
    ds = errors(tmp_path, text)
    assert len(ds) == 1
    assert "penaltys" in ds[0].message and ds[0].hint == "did you mean 'penalties'?"


def test_unknown_param_in_expression(tmp_path):
    text = QWIXX.replace("params.locks_to_end", "params.lock_to_end")
    (d,) = errors(tmp_path, text)
    assert "lock_to_end" in d.message and "locks_to_end" in d.hint


def test_wrong_arity_of_a_builtin(tmp_path):
    text = QWIXX.replace('len(sheet.locked)', 'len(sheet.locked, 2)', 1)
    (d,) = errors(tmp_path, text)
    assert "len" in d.message


def test_several_errors_are_all_reported(tmp_path):
    text = (QWIXX.replace("params.lock_to_end", "x")
            .replace("params.locks_to_end", "params.nope")
            .replace("player.penalties\n", "player.penaltys\n")
            .replace("row.can_cross(n)", "row.can_cros(n)"))
    ds = errors(tmp_path, text)
    assert len(ds) >= 3
    assert [d.line for d in ds] == sorted(d.line for d in ds)


def test_unknown_component_in_a_chance_step(tmp_path):
    text = QWIXX.replace("    - roll: dice", "    - roll: dize")
    (d,) = errors(tmp_path, text)
    assert "dize" in d.message and d.hint == "did you mean 'dice'?"


def test_a_procedure_that_is_never_run_loads_and_does_nothing(tmp_path):
    # a warning for `rulekit validate` (tests/test_designer.py), not an error
    path = tmp_path / "game.yaml"
    path.write_text(QWIXX.replace("    - run: colour_sum\n", ""))
    state = rulekit.load_game(path).new_game(players=2, seed=1)
    state.resolve_chance()
    state.apply("pass")
    state.apply("pass")     # the white sum for both players, and no colour action: turn 2
    assert state.turn == 2 and state.is_chance


def test_override_of_unknown_param_or_wrong_type(tmp_path):
    (d,) = errors(tmp_path, QWIXX, overrides={"penalty_point": 3})
    assert "penalty_point" in d.message and d.hint == "did you mean 'penalty_points'?"
    (d,) = errors(tmp_path, QWIXX, overrides={"penalty_points": "many"})
    assert "expected int" in d.message
    (d,) = errors(tmp_path, QWIXX, overrides={"max_penalties": 0})
    assert "below the minimum" in d.message


def test_extends_a_missing_file_or_a_cycle(tmp_path):
    (d,) = errors(tmp_path, "extends: nowhere.yaml\nname: X\n")
    assert "nowhere.yaml" in d.message and d.line == 1
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n")
    (d,) = errors(tmp_path, "extends: a.yaml\n", name="b.yaml")
    assert "cycle" in d.message


def test_a_variant_overrides_only_what_it_names(tmp_path):
    (tmp_path / "base.yaml").write_text(QWIXX)
    (tmp_path / "v.yaml").write_text("extends: base.yaml\nname: Short Qwixx\n"
                                     "params:\n  max_penalties: {type: int, default: 1}\n")
    g = rulekit.load_game(tmp_path / "v.yaml")
    assert g.name == "Short Qwixx" and g.params["max_penalties"] == 1
    assert g.params["penalty_points"] == 5
    s = g.new_game(players=2, seed=1)
    s.resolve_chance()
    while not s.is_chance and not s.is_over:
        s.apply("pass")
    assert s.is_over and s.end_reason == "penalties"


def test_errors_in_a_variant_point_into_the_variant(tmp_path):
    (tmp_path / "base.yaml").write_text(QWIXX)
    ds = errors(tmp_path, "extends: base.yaml\nscore: 'sum(1, '\n", name="v.yaml")
    assert ds[0].file.endswith("v.yaml") and ds[0].line == 2


def test_alias_bomb_is_refused(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    prev = "a"
    for name in "bcdefg":
        bomb += f"{name}: &{name} [{', '.join('*' + prev for _ in range(10))}]\n"
        prev = name
    (d,) = errors(tmp_path, bomb)
    assert "more than" in d.message


def test_shipped_games_are_valid(root):
    for path in sorted((root / "games").rglob("*.yaml")):
        if path.name.endswith(".tests.yaml"):  # rule tests, not games
            continue
        rulekit.load_game(path)


def test_a_variable_keeps_its_type(tmp_path):
    text = QWIXX.replace("- set: {player.crossed: true}", "- set: {player.crossed: 3}", 1)
    (d,) = errors(tmp_path, text)
    assert "bool" in d.message and d.line == line_of(text, "player.crossed: 3")[0]


def test_set_of_an_unknown_variable(tmp_path):
    text = QWIXX.replace("- add: {active.penalties: 1}", "- add: {active.penalty: 1}")
    (d,) = errors(tmp_path, text)
    assert "penalty" in d.message and d.hint == "did you mean 'penalties'?"


def test_a_mapping_with_number_and_name_keys_is_an_unknown_key_error(tmp_path):
    # the schema's message lists the keys it refuses: numbers and names together
    text = QWIXX.replace("  max_penalties:", "  1: {type: int, default: 1}\n  max_penalties:", 1)
    text = text.replace("players: {min: 2, max: 5}", "players: {min: 2, max: 5, 7: 1, x: 2}")
    diags = errors(tmp_path, text)
    line, _col = line_of(text, "players: {min: 2, max: 5, 7: 1, x: 2}")
    assert any(d.line == line and "unknown key" in d.message for d in diags), diags


def test_two_rows_that_write_the_same_name_are_refused(tmp_path):
    """Rows 1 and '1' are two keys of YAML but one name in every label and message: the
    options of a decision over a sheet's rows are told apart by their names."""
    text = QWIXX.replace('      yellow: {cells: "range(2, 13)"}',
                         '      1: {cells: "range(2, 13)"}\n      "1": {cells: "range(2, 13)"}')
    ds = errors(tmp_path, text)
    (d,) = [d for d in ds if "named" in d.message]
    assert d.message == "two rows are named '1'"
    assert d.line == line_of(text, '"1":')[0]
