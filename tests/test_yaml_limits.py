"""YAML nesting and size limits: rulekit's own located message, whichever parser reads the file.

PyYAML reads with libyaml when it is installed, and recent libyaml gives up at 1000 levels of
nesting while it looks ahead along one line of brackets, before rulekit's check of the event
stream has met level 61. rulekit then finds the first node that is too deep in the text
itself. Every test here runs with both of PyYAML's parsers (libyaml's and its own pure-Python
one) and expects the same message at the same line and column from each.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rulekit.errors import Diagnostic, GameFileError
from rulekit.spec import source
from rulekit.spec.source import MAX_DEPTH, MAX_EXPANDED_CHARS, parse_text

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "games").glob("*.yaml")) + sorted((ROOT / "games").glob("*/*.yaml"))
PARSERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])
TOO_DEEP = f"nesting deeper than {MAX_DEPTH} levels"


@pytest.fixture(params=PARSERS, ids=lambda loader: loader.__name__)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type:
    monkeypatch.setattr(source, "_LOADER", request.param)
    return request.param


def refusal(text: str) -> Diagnostic:
    with pytest.raises(GameFileError) as exc:
        parse_text(text, "game.yaml")
    (d,) = exc.value.diagnostics
    assert d.file == "game.yaml" and d.hint
    return d


def position(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of text[index]."""
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


def deepest_level(text: str) -> int:
    """How many collections stand around the deepest node, as PyYAML's parser reads it."""
    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
            deepest = max(deepest, depth)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            deepest = max(deepest, depth)
            depth += 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return deepest


def levels_below(data: object) -> int:
    """How many collections stand around the deepest node of loaded data (aliases expanded)."""
    children = [*data.keys(), *data.values()] if isinstance(data, dict) else data
    if not isinstance(data, (dict, list)) or not children:
        return 0
    return 1 + max(levels_below(child) for child in children)


def nest(text: str, levels: int) -> str:
    """The document moved `levels` mappings deeper: under keys w0, w1, ..., indented."""
    head = "".join("  " * i + f"w{i}:\n" for i in range(levels))
    body = "".join("  " * levels + line if line.strip() else line
                   for line in text.splitlines(keepends=True))
    return head + body


# ---- a line of brackets ------------------------------------------------------------------------
# `deep` is one level down: its 61st [ is the first node at level 61; in {a: {a: ... it is
# the key inside the 60th {
@pytest.mark.parametrize("count", [61, 70, 5_000, 150_000])
@pytest.mark.parametrize("opener, closer, first", [("[", "]", 60), ("{a: ", "}", 59 * 4 + 1)],
                         ids=["lists", "maps"])
def test_a_line_of_brackets_is_refused_at_the_first_level_too_deep(
        parser: type, count: int, opener: str, closer: str, first: int) -> None:
    head = "name: x\ndeep: "
    text = head + opener * count + "1" + closer * count + "\n"
    started = time.perf_counter()
    d = refusal(text)
    assert time.perf_counter() - started < 5
    assert d.message == TOO_DEEP and "bracket" in d.hint
    assert (d.line, d.col) == position(text, len(head) + first)


def test_sixty_levels_are_allowed_and_the_sixty_first_is_refused(parser: type) -> None:
    assert parse_text("x: " + "[" * 59 + "1" + "]" * 59 + "\n", "game.yaml").data
    text = "x: " + "[" * 60 + "1" + "]" * 60 + "\n"
    d = refusal(text)  # the 1 inside the 60th bracket stands at level 61
    assert d.message == TOO_DEEP and (d.line, d.col) == position(text, text.index("1"))


# ---- what stands around the brackets counts ----------------------------------------------------
def staircase(keys: int) -> str:
    return "".join("  " * i + f"k{i}:" + ("\n" if i < keys - 1 else " ") for i in range(keys))


# (the text before the brackets, how many of them fit: the next one is too deep)
AROUND = {
    "one key": ("deep: ", 60),
    "30 keys": (staircase(30), 31),
    "60 keys": (staircase(60), 1),
    "59 keys": (staircase(59), 2),
    "compact list": ("- " * 20, 41),
    "compact list of maps": ("- " * 20 + "key: ", 40),
    "list under a key": ("key:\n- ", 59),  # the `- ` stands at the key's column
    "list of maps under a key": ("a:\n  b:\n  - c: ", 57),
    "pair in brackets": ("x: [k: ", 58),  # [k: v] holds a mapping {k: v}
    "explicit pair in brackets": ("x: [? ", 58),
    "anchor and tag": ("x: &a !!seq ", 60),
    "flow map": ("x: {k: ", 59),
    "after a document start": ("--- # a comment\n", 61),
}


@pytest.mark.parametrize("count", [70, 1_200])
@pytest.mark.parametrize("case", AROUND, ids=list(AROUND))
def test_the_levels_around_a_line_of_brackets_count(parser: type, case: str, count: int) -> None:
    head, fit = AROUND[case]
    text = head + "[" * count + "\n"
    d = refusal(text)
    assert d.message == TOO_DEEP and "bracket" in d.hint
    assert (d.line, d.col) == position(text, len(head) + fit)


def test_a_key_sixty_one_levels_down_is_refused_with_an_indentation_hint(parser: type) -> None:
    text = staircase(100) + "1\n"
    d = refusal(text)
    assert d.message == TOO_DEEP and "indentation" in d.hint
    assert (d.line, d.col) == position(text, text.index("k60:"))


def test_a_compact_list_sixty_one_levels_down_is_refused(parser: type) -> None:
    text = "x:\n  " + "- " * 100_000 + "1\n"
    d = refusal(text)
    assert d.message == TOO_DEEP and "indentation" in d.hint
    # x's list is at level 1, so the 61st `- ` opens level 61
    assert (d.line, d.col) == (2, 3 + 60 * 2)


# ---- brackets that are text --------------------------------------------------------------------
TEXT = {
    "single quotes": "a: 'it''s " + "[{" * 100 + " ['\n",
    "double quotes": 'a: "say \\"' + "[{" * 100 + '\\" \\\\"\n',
    "quotes over lines": "a: 'one\n  " + "[" * 100 + "\n\n  two'\nb: \"x\n  " + "{" * 100 + '"\n',
    "comments": "# " + "[" * 100 + "\na: 1 # " + "{" * 100 + "\nb: [1, # [[[[\n  2]\n",
    "literal block": "a: |\n  " + "[" * 100 + "\n  - b: {\n\n  'q\nb: 1\n",
    "folded block with indent": "a: >2-\n   " + "{" * 100 + "\n  x\nb: |+\n\n" + "  [" * 60 + "\n",
    "plain text": "a: go to " + "[" * 100 + " now\nb: x]]{{\n",
    "plain text over lines": "a: go\n  " + "[" * 100 + "\n  - not an entry\n  'nor a quote\n",
    "apostrophe in plain text": "a: it's " + "[" * 100 + "\nb: 'x'\nc: don't\n",
    "quotes in brackets": "a: ['" + "]" * 100 + "', \"" + "[" * 100 + "\", 'x''y', c#d]\n",
    "hash in a word": "a: c#" + "[" * 100 + "\n",
    "windows line ends": "a: 'x\r\n  " + "[" * 100 + "'\r\nb: [1,\r\n  2]\r\n",
}


@pytest.mark.parametrize("case", TEXT, ids=list(TEXT))
def test_brackets_inside_text_are_not_nesting(parser: type, case: str) -> None:
    text = TEXT[case]
    assert parse_text(text, "game.yaml").data
    # a file whose parse fails later: the failure is reported, not nesting
    broken = refusal(text + "oops: @\n")
    assert broken.message.startswith("YAML syntax") and broken.line == text.count("\n") + 1
    # a deep line after the text: its 61st bracket, counted past the text as the parser reads it
    deep = text + "deep: " + "[" * 1_200 + "\n"
    d = refusal(deep)
    assert d.message == TOO_DEEP
    assert (d.line, d.col) == position(deep, len(text) + len("deep: ") + 60)


@pytest.mark.parametrize("mistake", ["a: @\n", "a: 1\n b: 2\n", "a: 'open\n---\n", "- a\nb: c\n"])
def test_a_mistake_before_a_deep_line_is_the_one_reported(parser: type, mistake: str) -> None:
    d = refusal(mistake + "deep: " + "[" * 1_200 + "\n")
    assert d.message.startswith("YAML syntax") and d.line <= mistake.count("\n") + 1


def test_a_quoted_line_of_brackets_loads(parser: type) -> None:
    text = "name: x\ndescription: '" + "[" * 100_000 + "'\n"
    assert parse_text(text, "game.yaml").data["description"] == "[" * 100_000


# ---- the shipped games --------------------------------------------------------------------------
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_games_sixty_levels_down_load_and_are_read_like_the_parser(
        parser: type, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    # moved down until its deepest node (aliases expanded) stands at level 60, the most allowed
    nested = nest(text, MAX_DEPTH - levels_below(yaml.safe_load(text)))
    assert levels_below(parse_text(nested, str(path)).data) == MAX_DEPTH
    # with a line of brackets after it, only that line is too deep: with libyaml this proves
    # that the text scan reads the whole game no deeper than the parser does
    deep = nested + "zz: " + "[" * 1_200 + "\n"
    d = refusal(deep)
    assert d.message == TOO_DEEP
    assert (d.line, d.col) == position(deep, len(nested) + len("zz: ") + 60)


# ---- values of --set are read the same way -----------------------------------------------------
@pytest.mark.parametrize("value, fit", [("[" * 10_000, 61), ("{a: " * 10_000, 60 * 4 + 1),
                                        ("[k: " * 10_000, 30 * 4 + 1)])
def test_a_deep_value_is_refused_where_it_goes_too_deep(parser: type, value: str, fit: int) -> None:
    started = time.perf_counter()
    with pytest.raises(GameFileError) as exc:
        parse_text(value, "--set target")
    (d,) = exc.value.diagnostics
    assert time.perf_counter() - started < 2
    assert d.message == TOO_DEEP and d.hint and (d.line, d.col) == (1, fit + 1)


# ---- the other limits, with both parsers -------------------------------------------------------
def alias_bomb() -> str:
    text = "a: &a [" + ", ".join(["x"] * 50) + "]\n"
    for prev, name in zip("abcdefghij", "bcdefghijk"):
        text += f"{name}: &{name} [{', '.join('*' + prev for _ in range(50))}]\n"
    return text


LIMITS = {
    "alias bomb": (alias_bomb(), "more than 200000 nodes"),
    "huge integer": ("x: " + "9" * 5_000 + "\n", "more than 30 digits"),
    "huge negative integer": ("x: -" + "9" * 31 + "\n", "more than 30 digits"),
    "infinite float": ("x: 1.0e+999\n", "not a finite number"),
    "not a number": ("x: .nan\n", "not a finite number"),
    "huge file": ("x: " + "y" * 1_000_000 + "\n", "more than 1000000 characters"),
    "long key": ("k" * 2_000 + ": 1\n", "YAML syntax"),
}


@pytest.mark.parametrize("case", LIMITS, ids=list(LIMITS))
def test_other_limits_hold_with_both_parsers(parser: type, case: str) -> None:
    text, message = LIMITS[case]
    started = time.perf_counter()
    d = refusal(text)
    assert time.perf_counter() - started < 5
    assert message in d.message


def test_the_count_of_nodes_holds_with_both_parsers(parser: type,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "MAX_NODES", 1_000)
    text = "x: [" + "1, " * 2_000 + "]\n"
    d = refusal(text)
    assert d.message == "the document has more than 1000 nodes" and "not data" in d.hint


# ---- the size as used: aliases count each time ------------------------------------------------
def repeated(length: int, uses: int, flow: bool = True) -> str:
    """A text of `length` characters anchored once, then aliased `uses` times in a list."""
    head = f"name: x\ntext: &t {'y' * length}\n"
    if flow:
        return head + "uses: [" + ", ".join(["*t"] * uses) + "]\n"
    return head + "uses:\n" + "".join("  - *t\n" for _ in range(uses))


@pytest.mark.parametrize("flow", [True, False], ids=["brackets", "lines"])
def test_a_long_text_aliased_many_times_is_refused_at_the_alias_that_goes_over(
        parser: type, flow: bool) -> None:
    length = 100_000
    text = repeated(length, 5_000, flow)
    started = time.perf_counter()
    d = refusal(text)
    assert time.perf_counter() - started < 5
    assert d.message == (f"the document expands to more than {MAX_EXPANDED_CHARS} characters "
                         "with its aliases")
    assert "*t" in d.hint and "&t on line 2" in d.hint and f"{length} characters" in d.hint
    # the text, eight aliases of it and the keys fit; the ninth alias goes over
    at = [i for i in range(len(text)) if text.startswith("*t", i)][8]
    assert (d.line, d.col) == position(text, at)


def test_an_anchored_mapping_counts_everything_in_it(parser: type) -> None:
    text = ("a: &a {k: " + "v" * 1_000 + ", m: [" + ", ".join(["w" * 100] * 9) + "]}\n"
            "b: [" + ", ".join(["*a"] * 2_000) + "]\n")
    d = refusal(text)
    assert "more than" in d.message and "characters" in d.message
    assert "the alias *a repeats the 1902 characters anchored as &a on line 1" in d.hint
    assert d.line == 2


def test_a_nested_alias_bomb_is_refused_at_an_alias(parser: type) -> None:
    d = refusal(alias_bomb())
    assert d.message == "the document expands to more than 200000 nodes"
    assert d.line == 4 and "*c" in d.hint  # d's first *c: 127551 nodes more


def test_aliases_within_the_size_load_and_share_their_value(parser: type) -> None:
    length = 100_000
    data = parse_text(repeated(length, MAX_EXPANDED_CHARS // length - 2), "game.yaml").data
    assert len(data["uses"]) == 8 and all(u is data["text"] for u in data["uses"])


def test_the_size_counts_keys_and_every_use_up_to_the_limit(
        parser: type, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "MAX_EXPANDED_CHARS", 100)
    # keys a, b (2) + x (1) + 20 + 4 aliases of it: 103 characters; three aliases fit
    text = "a: &s " + "s" * 20 + "\nb: [x, *s, *s, *s, *s]\n"
    d = refusal(text)
    assert (d.line, d.col) == position(text, text.rindex("*s"))
    assert parse_text(text.replace(", *s]", "]"), "game.yaml").data["b"][3] == "s" * 20


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_games_use_a_hundredth_of_the_size_allowed(
        parser: type, monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    monkeypatch.setattr(source, "MAX_EXPANDED_CHARS", MAX_EXPANDED_CHARS // 100)
    assert parse_text(path.read_text(encoding="utf-8"), str(path)).data


def test_a_long_text_value_loads(parser: type) -> None:
    text = "x: " + "y " * 100_000 + "\n"
    assert len(parse_text(text, "game.yaml").data["x"]) == 199_999


# ---- the text scan never reads a document deeper than the parser does -----------------------
WORDS = st.text(alphabet=list("ab [ ] { } ' \" # : - ? | > & * ! , % \n \\ x é"), max_size=12)
DATA = st.recursive(
    st.one_of(WORDS, st.integers(-9, 9), st.none(), st.booleans()),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(WORDS, st.integers(0, 9)), inner,
                                            max_size=4)),
    max_leaves=25)
STYLES = st.fixed_dictionaries({
    "default_flow_style": st.sampled_from([True, False, None]),
    "default_style": st.sampled_from([None, None, "'", '"', "|", ">"]),
    "width": st.sampled_from([8, 40, 1000]),
    "indent": st.sampled_from([2, 3, 5]),
    "allow_unicode": st.booleans(),
    "explicit_start": st.booleans(),
})


def first_too_deep_by_the_parser(text: str, limit: int) -> tuple[int, int] | None:
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent,
                              yaml.SequenceStartEvent)):
            if depth > limit:
                return event.start_mark.line + 1, event.start_mark.column + 1
            depth += not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
    return None


@settings(max_examples=300, deadline=None)
@given(DATA, STYLES, st.booleans())
def test_the_text_scan_finds_nothing_the_parser_does_not(data: object, style: dict,
                                                          comments: bool) -> None:
    text = yaml.dump(data, **style)
    if comments:  # a comment full of brackets after every line that can take one
        text = "".join(line + (" # [{ '\"" if line.endswith(("]", "}", "null")) else "") + "\n"
                       for line in text.split("\n"))
    try:
        deepest = deepest_level(text)
    except yaml.YAMLError:  # a comment inside a quoted text that spans lines
        assume(False)
    for limit in range(deepest + 2):
        found = source._first_too_deep(text, limit)
        if found is not None:  # the scan may see less, never more, and never earlier
            by_parser = first_too_deep_by_the_parser(text, limit)
            assert by_parser is not None and found[:2] >= by_parser, (text, limit)
