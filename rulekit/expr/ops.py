"""Closure factories for binary operators, one per operand shape.

Each operator gets seven factories so that the compiled closure does the least work:
  ff(fa, fb)    both operands computed               -> fa(st, env) OP fb(st, env)
  fc(fa, c)     right operand constant               -> fa(st, env) OP c
  cf(c, fb)     left operand constant                -> c OP fb(st, env)
  lc(n, c)      left is a local, right constant      -> env[n] OP c
  ll(n, m)      both are locals                      -> env[n] OP env[m]
  gc(g, n, c)   left is `local.attr...`, right const -> g(env[n]) OP c
  Gc(g, r, c)   left is `global.attr...`, right const -> g(r(st)) OP c
(g is an attrgetter, r a Global's getter.)
The operator is written out in every lambda (rather than calling an `operator` function)
because that saves a call per evaluation.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from rulekit.expr.budget import charge
from rulekit.expr.runtime import div, mul, power

Fn = Callable[[Any, dict], Any]

BINARY: dict[str, tuple[Callable[..., Fn], ...]] = {
    "+": (
        lambda a, b: lambda st, env: a(st, env) + b(st, env),
        lambda a, c: lambda st, env: a(st, env) + c,
        lambda c, b: lambda st, env: c + b(st, env),
        lambda n, c: lambda st, env: env[n] + c,
        lambda n, m: lambda st, env: env[n] + env[m],
        lambda g, n, c: lambda st, env: g(env[n]) + c,
        lambda g, r, c: lambda st, env: g(r(st)) + c,
    ),
    "-": (
        lambda a, b: lambda st, env: a(st, env) - b(st, env),
        lambda a, c: lambda st, env: a(st, env) - c,
        lambda c, b: lambda st, env: c - b(st, env),
        lambda n, c: lambda st, env: env[n] - c,
        lambda n, m: lambda st, env: env[n] - env[m],
        lambda g, n, c: lambda st, env: g(env[n]) - c,
        lambda g, r, c: lambda st, env: g(r(st)) - c,
    ),
    "*": (  # through mul(): whole numbers multiplied again and again grow without end
        lambda a, b: lambda st, env: mul(a(st, env), b(st, env)),
        lambda a, c: lambda st, env: mul(a(st, env), c),
        lambda c, b: lambda st, env: mul(c, b(st, env)),
        lambda n, c: lambda st, env: mul(env[n], c),
        lambda n, m: lambda st, env: mul(env[n], env[m]),
        lambda g, n, c: lambda st, env: mul(g(env[n]), c),
        lambda g, r, c: lambda st, env: mul(g(r(st)), c),
    ),
    "/": (
        lambda a, b: lambda st, env: div(a(st, env), b(st, env)),
        lambda a, c: lambda st, env: div(a(st, env), c),
        lambda c, b: lambda st, env: div(c, b(st, env)),
        lambda n, c: lambda st, env: div(env[n], c),
        lambda n, m: lambda st, env: div(env[n], env[m]),
        lambda g, n, c: lambda st, env: div(g(env[n]), c),
        lambda g, r, c: lambda st, env: div(g(r(st)), c),
    ),
    "//": (
        lambda a, b: lambda st, env: a(st, env) // b(st, env),
        lambda a, c: lambda st, env: a(st, env) // c,
        lambda c, b: lambda st, env: c // b(st, env),
        lambda n, c: lambda st, env: env[n] // c,
        lambda n, m: lambda st, env: env[n] // env[m],
        lambda g, n, c: lambda st, env: g(env[n]) // c,
        lambda g, r, c: lambda st, env: g(r(st)) // c,
    ),
    "%": (
        lambda a, b: lambda st, env: a(st, env) % b(st, env),
        lambda a, c: lambda st, env: a(st, env) % c,
        lambda c, b: lambda st, env: c % b(st, env),
        lambda n, c: lambda st, env: env[n] % c,
        lambda n, m: lambda st, env: env[n] % env[m],
        lambda g, n, c: lambda st, env: g(env[n]) % c,
        lambda g, r, c: lambda st, env: g(r(st)) % c,
    ),
    "**": (  # through power(): a huge power would take all memory and time
        lambda a, b: lambda st, env: power(a(st, env), b(st, env)),
        lambda a, c: lambda st, env: power(a(st, env), c),
        lambda c, b: lambda st, env: power(c, b(st, env)),
        lambda n, c: lambda st, env: power(env[n], c),
        lambda n, m: lambda st, env: power(env[n], env[m]),
        lambda g, n, c: lambda st, env: power(g(env[n]), c),
        lambda g, r, c: lambda st, env: power(g(r(st)), c),
    ),
    "==": (
        lambda a, b: lambda st, env: a(st, env) == b(st, env),
        lambda a, c: lambda st, env: a(st, env) == c,
        lambda c, b: lambda st, env: c == b(st, env),
        lambda n, c: lambda st, env: env[n] == c,
        lambda n, m: lambda st, env: env[n] == env[m],
        lambda g, n, c: lambda st, env: g(env[n]) == c,
        lambda g, r, c: lambda st, env: g(r(st)) == c,
    ),
    "!=": (
        lambda a, b: lambda st, env: a(st, env) != b(st, env),
        lambda a, c: lambda st, env: a(st, env) != c,
        lambda c, b: lambda st, env: c != b(st, env),
        lambda n, c: lambda st, env: env[n] != c,
        lambda n, m: lambda st, env: env[n] != env[m],
        lambda g, n, c: lambda st, env: g(env[n]) != c,
        lambda g, r, c: lambda st, env: g(r(st)) != c,
    ),
    "<": (
        lambda a, b: lambda st, env: a(st, env) < b(st, env),
        lambda a, c: lambda st, env: a(st, env) < c,
        lambda c, b: lambda st, env: c < b(st, env),
        lambda n, c: lambda st, env: env[n] < c,
        lambda n, m: lambda st, env: env[n] < env[m],
        lambda g, n, c: lambda st, env: g(env[n]) < c,
        lambda g, r, c: lambda st, env: g(r(st)) < c,
    ),
    "<=": (
        lambda a, b: lambda st, env: a(st, env) <= b(st, env),
        lambda a, c: lambda st, env: a(st, env) <= c,
        lambda c, b: lambda st, env: c <= b(st, env),
        lambda n, c: lambda st, env: env[n] <= c,
        lambda n, m: lambda st, env: env[n] <= env[m],
        lambda g, n, c: lambda st, env: g(env[n]) <= c,
        lambda g, r, c: lambda st, env: g(r(st)) <= c,
    ),
    ">": (
        lambda a, b: lambda st, env: a(st, env) > b(st, env),
        lambda a, c: lambda st, env: a(st, env) > c,
        lambda c, b: lambda st, env: c > b(st, env),
        lambda n, c: lambda st, env: env[n] > c,
        lambda n, m: lambda st, env: env[n] > env[m],
        lambda g, n, c: lambda st, env: g(env[n]) > c,
        lambda g, r, c: lambda st, env: g(r(st)) > c,
    ),
    ">=": (
        lambda a, b: lambda st, env: a(st, env) >= b(st, env),
        lambda a, c: lambda st, env: a(st, env) >= c,
        lambda c, b: lambda st, env: c >= b(st, env),
        lambda n, c: lambda st, env: env[n] >= c,
        lambda n, m: lambda st, env: env[n] >= env[m],
        lambda g, n, c: lambda st, env: g(env[n]) >= c,
        lambda g, r, c: lambda st, env: g(r(st)) >= c,
    ),
    "in": (
        lambda a, b: lambda st, env: a(st, env) in b(st, env),
        lambda a, c: lambda st, env: a(st, env) in c,
        lambda c, b: lambda st, env: c in b(st, env),
        lambda n, c: lambda st, env: env[n] in c,
        lambda n, m: lambda st, env: env[n] in env[m],
        lambda g, n, c: lambda st, env: g(env[n]) in c,
        lambda g, r, c: lambda st, env: g(r(st)) in c,
    ),
    "not in": (
        lambda a, b: lambda st, env: a(st, env) not in b(st, env),
        lambda a, c: lambda st, env: a(st, env) not in c,
        lambda c, b: lambda st, env: c not in b(st, env),
        lambda n, c: lambda st, env: env[n] not in c,
        lambda n, m: lambda st, env: env[n] not in env[m],
        lambda g, n, c: lambda st, env: g(env[n]) not in c,
        lambda g, r, c: lambda st, env: g(r(st)) not in c,
    ),
}


def _contains(a: Any, b: Any) -> bool:
    if b.__class__ is list:  # a scan: charged by its length
        charge(len(b))
    return a in b


def _not_contains(a: Any, b: Any) -> bool:
    return not _contains(a, b)


# Plain two-argument functions, for chained comparisons (`a < b <= c`).
COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": _contains,
    "not in": _not_contains,
}

# The same operators as plain functions, for closures over a single loop variable.
FUNCTION: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": mul,
    "/": div,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": power,
    **COMPARE,
}

# `v OP c` written as `F(c, v)`, so that functools.partial(F, c) computes it without a
# Python-level call. Only exact rewrites are listed; `+` and `*` swap operands, which is
# exact for numbers only (the caller checks).
SWAPPED: dict[str, Callable[[Any, Any], Any]] = {
    ">": operator.lt,
    ">=": operator.le,
    "<": operator.gt,
    "<=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "in": operator.contains,
}
COMMUTATIVE_FOR_NUMBERS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "*": mul,
}
