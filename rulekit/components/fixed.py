"""Config values that are fixed when a game loads: literals, or expressions of params only.

Lane lengths, pile keys and tile values shape a component's state and its types, so they
must be known before the first game starts; reading them here once keeps the hot path
free of expressions.
"""

from __future__ import annotations

from typing import Any

from rulekit.expr import ANY, INT, STR, ListT, Scope, Type
from rulekit.expr.budget import WORK_AT_LOAD, BudgetExceeded, limit
from rulekit.expr.types import fits, type_of_value
from rulekit.spec.source import Path_ as Path

#: the most entries a list in a component's config may have (cells, keys, items, lengths)
MAX_ITEMS = 1_000


class Seats:
    """Stands in for a game state where only the player count matters (values worked out
    at load for every player count the game allows)."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n


#: what a value worked out at load may raise: a bad index, a division by 0, a budget
LOAD_ERRORS = (ArithmeticError, LookupError, TypeError, ValueError, RecursionError,
               BudgetExceeded)


def for_players(fn: Any, n: int, env: dict | None = None) -> Any:
    """fn's value in a game of `n` players, under the work budget of one load-time value."""
    with limit(WORK_AT_LOAD, "a value worked out at load"):
        return fn(Seats(n), env or {})


def fixed_value(b: Any, path: Path, value: Any, expect: Type) -> Any:
    """The value of a config entry (a literal or a params-only expression), or None after
    reporting why it cannot be used."""
    if isinstance(value, str):
        c = b.expr(path, value, Scope(b.params), expect)
        if c is None:
            return None
        if not c.constant:
            b.error(path, "this value must be fixed when the game loads",
                    "use literals and params only")
            return None
        value = c.fn(None, {})
    elif isinstance(value, bool) or not fits(type_of_value(value), expect):
        b.error(path, f"expected {expect.name} (or an expression giving one), got {value!r}",
                "write a literal such as [1, 2, 3], or an expression of params in quotes")
        return None
    if isinstance(value, list) and len(value) > MAX_ITEMS:
        b.error(path, f"{len(value)} entries, more than the {MAX_ITEMS} a component may have",
                "a board game needs far fewer; is a range or a param wrong?")
        return None
    return value


def key_list(b: Any, path: Path, value: Any, what: str) -> tuple[list, Type]:
    """Distinct keys (all ints or all strings) and their type, for lanes, piles and such."""
    keys = fixed_value(b, path, value, ListT(ANY))
    if keys is None:
        return [], INT
    keys = list(keys)
    if not keys:
        b.error(path, f"there must be at least one {what}", "list the keys, e.g. [red, blue]")
        return [], INT
    if all(isinstance(k, int) and not isinstance(k, bool) for k in keys):
        key_t = INT
    elif all(isinstance(k, str) for k in keys):
        key_t = STR
    else:
        b.error(path, f"{what} keys must be all whole numbers or all names, got {keys!r}",
                "quote numbers that are meant as names: ['1', 'two']")
        return [], INT
    if len(set(keys)) != len(keys):
        dup = sorted({k for k in keys if keys.count(k) > 1}, key=str)
        b.error(path, f"every {what} needs its own key; repeated: "
                      f"{', '.join(map(str, dup))}", "remove the repeated keys")
        return [], key_t
    return keys, key_t


def int_list(b: Any, path: Path, value: Any, n: int, what: str, least: int,
             most: int) -> list[int]:
    """`n` whole numbers from `least` to `most`, one per key; a single number is used for all."""
    if n == 0:
        return []  # the keys were wrong, and that is reported already
    if isinstance(value, int) and not isinstance(value, bool):
        values = [value] * n
    else:
        values = fixed_value(b, path, value, ListT(INT))
        if values is None:
            return [least] * n
        values = list(values)
        if len(values) != n:
            b.error(path, f"{what}: needs {n} values, one per key, got {len(values)}",
                    "give one value per key, or one number for all")
            return [least] * n
    for v in values:
        if not least <= v <= most:
            b.error(path, f"{what} must be from {least} to {most}, got {v}",
                    f"every value here is {least} or more, and at most {most}")
            return [least] * n
    return values


def hands_fit(b: Any, path: Path, fn: Any, total: int, piece: str, whole: str,
              hint: str, follows_the_game: bool = False) -> None:
    """Report, at `path`, the first player count for which hands of `fn` pieces each do not
    fit a `whole` of `total` pieces ("4 hands of 5 cards do not fit a deck of 16 cards").

    With `follows_the_game`, a size that reads more than params and the player count (a
    variable) is left to be checked when the game deals.
    """
    players = b.src.data.get("players") or {}
    lo = players.get("min", 1)
    for n in range(lo, players.get("max", lo) + 1):
        try:
            size = for_players(fn, n)
        except (*LOAD_ERRORS, AttributeError) as exc:
            if not follows_the_game:
                b.error(path, f"{path[-1]} with {n} players: {exc}",
                        "it must give a whole number for every player count of the game")
            return
        if size < 0 or n * size > total:
            b.error(path, f"{n} hands of {size} {piece}s do not fit a {whole} of {total} "
                          f"{piece}s", hint)
            return
