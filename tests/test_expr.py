"""Tests of the expression language (rulekit.expr): values, errors, templates, bindings."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulekit.errors import RulekitError
from rulekit.expr import (
    ANY,
    BOOL,
    INT,
    NUM,
    STR,
    Compiled,
    ExprError,
    Global,
    ListT,
    Method,
    ObjT,
    Scope,
    compile_bindings,
    compile_expr,
    compile_template,
)

# -- a small typed world -----------------------------------------------------------------


class Row:
    def __init__(self, name: str, marks: list[int]) -> None:
        self.name = name
        self.marks = marks


class Sheet:
    def __init__(self, rows: list[Row]) -> None:
        self.rows = rows

    def can_cross(self, row: Row, n: int) -> bool:
        return n >= 7 and len(row.marks) >= 5

    def total(self) -> int:
        return sum(len(r.marks) for r in self.rows)


class Dice(dict):
    """Indexable by colour name, with the two white dice as attributes."""

    def __init__(self, white1: int, white2: int, **colours: int) -> None:
        super().__init__(colours)
        self.white1 = white1
        self.white2 = white2


RowT = ObjT("Row")
SheetT = ObjT("Sheet")
PlayerT = ObjT("Player")
DiceT = ObjT("Dice", attrs={"white1": INT, "white2": INT}, index=(STR, INT))
# Filled after construction, as recursive game types are.
RowT.attrs.update(name=STR, marks=ListT(INT))
SheetT.attrs.update(rows=ListT(RowT))
SheetT.methods.update(can_cross=Method([RowT, INT], BOOL), total=Method([], INT))
TileT = ObjT("Tile", {"pips": INT, "double": BOOL})
ThingT = ObjT("Thing", {"size": INT})
PlayerT.attrs.update(sheet=SheetT, penalties=INT, name=STR, hand=ListT(TileT))

PARAMS = {"target": 10, "zero": 0, "bonus": 2.5, "colors": ["red", "yellow"]}


def make_state() -> SimpleNamespace:
    rows = [Row("red", [2, 3, 4, 5, 6]), Row("yellow", [2, 3])]
    player = SimpleNamespace(sheet=Sheet(rows), penalties=1, name="ann",
                             hand=[SimpleNamespace(pips=3, double=False),
                                   SimpleNamespace(pips=4, double=True)])
    other = SimpleNamespace(sheet=Sheet([]), penalties=2, name="bob",
                            hand=[SimpleNamespace(pips=6, double=True)])
    return SimpleNamespace(player=player, players=[player, other],
                           dice=Dice(3, 4, red=5, yellow=1))


def make_scope(**locals_: Any) -> Scope:
    return Scope(
        params=PARAMS,
        globals={
            "player": Global(PlayerT, lambda st: st.player),
            "players": Global(ListT(PlayerT), lambda st: st.players),
            "dice": Global(DiceT, lambda st: st.dice),
        },
        locals={"xs": ListT(INT), "n": INT, "f": NUM, "word": STR, "flag": BOOL,
                "thing": ThingT, **locals_},
    )


ENV = {"xs": [1, 2, 3, 4], "n": 7, "f": 2.5, "word": "dice", "flag": True,
       "thing": SimpleNamespace(size=3)}


def run(text: str, env: dict | None = None, expect: Any = None, **locals_: Any) -> Any:
    compiled = compile_expr(text, make_scope(**locals_), expect)
    return compiled.fn(make_state(), ENV if env is None else env)


def error(text: str, **locals_: Any) -> ExprError:
    with pytest.raises(ExprError) as info:
        compile_expr(text, make_scope(**locals_))
    return info.value


# -- values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("2 ** 3 ** 2", 512),
        ("-2 ** 2", -4),
        ("7 // 2", 3),
        ("-7 // 2", -4),
        ("7 % 3", 1),
        ("n - 10", -3),
        ("-n", -7),
        ("'ab' + \"cd\"", "abcd"),
        ("[1, 2] + [3]", [1, 2, 3]),
        ("xs + [n]", [1, 2, 3, 4, 7]),
        ("1_000 + 1.5e1", 1015.0),
        ("'it\\'s' + \"\\n\"", "it's\n"),
    ],
)
def test_arithmetic(text: str, value: Any) -> None:
    assert run(text) == value


def test_division_is_exact_for_ints() -> None:
    assert run("6 / 3") == 2
    assert type(run("6 / 3")) is int
    assert run("7 / 2") == 3.5
    assert run("n / 2") == 3.5
    assert type(run("n / 7")) is int
    assert run("f / 0.5") == 5.0
    assert compile_expr("6 / 3", make_scope()).type is NUM


def test_literals_in_both_spellings() -> None:
    assert run("[true, false, none, True, False, None]") == [True, False, None] * 2


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5 <= n <= 10", True),
        ("5 <= n <= 6", False),
        ("1 < 2 < 3 < n", True),
        ("1 < 2 > 3", False),
        ("n == 7 != 8", True),
        ("'a' < word", True),
        ("3 in xs", True),
        ("9 not in xs", True),
        ("'ic' in word", True),
        ("'red' in dice", True),
        ("not n > 3", False),
        ("flag and n > 3", True),
        ("n > 100 or flag", True),
        ("n > 100 or not flag or n < 0", False),
    ],
)
def test_comparisons_and_booleans(text: str, value: bool) -> None:
    assert run(text) is value


def test_boolean_operators_short_circuit() -> None:
    assert run("n != 0 and 10 / n > 1", env={**ENV, "n": 0}) is False
    assert run("n == 0 or 10 / n > 1", env={**ENV, "n": 0}) is True


def test_conditional() -> None:
    assert run("'big' if n > 5 else 'small'") == "big"
    assert run("'big' if n > 50 else 'small'") == "small"
    assert run("1 if n > 50 else 2 if n > 5 else 3") == 2
    # Only the taken branch is evaluated.
    assert run("0 if n == 0 else 10 // n", env={**ENV, "n": 0}) == 0


def test_names_attributes_indexing_and_methods() -> None:
    assert run("player.name") == "ann"
    assert run("player.sheet.rows[1].name") == "yellow"
    assert run("len(player.sheet.rows[0].marks)") == 5
    assert run("dice['red'] + dice.white1") == 8
    assert run("dice['yel' + 'low']") == 1
    assert run("player.sheet.can_cross(player.sheet.rows[0], 7)") is True
    assert run("player.sheet.can_cross(player.sheet.rows[1], n)") is False
    assert run("player.sheet.total()") == 7
    assert run("thing.size * 2") == 6
    assert run("word[1]") == "i"
    assert run("xs[-1]") == 4


def test_comprehensions() -> None:
    assert run("sum(x * 2 for x in xs if x > 1)") == 18
    assert run("[x * x for x in xs]") == [1, 4, 9, 16]
    assert run("[x for x in xs if x % 2 == 0 if x > 2]") == [4]
    assert run("[a * 10 + b for a in xs for b in xs if a < b if b < 3]") == [12]
    assert run("sum(t.pips for p in players for t in p.hand if t.double)") == 10
    assert run("[r.name for r in player.sheet.rows if len(r.marks) > 2]") == ["red"]
    # A later `for` may use an earlier variable.
    assert run("[y for x in [[1, 2], [3]] for y in x]") == [1, 2, 3]
    # Outer locals are visible inside, and the loop variable is local to the loop.
    assert run("[x + n for x in xs]") == [8, 9, 10, 11]
    assert run("[n for n in xs] + [n]") == [1, 2, 3, 4, 7]
    assert run("[x for x in [x + 1 for x in xs]]") == [2, 3, 4, 5]
    assert run("[[y * x for y in xs if y < x] for x in xs]") == [[], [2], [3, 6], [4, 8, 12]]
    env = dict(ENV)
    run("sum(n for n in xs)", env=env)
    assert env == ENV


def test_generators_stop_early() -> None:
    env = {**ENV, "xs": [1, 0]}
    assert run("any(10 / x > 1 for x in xs)", env=env) is True
    assert run("all(10 / x < 1 for x in xs)", env=env) is False
    assert run("first(x for x in xs if 10 / x > 1)", env=env) == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("sum(xs)", 10),
        ("sum([1.5, 2])", 3.5),
        ("sum(x for x in [])", 0),
        ("count(xs)", 4),
        ("count(x for x in xs if x > 2)", 2),
        ("count(p for p in players for t in p.hand)", 3),
        ("min(xs)", 1),
        ("max(xs)", 4),
        ("min(3, n, 5)", 3),
        ("max(n, 2.5)", 7),
        ("max(x * 2 for x in xs)", 8),
        ("min(['b', 'a'])", "a"),
        ("len(xs)", 4),
        ("len(word)", 4),
        ("range(3)", [0, 1, 2]),
        ("range(1, 4)", [1, 2, 3]),
        ("range(10, 0, -3)", [10, 7, 4, 1]),
        ("range(n)[2]", 2),
        ("sorted([3, 1, 2])", [1, 2, 3]),
        ("sorted(x * -1 for x in xs)", [-4, -3, -2, -1]),
        ("reversed(xs)", [4, 3, 2, 1]),
        ("any([false, true])", True),
        ("any(x > 9 for x in xs)", False),
        ("all(x > 0 for x in xs)", True),
        ("all([])", True),
        ("abs(-3)", 3),
        ("abs(f - 5)", 2.5),
        ("join(', ', xs)", "1, 2, 3, 4"),
        ("join('-', [r.name for r in player.sheet.rows])", "red-yellow"),
        ("join('/', [true, false])", "true/false"),
        ("join('/', [2.0, 1.5])", "2/1.5"),
        ("str(n) + '!'", "7!"),
        ("str(true)", "true"),
        ("str(word)", "dice"),
        ("first(xs)", 1),
        ("first([])", None),
        ("first(x for x in xs if x > 2)", 3),
        ("floor(2.7)", 2),
        ("floor(-2.5)", -3),
        ("ceil(2.1)", 3),
        ("ceil(n)", 7),
    ],
)
def test_builtins(text: str, value: Any) -> None:
    result = run(text)
    assert result == value
    assert type(result) is type(value)


def test_builtin_result_types() -> None:
    scope = make_scope()
    assert compile_expr("sum(xs)", scope).type is INT
    assert compile_expr("sum([f])", scope).type is NUM
    assert compile_expr("count(xs)", scope).type is INT
    assert compile_expr("floor(f)", scope).type is INT
    assert compile_expr("range(n)", scope).type == ListT(INT)
    assert compile_expr("first(player.sheet.rows)", scope).type is RowT
    assert compile_expr("[r.marks for r in player.sheet.rows]", scope).type == ListT(ListT(INT))
    assert compile_expr("min(n, f)", scope).type is NUM
    assert compile_expr("n if flag else f", scope).type is NUM
    assert compile_expr("thing.size", scope).type is INT


def test_expect_checks_the_result_type() -> None:
    scope = make_scope()
    assert compile_expr("n > 1", scope, expect=BOOL).type is BOOL
    assert compile_expr("n", scope, expect=NUM).type is INT
    assert compile_expr("thing", scope, expect=ANY).type is ThingT
    with pytest.raises(ExprError, match="expected bool, got int") as info:
        compile_expr("n + 1", scope, expect=BOOL)
    assert info.value.hint and "compare" in info.value.hint
    with pytest.raises(ExprError, match="expected number, got bool"):
        compile_expr("flag", scope, expect=NUM)


# -- constants -----------------------------------------------------------------------------


def test_params_are_folded_into_constants() -> None:
    scope = make_scope()
    c = compile_expr("params.target * 2 + sum(range(4))", scope)
    assert isinstance(c, Compiled)
    assert c.constant is True
    assert c.type is INT
    assert c.source == "params.target * 2 + sum(range(4))"
    assert c.fn(None, {}) == 26
    assert compile_expr("params.colors[1] + '!'", scope).fn(None, {}) == "yellow!"
    assert compile_expr("params.colors[1]", scope).fn(None, {}) == "yellow"
    assert compile_expr("sum(x * 2 for x in range(params.target))", scope).constant
    assert compile_expr("params.bonus", scope).type is NUM
    assert not compile_expr("n + params.target", scope).constant
    assert not compile_expr("player.penalties", scope).constant


def test_constant_guards_keep_failing_parts_out() -> None:
    scope = make_scope()
    c = compile_expr("params.zero != 0 and params.target / params.zero > 1", scope)
    assert c.constant and c.fn(None, {}) is False
    c = compile_expr("0 if params.zero == 0 else params.target // params.zero", scope)
    assert c.fn(None, {}) == 0


def test_constants_that_always_fail_are_errors() -> None:
    e = error("n + params.target / params.zero")
    assert "division by zero" in e.message
    assert e.column == 5
    assert "too large" in error("2 ** 10 ** 10").message
    assert "always fails" in error("min([])").message


@pytest.mark.parametrize(("text", "value"), [
    ("all(6 // (d - 1) > 2 for d in [2, 4, 1])", False),   # stops at 4, before 1
    ("any(6 // (d - 1) > 2 for d in [3, 1])", True),       # stops at 3
    ("first(6 // (d - 1) for d in [3, 1])", 3),
])
def test_a_constant_scan_stops_where_it_decides_as_at_play(text: str, value: Any) -> None:
    """any(), all() and first() of a constant generator are folded as they run: the
    element after the one that decides (1, which divides by zero) is never read."""
    c = compile_expr(text, make_scope())
    assert c.constant and c.fn(None, {}) == value
    assert run(text.replace("[", "[n - 7 + ").replace(", ", ", n - 7 + ")) == value


@pytest.mark.parametrize("text", ["all(6 // (d - 1) > 0 for d in [2, 1])",
                                  "sum(6 // (d - 1) for d in [3, 1])",
                                  "any(d > 5 for d in [1 // 0])"])
def test_a_constant_scan_that_reads_a_failing_element_always_fails(text: str) -> None:
    assert "always fails: division by zero" in error(text).message


def test_folded_lists_are_not_shared() -> None:
    c = compile_expr("['blue'] + params.colors", make_scope())
    first = c.fn(None, {})
    first.append("x")
    assert c.fn(None, {}) == ["blue", "red", "yellow"]
    assert PARAMS["colors"] == ["red", "yellow"]


def test_large_ranges_are_not_built_at_load_time() -> None:
    c = compile_expr("sum(range(100000))", make_scope())
    assert not c.constant
    assert c.fn(None, {}) == 4999950000


# -- name errors and hints -----------------------------------------------------------------


def test_unknown_name_suggests_a_close_one() -> None:
    e = error("palyer.penalties")
    assert e.message == "unknown name 'palyer'"
    assert e.hint == "did you mean 'player'?"
    assert (e.line, e.column) == (1, 1)
    assert error("1 + tagret").hint.startswith("known here: ")  # nothing close: the names
    assert error("target + 1").hint == "did you mean 'params.target'?"
    assert "function" in error("sum + 1").hint


def test_unknown_attribute_points_at_the_attribute() -> None:
    e = error("player.penaltes > 2")
    assert e.message == "Player has no attribute 'penaltes'"
    assert e.hint == "did you mean 'penalties'?"
    assert e.column == 8
    e = error("player.sheet.can_cros(player.sheet.rows[0], 7)")
    assert e.hint == "did you mean 'can_cross'?"
    assert e.column == 14
    assert "call it" in error("player.sheet.can_cross").message
    assert error("n.size").message == "int has no attribute 'size'"


def test_unknown_parameter_suggests_a_close_one() -> None:
    e = error("params.targte + 1")
    assert e.message == "unknown parameter 'targte'"
    assert e.hint == "did you mean 'target'?"
    assert e.column == 8
    assert "params.target" in error("params").message


def test_unknown_function() -> None:
    e = error("summ(xs)")
    assert e.message == "unknown function 'summ'"
    assert e.hint == "did you mean 'sum'?"
    assert "not a function" in error("n(1)").message
    assert "only built-in functions" in error("xs[0](1)").message


# -- syntax errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("1 + * 2", 1, 5, "expected an expression after '+'"),
        ("1 +", 1, 4, "expected an expression after '+'"),
        ("(1 + 2", 1, 7, "expression ends too early"),
        ("1 + 2)", 1, 6, "unexpected ')'"),
        ("f(1,,2)", 1, 5, "expected an expression after ','"),
        ("n n", 1, 3, "unexpected 'n'"),
        ("n = 1", 1, 3, "unexpected character '='"),
        ("'abc", 1, 1, "unterminated string"),
        ("n +\n  * 2", 2, 3, "expected an expression after '+'"),
        ("for", 1, 1, "unexpected 'for'"),
        ("", 1, 1, "empty expression"),
    ],
)
def test_syntax_error_positions(text: str, line: int, column: int, message: str) -> None:
    e = error(text)
    assert (e.message, e.line, e.column) == (message, line, column)


def test_syntax_error_hints() -> None:
    assert error("(1 + 2").hint == "missing ')'"
    assert error("n = 1").hint == "use '==' to compare"
    assert error("1 + 2)").hint == "nothing opens it with '('"
    assert error("n if flag").hint == "expected 'else'"


def test_expr_error_is_a_rulekit_error() -> None:
    e = error("1 +")
    assert isinstance(e, RulekitError)
    assert str(e) == e.message


# -- arity and type errors -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("len(xs, xs)", "len() takes 1 argument, got 2"),
        ("range()", "range() takes 1 to 3 arguments, got 0"),
        ("range(1, 2, 3, 4)", "range() takes 1 to 3 arguments, got 4"),
        ("join(xs)", "join() takes 2 arguments, got 1"),
        ("min()", "min() needs a list or at least 2 values"),
        ("player.sheet.can_cross(player.sheet.rows[0])", "can_cross() takes 2 arguments, got 1"),
        ("sum(1, x for x in xs)", "sum() takes 1 argument, got 2"),
    ],
)
def test_arity_errors(text: str, message: str) -> None:
    assert error(text).message == message


def test_arity_error_points_at_the_function() -> None:
    assert error("n + len(xs, xs)").column == 5


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("xs + 1", "'+' needs numbers, got list[int] and int", 4),
        ("1 + player.sheet.rows", "'+' needs numbers, got int and list[Row]", 3),
        ("word + n", "'+' needs numbers, got str and int", 6),
        ("flag * 2", "'*' needs numbers, got bool and int", 6),
        ("n and flag", "'and' needs a true/false value, got int", 1),
        ("flag or n", "'or' needs a true/false value, got int", 9),
        ("not xs", "'not' needs a true/false value, got list[int]", 5),
        ("1 if n else 2", "'if' needs a true/false value, got int", 6),
        ("n < word", "'<' needs two numbers or two strings, got int and str", 3),
        ("n in 3", "'in' needs a list, a str or an indexed object on the right, got int", 3),
        ("word in xs", "'in' looks for str in list[int]: the types do not match", 6),
        ("xs[word]", "an index into list[int] must be an int, got str", 4),
        ("player[0]", "Player cannot be indexed with [...]", 8),
        ("dice[1]", "Dice is indexed by str, got int", 6),
        ("[x for x in n]", "cannot loop over int: a list is needed", 13),
        ("[x for x in xs if x]", "'if' needs a true/false value, got int", 19),
        ("sum(x > 1 for x in xs)", "sum() needs a list of numbers, got list[bool]", 5),
        ("any(xs)", "any() needs a list of true/false values, got list[int]", 5),
        ("abs(word)", "abs() needs a number, got str", 5),
        ("-word", "unary '-' needs a number, got str", 1),
        ("sorted(player.sheet.rows)", "sorted() needs a list of numbers or strings, got list[Row]",
         8),
        ("min(1, 'a')", "min() cannot compare numbers with strings", 1),
        ("range(f)", "range() needs int arguments, got number", 7),
        ("join(1, xs)", "join() needs a str separator first, got int", 6),
        ("player.sheet.can_cross(1, 7)", "argument 1 of can_cross() must be Row, got int", 24),
    ],
)
def test_type_errors(text: str, message: str, column: int) -> None:
    e = error(text)
    assert (e.message, e.column) == (message, column)


def test_count_of_a_true_false_generator_is_refused() -> None:
    e = error("count(t.double for t in flags)",
              flags=ListT(ObjT("Tile", {"double": BOOL})))
    assert "true/false" in e.message
    assert "if" in e.hint
    assert run("count([true, false])") == 2
    assert run("count(x for x in [true, false] if x)") == 1


def test_type_error_hints() -> None:
    assert error("word + n").hint == "use str(...) to turn a number into text"
    assert "xs + [x]" in error("xs + 1").hint
    assert "compare" in error("n and flag").hint


def test_every_value_has_a_known_type() -> None:
    # ANY only accepts; a value of unknown type is refused wherever it would arise
    assert "cannot be known" in error("thing", thing=ANY).message
    assert "one type of element" in error("[1, 'a']").message
    assert "one type is needed" in error("1 if flag else 'a'").message
    assert "one type of element" in error("[1] + ['a']").message
    # an empty list's elements fit anything but have nothing to read
    assert compile_expr("[] + xs", make_scope()).type == ListT(INT)
    assert compile_expr("sum(x * 2 for x in [])", make_scope()).type is INT
    assert "has no attribute" in error("first([]).size").message
    assert "cannot be indexed" in error("first([])[0]").message
    # `none` stands for a missing value of the other type
    assert compile_expr("[1, none]", make_scope()).type == ListT(INT)


# -- limits --------------------------------------------------------------------------------


def test_long_expressions_are_rejected() -> None:
    text = " + ".join(["1"] * 700)
    assert len(text) > 2000
    e = error(text)
    assert "too long" in e.message
    assert run(" + ".join(["1"] * 500)) == 500


@pytest.mark.parametrize(
    "text",
    [
        "(" * 60 + "1" + ")" * 60,
        "[" * 60 + "]" * 60,
        "not " * 60 + "flag",
        "-" * 60 + "1",
        "1 if flag else " * 60 + "0",
        "2 ** " * 60 + "1",
        "abs(" * 60 + "1" + ")" * 60,
    ],
)
def test_deep_nesting_is_rejected(text: str) -> None:
    assert "nested too deeply" in error(text).message


def test_moderate_nesting_is_fine() -> None:
    assert run("(" * 40 + "1" + ")" * 40) == 1
    assert run("not " * 40 + "flag") is True


# -- templates -----------------------------------------------------------------------------


def test_template_with_several_parts() -> None:
    scope = make_scope(r=RowT, w=INT)
    c = compile_template("{r.name} {w + dice[r.name]}", scope)
    assert c.type is STR and not c.constant
    assert c.fn(make_state(), {"r": Row("red", []), "w": 4}) == "red 9"
    c = compile_template("Cross {r.name}: {w}+{n} = {w + n}!", scope)
    assert c.fn(make_state(), {"r": Row("red", []), "w": 4, "n": 3}) == "Cross red: 4+3 = 7!"


def test_template_braces_and_rendering() -> None:
    scope = make_scope()
    assert compile_template("{{literal}} {n}", scope).fn(None, ENV) == "{literal} 7"
    assert compile_template("}}{{", scope).fn(None, ENV) == "}{"
    assert compile_template("{flag} {not flag}", scope).fn(None, ENV) == "true false"
    assert compile_template("{f * 2} {f}", scope).fn(None, ENV) == "5 2.5"
    assert compile_template("{'}'}", scope).fn(None, ENV) == "}"
    assert compile_template("{xs}", scope).fn(None, ENV) == "[1, 2, 3, 4]"


@pytest.mark.parametrize("functions", [True, False], ids=["generated", "closures"])
def test_a_template_of_many_numbers_is_joined_and_a_long_text_is_still_refused(
        functions: bool) -> None:
    """Numbers and truth values are short: many of them need no length check; texts and
    numbers that could pass the limit together are checked as before."""
    from rulekit.backends import pysource
    from rulekit.expr import budget

    old, pysource.FUNCTIONS = pysource.FUNCTIONS, functions
    try:
        scope = make_scope()
        text = compile_template("{n}-{n + 1}-{flag}-{n * 2}-{not flag}", scope)
        many = compile_template("{word}" * 4, scope)
        huge = compile_template("{10 ** (n * 35)} " * 45, scope)
    finally:
        pysource.FUNCTIONS = old
    assert text.fn(None, ENV) == "7-8-true-14-false"
    assert many.fn(None, ENV) == "dice" * 4
    with budget.limit(budget.WORK_PER_CALL, "a test"):
        with pytest.raises(budget.BudgetExceeded, match="a text of 10 ?[0-9]+ characters"):
            many.fn(None, {**ENV, "word": "x" * 2600})
        with pytest.raises(budget.BudgetExceeded, match="a text of 1[0-9]+ characters"):
            huge.fn(None, ENV)


def test_constant_templates_are_folded() -> None:
    c = compile_template("target {params.target}, size {len(params.colors)}", make_scope())
    assert c.constant
    assert c.fn(None, {}) == "target 10, size 2"
    assert compile_template("plain text", make_scope()).fn(None, {}) == "plain text"


def test_template_errors_point_into_the_template() -> None:
    scope = make_scope()
    with pytest.raises(ExprError) as info:
        compile_template("score: {n +}", scope)
    assert (info.value.line, info.value.column) == (1, 12)
    with pytest.raises(ExprError) as info:
        compile_template("a\nb {palyer}", scope)
    assert (info.value.line, info.value.column) == (2, 4)
    assert info.value.hint == "did you mean 'player'?"
    with pytest.raises(ExprError, match="single '}'"):
        compile_template("a } b", scope)
    with pytest.raises(ExprError, match="never closed"):
        compile_template("a { b", scope)
    with pytest.raises(ExprError, match="empty"):
        compile_template("a {} b", scope)


# -- bindings ------------------------------------------------------------------------------


def test_bindings_are_cartesian_in_order() -> None:
    iterate, inner = compile_bindings(
        "w in [dice.white1, dice.white2], r in player.sheet.rows", make_scope()
    )
    combos = [(d["w"], d["r"].name) for d in iterate(make_state(), {"n": 1})]
    assert combos == [(3, "red"), (3, "yellow"), (4, "red"), (4, "yellow")]
    assert inner.locals["w"] is INT
    assert inner.locals["r"] is RowT
    assert inner.locals["n"] is INT  # the outer locals stay visible
    label = compile_template("{r.name} {w}", inner)
    assert [label.fn(None, d) for d in iterate(make_state(), {})][0] == "red 3"


def test_later_bindings_use_earlier_names() -> None:
    iterate, inner = compile_bindings("a in range(3), b in range(a)", make_scope())
    assert [(d["a"], d["b"]) for d in iterate(None, {})] == [(1, 0), (2, 0), (2, 1)]
    iterate, _ = compile_bindings("r in player.sheet.rows, m in r.marks", make_scope())
    assert len(list(iterate(make_state(), {}))) == 7


def test_bindings_yield_new_dicts() -> None:
    env = {"n": 1}
    iterate, _ = compile_bindings("a in [1, 2], b in [3, 4]", make_scope())
    out = list(iterate(None, env))
    assert [d["a"] * 10 + d["b"] for d in out] == [13, 14, 23, 24]
    assert len({id(d) for d in out}) == 4
    assert env == {"n": 1}
    out[0]["a"] = 99
    assert out[1]["a"] == 1


def test_binding_errors() -> None:
    with pytest.raises(ExprError, match="bound twice"):
        compile_bindings("a in xs, a in xs", make_scope())
    with pytest.raises(ExprError, match="cannot loop over int") as info:
        compile_bindings("a in xs, b in n", make_scope())
    assert info.value.column == 15
    with pytest.raises(ExprError, match="unexpected"):
        compile_bindings("a in xs b in xs", make_scope())


# -- robustness ----------------------------------------------------------------------------


def test_nothing_is_parsed_while_running(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = compile_expr("sum(x * 2 for x in xs if x > 1) + len(player.name)", make_scope())
    label = compile_template("{n} and {word}", make_scope())
    from rulekit.expr import parser

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("parsed at run time")

    monkeypatch.setattr(parser._parser(), "parse", refuse)
    assert compiled.fn(make_state(), ENV) == 21
    assert label.fn(None, ENV) == "7 and dice"


def test_only_generated_source_is_ever_executed() -> None:
    # one place compiles Python source: pysource.compile_function, for source the engine
    # generated from checked trees (its shape is tested in tests/test_codegen.py)
    package = Path(__file__).resolve().parents[1] / "rulekit"
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"(?<![\w.])(?<!def )(eval|exec|compile)\(", text)
        if path.name == "pysource.py":
            assert sorted(found) == ["compile", "exec"], found
        else:
            assert not found, path


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab1 +-*/()[],.'\"<=>!inotfrsum_", max_size=40))
def test_any_text_compiles_or_raises_expr_error(text: str) -> None:
    scope = make_scope(a=INT, b=ListT(INT))
    try:
        compile_expr(text, scope)
    except ExprError as e:
        assert e.line >= 1 and e.column >= 1
        assert e.message


# -- property: integer arithmetic matches Python's -----------------------------------------

# Precedence levels: sums < products < unary minus < atoms.
_SUM, _PRODUCT, _UNARY, _ATOM = 1, 2, 3, 4


@st.composite
def arith_trees(draw: st.DrawFn, depth: int = 0) -> tuple[str, int, int]:
    """(text, value, precedence) built together; the value is computed here, never parsed."""
    kind = draw(st.sampled_from(["leaf", "leaf", "binary", "binary", "neg", "paren"]))
    if depth >= 6 or kind == "leaf":
        if draw(st.booleans()):
            value = draw(st.integers(0, 30))
            return str(value), value, _ATOM
        name = draw(st.sampled_from(["a", "b"]))
        return name, VARS[name], _ATOM
    if kind == "neg":
        text, value, prec = draw(arith_trees(depth + 1))
        if prec < _UNARY:
            text = f"({text})"
        return f"-{text}", -value, _UNARY
    if kind == "paren":
        text, value, _prec = draw(arith_trees(depth + 1))
        return f"({text})", value, _ATOM
    op = draw(st.sampled_from(["+", "-", "*"]))
    prec = _PRODUCT if op == "*" else _SUM
    lt, lv, lp = draw(arith_trees(depth + 1))
    rt, rv, rp = draw(arith_trees(depth + 1))
    if lp < prec:
        lt = f"({lt})"
    if rp <= prec:  # the right operand of a left-associative operator
        rt = f"({rt})"
    value = lv + rv if op == "+" else lv - rv if op == "-" else lv * rv
    spacing = draw(st.sampled_from(["", " "]))
    return f"{lt}{spacing}{op}{spacing}{rt}", value, prec


VARS = {"a": 7, "b": -3}


@settings(max_examples=300, deadline=None)
@given(arith_trees())
def test_integer_arithmetic_matches_python(tree: tuple[str, int, int]) -> None:
    text, expected, _prec = tree
    compiled = compile_expr(text, Scope(locals={"a": INT, "b": INT}))
    assert compiled.type is INT
    assert compiled.fn(None, dict(VARS)) == expected
