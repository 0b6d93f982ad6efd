"""Small run-time helpers shared by compiled closures.

Everything here runs inside the engine's inner loop, so each helper is as plain as possible.
The helpers for operations whose cost or result grows with their operands (joining, long
scans, multiplying) also keep to the budgets of `rulekit.expr.budget`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from rulekit.expr.budget import (
    MAX_INT_BITS,
    MAX_LIST,
    MAX_STR,
    MAX_TREE,
    BudgetExceeded,
    charge,
    too_long,
)


def div(a: Any, b: Any) -> Any:
    """`/`: exact quotients of two ints stay ints (6/3 == 2), everything else is a float."""
    if type(a) is int and type(b) is int and b:
        q, r = divmod(a, b)
        if not r:
            return q
    return a / b


def render(v: Any) -> str:
    """How a value reads in labels: `true`/`false` like the language, 2.0 as 2; a list as
    Python writes it, built under MAX_STR (see `render_list`)."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) is float and v.is_integer():
        return str(int(v))
    if v.__class__ is list:
        return render_list(v)
    return str(v)


#: the elements of lists written as Python writes them (repr); objects by their own text
_REPR = frozenset({int, float, str, bool, type(None)})


def render_list(xs: list) -> str:
    """The text of a list, refused as soon as it passes MAX_STR characters: a list of
    lists held many times over is small in memory but gigabytes as text."""
    parts: list[str] = []
    _put_list(xs, parts, MAX_STR)
    text = "".join(parts)
    charge(len(text) >> 4)
    return text


def _put_list(xs: list, parts: list[str], room: int) -> int:
    """Write `xs` into `parts`; `room` is the characters still allowed, returned less
    what was written."""
    parts.append("[")
    room -= 2
    sep = False
    for x in xs:
        if sep:
            parts.append(", ")
            room -= 2
        sep = True
        if x.__class__ is list:
            room = _put_list(x, parts, room)
        else:
            t = repr(x) if x.__class__ in _REPR else str(x)
            parts.append(t)
            room -= len(t)
        if room < 0:
            raise too_much_text()
    parts.append("]")
    return room


def too_much_text() -> BudgetExceeded:
    return BudgetExceeded(f"a string of more than {MAX_STR} characters: the text of one "
                          f"value may have at most {MAX_STR}")


def tree_size(xs: list, depth: int, most: int = MAX_TREE) -> int:
    """The elements of `xs` and of the lists inside it, `depth` levels down, each as often
    as it is held; counting stops once past `most`. The walk is charged by the lists it
    reads."""
    n = len(xs)
    if depth and n:
        charge(n)
        depth -= 1
        for x in xs:
            if x.__class__ is list:  # (or none, a missing value)
                n += tree_size(x, depth, most - n)
                if n > most:
                    break
    return n


def sized(xs: list, depth: int) -> list:
    """`xs`, a list of lists (`depth` levels of them) just made, refused when it holds more
    than MAX_TREE elements counted with multiplicity: what comparing or writing it costs."""
    if tree_size(xs, depth) > MAX_TREE:
        raise BudgetExceeded(f"a list would hold more than {MAX_TREE} elements, counting "
                             "those of the lists inside it each time one is held")
    return xs


def length(xs: Iterable[Any]) -> int:
    """len() that also works for iterables without a length (counted by walking them)."""
    try:
        return len(xs)  # type: ignore[arg-type]
    except TypeError:
        return sum(1 for _ in xs)


def first(xs: Iterable[Any]) -> Any:
    """The first element, or None for an empty iterable."""
    return next(iter(xs), None)


def reversed_list(xs: Iterable[Any]) -> list[Any]:
    """A new list in reverse order, for any iterable."""
    if type(xs) is list:
        return xs[::-1]
    return list(xs)[::-1]


def join(sep: str, xs: Iterable[Any]) -> str:
    """join(sep, xs): renders every element like a label does, the text measured as it
    grows (an element may be a long list)."""
    parts = []
    room = MAX_STR + len(sep)
    for x in xs:
        t = render(x)
        room -= len(t) + len(sep)
        if room < 0:
            raise too_much_text()
        parts.append(t)
    return sep.join(parts)


def join_ints(sep: str, xs: Iterable[int]) -> str:
    """join() of whole numbers, which render as str() does (a label such as '5 + 10')."""
    parts = list(map(str, xs))
    if len(parts) > 64:
        return join_str(sep, parts)
    text = sep.join(parts)
    if len(text) > MAX_STR:
        raise _long_string(len(text))
    return text


def join_str(sep: str, xs: Iterable[str]) -> str:
    """join() of elements known to be strings, no longer than a string may be."""
    parts = xs if xs.__class__ is list else list(xs)
    if len(parts) > 64:  # many parts: measured before anything is built
        charge(len(parts))
        size = sum(map(len, parts)) + len(sep) * (len(parts) - 1)
        if size > MAX_STR:
            raise _long_string(size)
        charge(size >> 4)
    text = sep.join(parts)
    if len(text) > MAX_STR:
        raise _long_string(len(text))
    return text


def _long_string(n: int) -> BudgetExceeded:
    return BudgetExceeded(f"a string of {n} characters, more than the {MAX_STR} allowed")


def concat_str(a: str, b: str) -> str:
    """`+` on two strings, no longer than a string may be."""
    n = len(a) + len(b)
    if n > MAX_STR:
        raise _long_string(n)
    charge(n >> 4)  # every new string takes memory: many long ones are work too
    return a + b


def concat_list(a: list, b: list) -> list:
    """`+` on two lists: a new list, charged by its length and no longer than a list may be."""
    n = len(a) + len(b)
    if n > MAX_LIST:
        raise too_long("a list", n, MAX_LIST)
    charge(n)
    return a + b


def _text_cost(a: str, b: str) -> None:
    """A comparison of two texts reads at most the shorter: 16 characters a unit."""
    try:
        n = (len(a) if len(a) < len(b) else len(b)) >> 4
    except TypeError:  # none: a missing text
        return
    if n:
        charge(n)


def _text_eq(a: str, b: str) -> bool:
    try:
        if len(a) == len(b) and len(a) > 15:  # unlike lengths differ at once
            charge(len(a) >> 4)
    except TypeError:
        pass
    return a == b


def _text_ne(a: str, b: str) -> bool:
    return not _text_eq(a, b)


def _text_lt(a: str, b: str) -> bool:
    _text_cost(a, b)
    return a < b


def _text_le(a: str, b: str) -> bool:
    _text_cost(a, b)
    return a <= b


def _text_gt(a: str, b: str) -> bool:
    _text_cost(a, b)
    return a > b


def _text_ge(a: str, b: str) -> bool:
    _text_cost(a, b)
    return a >= b


def text_in(a: str, b: str) -> bool:
    """`a in b` on texts: a scan of b, charged by its length."""
    try:
        n = (len(a) + len(b)) >> 4
    except TypeError:
        n = 0
    if n:
        charge(n)
    return a in b


def text_not_in(a: str, b: str) -> bool:
    return not text_in(a, b)


#: comparisons of texts, charged by the characters they may read
TEXT_COMPARE = {"==": _text_eq, "!=": _text_ne, "<": _text_lt, "<=": _text_le,
                ">": _text_gt, ">=": _text_ge, "in": text_in, "not in": text_not_in}

_PLAIN = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
          "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def list_compare(op: str, depth: int, texts: bool = False) -> Callable[[Any, Any], bool]:
    """`op` between two lists whose elements are lists `depth` levels down, charged by
    the elements it may compare (those of the shorter operand, counted with multiplicity);
    with `texts`, a flat list of texts, also by their characters."""
    plain = _PLAIN[op]

    def compare(a: list, b: list) -> bool:
        if a.__class__ is list and b.__class__ is list:  # (or none, a missing value)
            shorter = a if len(a) < len(b) else b
            charge(tree_size(shorter, depth))
            if texts:
                charge(sum(len(t) for t in shorter if t.__class__ is str) >> 4)
        return plain(a, b)

    return compare


def text_list_contains(negate: bool) -> Callable[[str, list], bool]:
    """`t in xs` (or `not in`) for a list of texts: every element may be read as far as t
    is long."""
    def contains_(t: str, xs: list) -> bool:
        n = len(xs)
        if t.__class__ is str:
            n += (n * len(t)) >> 4
        charge(n)
        return (t not in xs) if negate else (t in xs)

    return contains_


def list_contains(depth: int, negate: bool) -> Callable[[Any, list], bool]:
    """`x in xs` (or `not in`) where xs holds lists (`depth` levels of them): charged by
    every element it may compare."""
    def contains_(x: Any, xs: list) -> bool:
        charge(tree_size(xs, depth))
        return (x not in xs) if negate else (x in xs)

    return contains_


def concat_sized(depth: int) -> Callable[[list, list], list]:
    """`+` on lists whose elements are lists `depth` levels down: the result is refused
    when it holds too much counted with multiplicity (see `sized`)."""
    if not depth:
        return concat_list
    return lambda a, b: sized(concat_list(a, b), depth)


def text_scan(func: Callable[[list], Any], sorting: bool) -> Callable[[list], Any]:
    """min, max or sorted of a list of texts: charged by the elements and, for their
    comparisons, by their characters (for sorted, as often as an element is compared)."""
    def scan(xs: list) -> Any:
        n = len(xs)
        chars = sum(len(t) for t in xs if t.__class__ is str) >> 4
        charge(n + (chars * n.bit_length() if sorting else chars))
        return func(xs)

    return scan


def contains(x: Any, xs: list) -> bool:
    """`x in xs` for a list, whose scan is charged by its length."""
    charge(len(xs))
    return x in xs


def not_contains(x: Any, xs: list) -> bool:
    charge(len(xs))
    return x not in xs


def template_text(most: int, parts: Iterable[str]) -> str:
    """A template's text from its parts, refused when it is longer than `most`."""
    text = "".join(parts)
    charge(len(text) >> 4)
    if len(text) > most:
        raise BudgetExceeded(f"a text of {len(text)} characters, more than the "
                             f"{MAX_STR} allowed besides the template's own")
    return text


#: the most numbers a range() may give while a game runs: more is a mistake in the rules
MAX_RANGE = MAX_LIST


def range_list(*args: int) -> list[int]:
    """range() as the language sees it: a real list, so `+`, indexing and `in` all work."""
    r = range_iter(*args)
    charge(len(r))
    return list(r)


def range_iter(*args: int) -> range:
    """range() for loops, which only iterate; bounded so that no loop runs for ever."""
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = MAX_RANGE + 1
    if n > MAX_RANGE:
        raise too_long(f"range({', '.join(map(str, args))})", n, MAX_RANGE)
    return r


def power(a: Any, b: Any) -> Any:
    """`**`, refused when the result would be astronomically large."""
    if (b.__class__ is int and a.__class__ is int and b > 0 and (a > 1 or a < -1)
            and a.bit_length() * b > MAX_INT_BITS):
        raise _big(f"{a} ** {b}")
    return a ** b


def mul(a: Any, b: Any) -> Any:
    """`*`, refused when a whole number would grow past MAX_INT_BITS."""
    r = a * b
    if r.__class__ is int and r.bit_length() > MAX_INT_BITS:
        raise _big("this product")
    return r


def _big(what: str) -> BudgetExceeded:
    return BudgetExceeded(f"{what} is too large a number (more than {MAX_INT_BITS} bits, "
                          "about 300 digits)")


floor = math.floor
ceil = math.ceil
