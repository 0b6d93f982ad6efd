"""Small run-time helpers shared by compiled closures.

Everything here runs inside the engine's inner loop, so each helper is as plain as possible.
The helpers for operations whose cost or result grows with their operands (joining, long
scans, multiplying) also keep to the budgets of `rulekit.expr.budget`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from rulekit.expr.budget import MAX_INT_BITS, MAX_LIST, MAX_STR, BudgetExceeded, charge, too_long


def div(a: Any, b: Any) -> Any:
    """`/`: exact quotients of two ints stay ints (6/3 == 2), everything else is a float."""
    if type(a) is int and type(b) is int and b:
        q, r = divmod(a, b)
        if not r:
            return q
    return a / b


def render(v: Any) -> str:
    """How a value reads in labels: `true`/`false` like the language, 2.0 as 2."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) is float and v.is_integer():
        return str(int(v))
    return str(v)


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
    """join(sep, xs): renders every element like a label does."""
    parts = [render(x) for x in xs]
    if len(parts) > 64:
        return join_str(sep, parts)
    text = sep.join(parts)  # a few numbers (a label): short whatever they are
    if len(text) > MAX_STR:
        raise _long_string(len(text))
    return text


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
