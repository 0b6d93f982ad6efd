"""Messages quote values cut short: a file, a `--set` value or a log can hold megabytes (an
alias repeats a long text many times), and a message about it stays a line or two.

The quoting helpers are checked here, and the last guard: a diagnostic's message, hint and
path are bounded whoever builds them (the expression checker, a component, the engine).
"""

from __future__ import annotations

import pytest

from rulekit.errors import MAX_HINT, MAX_MESSAGE, MAX_PATH, Diagnostic, clip, cut, shown


@pytest.mark.parametrize("value, expected", [
    ("abc", "'abc'"),
    ("x" * 100, repr("x" * 60) + "... (100 characters)"),
    ([1, "a", None], "[1, 'a', None]"),
    ({"k": [1, 2]}, "{'k': [1, 2]}"),
    (10 ** 100, "<a number of more than 60 digits>"),
    (-12, "-12"),
    (1.5, "1.5"),
    (True, "True"),
])
def test_a_value_is_shown_whole_when_short_and_cut_when_long(value: object, expected: str) -> None:
    assert shown(value) == expected


@pytest.mark.parametrize("value", [
    ["y" * 1_000_000] * 1_000,
    {f"key{i}": "v" * 10_000 for i in range(1_000)},
    list(range(1_000_000)),
    [[[[["z" * 100_000] * 100] * 100]]],
    ("t" * 100_000,),
], ids=["texts", "mapping", "numbers", "nested", "tuple"])
def test_a_large_value_is_shown_in_a_short_line(value: object) -> None:
    text = shown(value)
    assert len(text) < 300 and "..." in text


def test_cut_keeps_the_start_and_says_it_is_cut() -> None:
    assert cut("name") == "name"
    assert cut("n" * 100) == "n" * 60 + "..."


def test_clip_keeps_the_start_and_the_end_and_says_how_much_is_left_out() -> None:
    text = "start " + "m" * 10_000 + " at line 7"
    clipped = clip(text, 200)
    assert len(clipped) <= 200
    assert clipped.startswith("start mmm") and clipped.endswith("m at line 7")
    kept = len(clipped) - len(clipped[clipped.index(" [..."):clipped.index("...] ") + 5])
    assert f"[... {len(text) - kept} characters left out ...]" in clipped
    assert clip("short", 200) == "short"


def test_a_diagnostic_is_bounded_whoever_builds_it() -> None:
    d = Diagnostic("game.yaml", 3, 7, "unknown name '" + "x" * 1_000_000 + "'",
                   "a." + "k" * 100_000, "did you mean '" + "y" * 1_000_000 + "'?")
    for text, limit in ((d.message, MAX_MESSAGE), (d.hint, MAX_HINT), (d.path, MAX_PATH)):
        assert limit - 5 < len(text) <= limit
    assert d.message.startswith("unknown name 'xxx") and d.message.endswith("xxx'")
    assert (d.file, d.line, d.col) == ("game.yaml", 3, 7)
    d.message = "m" * 10_000  # set later, as a caller may
    assert len(d.message) <= MAX_MESSAGE
    lines = d.format().splitlines()
    assert lines[0].startswith("game.yaml:3:7: error: mmm") and all(len(x) < 700 for x in lines)
    assert len(d.as_dict()["message"]) <= MAX_MESSAGE


def test_an_error_reports_a_hundred_diagnostics_and_says_more_follow() -> None:
    from rulekit.errors import MAX_DIAGNOSTICS, GameFileError

    many = [Diagnostic("game.yaml", i, 1, f"problem {i}") for i in range(1, 5_000)]
    err = GameFileError(many)
    assert len(err.diagnostics) == MAX_DIAGNOSTICS + 1
    assert err.diagnostics[-2].message == f"problem {MAX_DIAGNOSTICS}"
    note = err.diagnostics[-1]
    assert note.line == MAX_DIAGNOSTICS + 1 and "more problems follow" in note.message
    assert len(GameFileError(many[:MAX_DIAGNOSTICS]).diagnostics) == MAX_DIAGNOSTICS
