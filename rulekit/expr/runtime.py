"""Small run-time helpers shared by compiled closures.

Everything here runs inside the engine's inner loop, so each helper is as plain as possible.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


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
    return sep.join([render(x) for x in xs])


def join_str(sep: str, xs: Iterable[str]) -> str:
    """join() of elements known to be strings."""
    return sep.join(xs)


#: the most numbers a range() may give while a game runs: more is a mistake in the rules
MAX_RANGE = 100_000
#: the most bits a power may have: 10 ** 300 fits, a power that fills the memory does not
MAX_POWER_BITS = 1_000


def range_list(*args: int) -> list[int]:
    """range() as the language sees it: a real list, so `+`, indexing and `in` all work."""
    return list(range_iter(*args))


def range_iter(*args: int) -> range:
    """range() for loops, which only iterate; bounded so that no loop runs for ever."""
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = MAX_RANGE + 1
    if n > MAX_RANGE:
        raise ValueError(f"range({', '.join(map(str, args))}) would give more than "
                         f"{MAX_RANGE} numbers")
    return r


def power(a: Any, b: Any) -> Any:
    """`**`, refused when the result would be astronomically large."""
    if (b.__class__ is int and a.__class__ is int and b > 0 and (a > 1 or a < -1)
            and a.bit_length() * b > MAX_POWER_BITS):
        raise OverflowError(f"{a} ** {b} is too large a number")
    return a ** b


floor = math.floor
ceil = math.ceil
