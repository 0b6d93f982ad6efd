"""Size and work budgets: how much one evaluation of a game file's expressions may cost.

A hostile or careless game file must fail with a located error in a second or two, never
hang or fill the memory. Sizes are checked where values grow (joining strings and lists,
multiplying numbers); work is counted where loops run (comprehensions, `for` bindings,
option generators, defines, scans of long lists), charged in bulk by the length of what
is looped over, so that the hot path pays one call per loop rather than per element.

The meter is one number for the process: a game runs in one thread at a time, and each
public call of the State API sets it for its own run; loading a game file, and each value
worked out at load, run under `limit`. Between them the meter stands at IDLE, so compiled
expressions called by other code are not limited. The counts are deterministic, so a game
that runs out of work does so on every machine alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: the most characters one string may have (labels, messages, string variables)
MAX_STR = 10_000
#: the most elements a list built by an expression may have (`+`, range)
MAX_LIST = 100_000
#: the most bits a whole number may have: about 300 decimal digits
MAX_INT_BITS = 1_000
#: the most options one decision may offer
MAX_OPTIONS = 10_000
#: the most characters of `say` lines one game may log
MAX_LOG_CHARS = 1_000_000
#: work units of one call of the State API (one move, one roll, the scores): about a second
WORK_PER_CALL = 2_000_000
#: work units of a whole game, so that a long game of expensive moves still ends
WORK_PER_GAME = 10 * WORK_PER_CALL
#: work units of one value worked out while a game file loads, and of the whole load
WORK_AT_LOAD = 1_000_000
WORK_PER_LOAD = 5 * WORK_AT_LOAD
#: the meter between metered runs: compiled expressions called outside a game (tests, tools)
IDLE = 10**18


class BudgetExceeded(Exception):
    """An evaluation went past a size or work budget.

    Raised deep inside compiled expressions, where the position is not known; the engine
    and the loader catch it with the other run-time errors and add where it happened.
    """


class Meter:
    """The units of work `left` to what runs now, and `what` that is, for the message
    when they run out. Its fields are slots: generated code sets them at every move and
    counts every read of a define, and a slot is far quicker to set than a module's
    global from outside it."""

    __slots__ = ("left", "what")

    def __init__(self) -> None:
        self.left = IDLE
        self.what = "this evaluation"


#: the one meter of the process
METER = Meter()


def charge(n: int) -> None:
    """Count `n` units of work (elements looped over, scanned or built)."""
    m = METER
    m.left -= n
    if m.left < 0:
        raise BudgetExceeded(f"more work than {m.what} may take: its loops and list scans "
                             "went past the budget; does a loop run over far more than the "
                             "rules need?")


def metered(itf: Callable[[Any, dict], Any]) -> Callable[[Any, dict], Any]:
    """What a loop runs over (`itf(st, env)`), charged by its length when the loop starts."""

    def items(st: Any, env: dict) -> Any:
        xs = itf(st, env)
        m = METER
        try:
            m.left -= len(xs)
        except TypeError:  # an iterator: its producer was charged already
            m.left -= 1
        if m.left < 0:
            charge(0)
        return xs

    return items


def charged(xs: Any) -> Any:
    """`xs`, after charging its length: a builtin is about to read all of it."""
    m = METER
    try:
        m.left -= len(xs)
    except TypeError:
        m.left -= 1
    if m.left < 0:
        charge(0)
    return xs


@contextmanager
def limit(units: int, what: str) -> Iterator[None]:
    """Run a block under a budget of `units`, or of what the enclosing budget has left if
    that is less; what the block uses is taken from the enclosing budget too."""
    m = METER
    outer, outer_what = m.left, m.what
    if units > outer:
        units, what = outer, outer_what
    m.left, m.what = units, what
    try:
        yield
    finally:
        used = units - m.left
        m.left, m.what = outer - used, outer_what


def too_long(what: str, n: int, most: int) -> BudgetExceeded:
    return BudgetExceeded(f"{what} would have {n} elements, more than the {most} allowed")
