"""Size and work budgets: how much one evaluation of a game file's expressions may cost.

A hostile or careless game file must fail with a located error in a second or two, never
hang or fill the memory. Sizes are checked where values are made (joining strings and
lists, list literals and comprehensions, counting the elements of nested lists with their
multiplicity, rendering text), and every operation is charged by the work it does: loops
by the length of what they run over, comparisons of lists and texts by the elements or
characters compared, `in` by what it scans, a building block's heavy value by its size.
Charges are written where the checker knows the operands can be large, so that adding
two whole numbers costs nothing extra, and the hot path pays one subtraction per loop.

Each thread has a meter of its own (`meter()`): the browser server plays games in a pool
of threads, which must not lend each other budget. Each public call of the State API sets
its thread's meter for its own run; loading a game file, and each value worked out at
load, run under `limit`. Between them the meter stands at IDLE, so compiled expressions
called by other code are not limited. The counts are deterministic, so a game that runs
out of work does so on every machine alike.

A limit with a deadline (the load's) hands its units to the meter a chunk at a time and
keeps the rest in reserve: when a chunk is spent, the slow path of `charge` looks at the
clock before refilling, so that one expensive expression cannot outlast the deadline,
at no cost to the inline charges.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: the most characters one string may have (labels, messages, string variables)
MAX_STR = 10_000
#: the most elements a list built by an expression may have (`+`, range)
MAX_LIST = 100_000
#: the most elements a list may hold counting those of the lists inside it, each as often
#: as it is held: a list of 1,000 references to one list of 1,000 counts 1,001,000
MAX_TREE = 1_000_000
#: the most bits a whole number may have: about 300 decimal digits
MAX_INT_BITS = 1_000
#: whole numbers stored in variables and containers stay below this (30 digits): beyond,
#: they grow without end
MAX_INT = 10**30
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
#: the units a limit with a deadline hands out between two looks at the clock: a few ms
CHUNK = 50_000
#: the meter between metered runs: compiled expressions called outside a game (tests, tools)
IDLE = 10**18


class BudgetExceeded(Exception):
    """An evaluation went past a size or work budget.

    Raised deep inside compiled expressions, where the position is not known; the engine
    and the loader catch it with the other run-time errors and add where it happened.
    """


class TooSlow(BudgetExceeded):
    """A limit's deadline passed: not a property of the expression, so never folded into
    a constant's error ("this always fails")."""


class Meter:
    """The units of work `left` to what runs now, and `what` that is, for the message
    when they run out; `reserve`, units not yet handed to `left`, and the `deadline`
    (time.monotonic()) before which they may be. Its fields are slots: generated code
    sets them at every move and counts every read of a define, and a slot is far quicker
    to set than a module's global or a thread-local attribute."""

    __slots__ = ("left", "what", "reserve", "deadline", "late")

    def __init__(self) -> None:
        self.left = IDLE
        self.what = "this evaluation"
        self.reserve = 0
        self.deadline: float | None = None
        self.late = ""


class _Local(threading.local):
    """Each thread's own meter, made at its first use in that thread."""

    def __init__(self) -> None:
        self.m = Meter()


#: the threads' meters: `LOCAL.m` is the running thread's (generated code reads it so)
LOCAL = _Local()


def meter() -> Meter:
    """The running thread's meter: fetch it once, then use its slots."""
    return LOCAL.m


def charge(n: int) -> None:
    """Count `n` units of work (elements looped over, scanned, compared or built); with
    n=0, what the inline charges call when the meter's slot went below zero."""
    m = LOCAL.m
    m.left -= n
    if m.left < 0:
        _refill(m)


def _refill(m: Meter) -> None:
    """The slow path: the next chunk of the reserve, if the deadline has not passed."""
    if m.reserve > 0:
        if m.deadline is not None and time.monotonic() > m.deadline:
            raise TooSlow(m.late or f"{m.what} took too long")
        take = min(m.reserve, CHUNK - m.left)
        m.reserve -= take
        m.left += take
        if m.left >= 0:
            return
    raise BudgetExceeded(f"more work than {m.what} may take: its loops, scans and "
                         "comparisons went past the budget; does a loop run over far more "
                         "than the rules need?")


def metered(itf: Callable[[Any, dict], Any]) -> Callable[[Any, dict], Any]:
    """What a loop runs over (`itf(st, env)`), charged by its length when the loop starts."""

    def items(st: Any, env: dict) -> Any:
        xs = itf(st, env)
        m = LOCAL.m
        try:
            m.left -= len(xs)
        except TypeError:  # an iterator: its producer was charged already
            m.left -= 1
        if m.left < 0:
            _refill(m)
        return xs

    return items


def charged(xs: Any) -> Any:
    """`xs`, after charging its length: a builtin is about to read all of it."""
    m = LOCAL.m
    try:
        m.left -= len(xs)
    except TypeError:
        m.left -= 1
    if m.left < 0:
        _refill(m)
    return xs


@contextmanager
def limit(units: int, what: str, seconds: float | None = None,
          late: str = "") -> Iterator[None]:
    """Run a block under a budget of `units`, or of what the enclosing budget has left if
    that is less; what the block uses is taken from the enclosing budget too. With
    `seconds`, the block also ends (TooSlow, with the message `late`) once that long has
    passed, even inside one expression; a limit within it keeps its deadline."""
    m = LOCAL.m
    outer = (m.left, m.reserve, m.what, m.deadline, m.late)
    total = m.left + m.reserve
    if units > total:
        units, what = total, m.what
    deadline = m.deadline
    if seconds is not None:
        end = time.monotonic() + seconds
        if deadline is None or end < deadline:
            deadline, m.late = end, late or f"{what} took more than {seconds:g} s"
    m.what, m.deadline = what, deadline
    if deadline is None:
        m.left, m.reserve = units, 0
    else:
        m.left = min(units, CHUNK)
        m.reserve = units - m.left
    try:
        yield
    finally:
        used = units - (m.left + m.reserve)
        left, reserve, m.what, m.deadline, m.late = outer
        left -= used
        if left < 0 < reserve:  # the block used more than the chunk: take from the reserve
            left, reserve = left + reserve, 0
            if m.deadline is not None and left > CHUNK:
                left, reserve = CHUNK, left - CHUNK
        m.left, m.reserve = left, reserve


def too_long(what: str, n: int, most: int) -> BudgetExceeded:
    return BudgetExceeded(f"{what} would have {n} elements, more than the {most} allowed")
