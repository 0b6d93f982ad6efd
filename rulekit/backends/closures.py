"""The closure backend: every checked node as a Python closure `fn(st, env)`.

The checker (rulekit.expr.check) calls these builders as it checks, so that every node has
its closure; it also runs them to fold the parts of an expression that are constant. Each
builder picks, once at load, the closure specialised for the shape of its operands (a
constant, a local variable, an attribute chain, ...): a closure never inspects node kinds
at run time.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from rulekit.expr import runtime
from rulekit.expr.budget import MAX_STR, charged
from rulekit.expr.ops import BINARY, COMMUTATIVE_FOR_NUMBERS, FUNCTION, SWAPPED
from rulekit.expr.tree import Fn, Node
from rulekit.expr.types import BOOL, INT, STR, ListT, is_numeric


def to_bool(f: Fn) -> Fn:
    return lambda st, env: bool(f(st, env))


def all_of(fns: list[Fn]) -> Fn:
    """`f1 and f2 and ...` as one closure."""
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        a, b = fns
        return lambda st, env: a(st, env) and b(st, env)
    if len(fns) == 3:
        a, b, c = fns
        return lambda st, env: a(st, env) and b(st, env) and c(st, env)
    tup = tuple(fns)

    def all_of(st: Any, env: dict) -> bool:
        for f in tup:
            if not f(st, env):
                return False
        return True

    return all_of


def any_of(fns: list[Fn]) -> Fn:
    """`f1 or f2 or ...` as one closure."""
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        a, b = fns
        return lambda st, env: a(st, env) or b(st, env)
    if len(fns) == 3:
        a, b, c = fns
        return lambda st, env: a(st, env) or b(st, env) or c(st, env)
    tup = tuple(fns)

    def any_of(st: Any, env: dict) -> bool:
        for f in tup:
            if f(st, env):
                return True
        return False

    return any_of


def chain_fn(kind: str, root: Any, path: tuple[str, ...]) -> Fn:
    get = operator.attrgetter(".".join(path))
    if kind == "local":
        return lambda st, env: get(env[root])
    if kind == "global":
        return lambda st, env: get(root(st))
    return lambda st, env: get(root(st, env))


def call_fn(func: Callable[..., Any], args: list[Node]) -> Fn:
    """The closure for `func(args...)`, picked by the shape of the arguments."""
    n = len(args)
    if n == 1:
        a = args[0]
        if a.local is not None:
            name = a.local
            fn: Fn = lambda st, env: func(env[name])  # noqa: E731
        else:
            fa = a.fn
            fn = lambda st, env: func(fa(st, env))  # noqa: E731
    elif n == 2:
        a, b = args
        fa, fb = a.fn, b.fn
        if b.const:
            cb = b.value
            fn = lambda st, env: func(fa(st, env), cb)  # noqa: E731
        elif a.const:
            ca = a.value
            fn = lambda st, env: func(ca, fb(st, env))  # noqa: E731
        else:
            fn = lambda st, env: func(fa(st, env), fb(st, env))  # noqa: E731
    elif n == 3:
        fa, fb, fc = (x.fn for x in args)
        fn = lambda st, env: func(fa(st, env), fb(st, env), fc(st, env))  # noqa: E731
    else:
        fns = tuple(x.fn for x in args)
        fn = lambda st, env: func(*[f(st, env) for f in fns])  # noqa: E731
    return fn


def sized_fn(fn: Fn, depth: int) -> Fn:
    """`fn`, whose lists of lists are refused when they hold too much (runtime.sized)."""
    sized = runtime.sized
    return lambda st, env: sized(fn(st, env), depth)


def scanning(func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """func(xs) for a builtin that reads all of xs: charged by its length."""
    return lambda xs: func(charged(xs))


def result_fn(node: Node) -> Fn:
    if node.const and isinstance(node.value, list):
        # A folded list is shared; hand out copies so callers may keep or change them.
        value = node.value
        return lambda st, env: list(value)
    return node.fn


def joiner(xs: Node) -> Callable[[str, Any], str]:
    """join() for the list's element type: strings and ints need no rendering of their own."""
    elem = xs.type.elem if isinstance(xs.type, ListT) else None
    if elem is STR:
        return runtime.join_str
    if elem is INT:
        return runtime.join_ints
    return runtime.join


# -- single operations ------------------------------------------------------------------


def constant_fn(value: Any) -> Fn:
    """The closure of a value known at load."""
    return lambda st, env: value


def local_fn(name: str) -> Fn:
    """The closure of a local: `env[name]`."""
    return lambda st, env: env[name]


def global_fn(get: Callable[[Any], Any]) -> Fn:
    """The closure of a global name, read from the state by `get`."""
    return lambda st, env: get(st)


def list_fn(fns: list[Fn]) -> Fn:
    """`[a, b, ...]` as one closure."""
    if not fns:
        fn: Fn = lambda st, env: []  # noqa: E731
    elif len(fns) == 1:
        a = fns[0]
        fn = lambda st, env: [a(st, env)]  # noqa: E731
    elif len(fns) == 2:
        a, b = fns
        fn = lambda st, env: [a(st, env), b(st, env)]  # noqa: E731
    elif len(fns) == 3:
        a, b, c = fns
        fn = lambda st, env: [a(st, env), b(st, env), c(st, env)]  # noqa: E731
    else:
        tup = tuple(fns)
        fn = lambda st, env: [f(st, env) for f in tup]  # noqa: E731
    return fn


def index_fn(base: Node, key: Node) -> Fn:
    """The closure for `base[key]`, picked by the shape of the operands."""
    fb, fk = base.fn, key.fn
    if key.const:
        ck = key.value
        if base.local is not None:
            name = base.local
            fn: Fn = lambda st, env: env[name][ck]  # noqa: E731
        else:
            fn = lambda st, env: fb(st, env)[ck]  # noqa: E731
    elif base.const:
        cb = base.value
        fn = lambda st, env: cb[fk(st, env)]  # noqa: E731
    else:
        fn = lambda st, env: fb(st, env)[fk(st, env)]  # noqa: E731
    return fn


def method_fn(name: str, base: Node, args: list[Node]) -> Fn:
    """The closure for `base.name(args...)`, picked by the shape of the operands."""
    fb = base.fn
    n = len(args)
    if n == 0:
        call0 = operator.methodcaller(name)
        if base.local is not None:
            bname = base.local
            fn: Fn = lambda st, env: call0(env[bname])  # noqa: E731
        else:
            fn = lambda st, env: call0(fb(st, env))  # noqa: E731
    elif n == 1:
        fa = args[0].fn
        if base.local is not None and args[0].local is not None:
            # the common `row.can_cross(n)`: both read straight from the env
            bname, aname = base.local, args[0].local
            fn = lambda st, env: getattr(env[bname], name)(env[aname])  # noqa: E731
        elif base.local is not None:
            bname = base.local
            fn = lambda st, env: getattr(env[bname], name)(fa(st, env))  # noqa: E731
        else:
            fn = lambda st, env: getattr(fb(st, env), name)(fa(st, env))  # noqa: E731
    elif n == 2:
        fa, fc = args[0].fn, args[1].fn
        fn = lambda st, env: getattr(fb(st, env), name)(  # noqa: E731
            fa(st, env), fc(st, env)
        )
    else:
        fns = tuple(a.fn for a in args)
        fn = lambda st, env: getattr(fb(st, env), name)(  # noqa: E731
            *[f(st, env) for f in fns]
        )
    return fn


def cond_fn(a: Node, c: Node, b: Node) -> Fn:
    """The closure for `a if c else b` (c not a constant)."""
    fc = c.fn
    if a.const and b.const:
        ca, cb = a.value, b.value
        fn: Fn = lambda st, env: ca if fc(st, env) else cb  # noqa: E731
    elif a.const:
        ca, fb = a.value, b.fn
        fn = lambda st, env: ca if fc(st, env) else fb(st, env)  # noqa: E731
    elif b.const:
        fa, cb = a.fn, b.value
        fn = lambda st, env: fa(st, env) if fc(st, env) else cb  # noqa: E731
    else:
        fa, fb = a.fn, b.fn
        fn = lambda st, env: fa(st, env) if fc(st, env) else fb(st, env)  # noqa: E731
    return fn


def not_fn(a: Node) -> Fn:
    """The closure for `not a`."""
    if a.local is not None:
        name = a.local
        fn: Fn = lambda st, env: not env[name]  # noqa: E731
    else:
        fa = a.fn
        fn = lambda st, env: not fa(st, env)  # noqa: E731
    return fn


def not_vf(vf: tuple[str, Callable[[Any], Any] | None]) -> tuple[str, Callable[[Any], Any]]:
    """`not a` as a function of the one local `a` depends on (see Node.vf)."""
    name, g = vf
    return name, operator.not_ if g is None else compose(operator.not_, g)


def compare_chain_fn(operands: list[Node], cmps: list[Callable[[Any, Any], Any]]) -> Fn:
    """The closure for `a < b < c ...` (three operands or more), each operand computed
    once, with `cmps` the functions of the comparisons in order."""
    if len(operands) == 3:
        a, b, c = operands
        o1, o2 = cmps
        fb = b.fn
        if a.const and c.const:
            ca, cc = a.value, c.value
            fn: Fn = lambda st, env: o1(ca, (m := fb(st, env))) and o2(m, cc)  # noqa: E731
        else:
            fa, fc = a.fn, c.fn
            fn = lambda st, env: (  # noqa: E731
                o1(fa(st, env), (m := fb(st, env))) and o2(m, fc(st, env))
            )
        return fn
    first_fn = operands[0].fn
    rest = tuple(zip(cmps, (o.fn for o in operands[1:]), strict=True))

    def chain(st: Any, env: dict) -> bool:
        left = first_fn(st, env)
        for cmp, f in rest:
            right = f(st, env)
            if not cmp(left, right):
                return False
            left = right
        return True

    return chain


def neg_fn(a: Node) -> Fn:
    """The closure for `-a`."""
    fa = a.fn
    return lambda st, env: -fa(st, env)


def of_lazy(func: Callable[[Any], Any], lazy: Fn) -> Fn:
    """`func` of a generator's lazy iterator (sum, min, any, ...), no list built."""
    return lambda st, env: func(lazy(st, env))


def first_of_lazy(lazy: Fn) -> Fn:
    """first() of a generator: its first element, None when it has none."""
    return lambda st, env: next(lazy(st, env), None)


# -- operators -------------------------------------------------------------------------


def binary_fn(op: str, left: Node, right: Node) -> Fn:
    """The closure for `left op right`, picked by operand shape."""
    ff, fc, cf, lc, ll, gc, gg = BINARY[op]
    if left.local is not None:
        if right.const:
            return lc(left.local, right.value)
        if right.local is not None:
            return ll(left.local, right.local)
    if right.const:
        chain = left.chain
        if chain is not None and chain[2] and chain[0] in ("local", "global"):
            getter = operator.attrgetter(".".join(chain[2]))
            if chain[0] == "local":
                return gc(getter, chain[1], right.value)
            return gg(getter, chain[1], right.value)
        return fc(left.fn, right.value)
    if left.const:
        return cf(left.value, right.fn)
    return ff(left.fn, right.fn)


def identity(v: Any) -> Any:
    return v


def compose(f: Callable[[Any], Any], g: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: f(g(v))


def binary_vf(op: str, left: Node, right: Node) -> tuple[str, Callable[[Any], Any]] | None:
    """`left op right` as a function of one local, when that is all it depends on."""
    func = FUNCTION[op]
    if left.vf is not None and right.const:
        name, g = left.vf
        c = right.value
        if g is None:
            if op in SWAPPED:
                return name, partial(SWAPPED[op], c)
            if op in COMMUTATIVE_FOR_NUMBERS and is_numeric(left.type):
                return name, partial(COMMUTATIVE_FOR_NUMBERS[op], c)
            return name, lambda v: func(v, c)
        return name, lambda v: func(g(v), c)
    if right.vf is not None and left.const:
        name, g = right.vf
        c = left.value
        if g is None:
            return name, partial(func, c)
        return name, lambda v: func(c, g(v))
    if left.vf is not None and right.vf is not None and left.vf[0] == right.vf[0]:
        name = left.vf[0]
        g1 = left.vf[1] or identity
        g2 = right.vf[1] or identity
        return name, lambda v: func(g1(v), g2(v))
    return None


def boolop_vf(nodes: list[Node], is_and: bool) -> tuple[str, Callable[[Any], Any]] | None:
    """`a and b` / `a or b` as a function of one local, when that is all it depends on."""
    vfs = [n.vf for n in nodes]
    names = {vf[0] for vf in vfs if vf is not None}
    if None in vfs or len(names) != 1:
        return None
    name = names.pop()
    fs = [(vf[1] if vf is not None else None) or identity for vf in vfs]
    if any(n.type is not BOOL for n in nodes):
        fs = [compose(bool, f) for f in fs]
    if len(fs) == 2:
        f1, f2 = fs
        if is_and:
            return name, lambda v: f1(v) and f2(v)
        return name, lambda v: f1(v) or f2(v)
    tup = tuple(fs)
    if is_and:
        return name, lambda v: all(f(v) for f in tup)
    return name, lambda v: any(f(v) for f in tup)


# -- comprehension closures ------------------------------------------------------------
# `for e[name] in ...` assigns the loop variable straight into the comprehension's own
# copy of env, so the body and conditions read it like any other local.


NO_FILTER: Any = object()


def loop_var_plan(
    name: str, body: Node, conds: list[Node]
) -> tuple[Callable[[Any], Any] | None, Any] | None:
    """(body function, filter function) when the body and conditions depend on nothing
    but the loop variable; then the loop can be map()/filter() with no env dict.

    The body function is None for the loop variable itself (or a constant body); the filter
    is NO_FILTER without conditions, None to keep truthy elements (`if x`).
    """
    if body.const:
        body_f = None
    elif body.vf is not None and body.vf[0] == name:
        body_f = body.vf[1]
    else:
        return None
    fs: list[Callable[[Any], Any] | None] = []
    for c in conds:
        if c.vf is None or c.vf[0] != name:
            return None
        fs.append(c.vf[1])
    if not fs:
        return body_f, NO_FILTER
    if len(fs) == 1:
        return body_f, fs[0]
    parts = tuple(f or identity for f in fs)
    return body_f, lambda v: all(f(v) for f in parts)


def fast_single(
    itf: Fn, body: Node, body_f: Callable[[Any], Any] | None, keep: Any
) -> tuple[Fn, Fn, Fn]:
    """values/lazy/count closures for a one-variable loop built from map() and filter()."""
    if keep is NO_FILTER:
        source: Fn = itf
        count: Fn = lambda st, env: runtime.length(itf(st, env))  # noqa: E731
    else:
        source = lambda st, env: filter(keep, itf(st, env))  # noqa: E731
        count = lambda st, env: len(list(filter(keep, itf(st, env))))  # noqa: E731
    if body.const:
        bv = body.value
        values: Fn = lambda st, env: [bv for _ in source(st, env)]  # noqa: E731
        lazy: Fn = lambda st, env: (bv for _ in source(st, env))  # noqa: E731
    elif body_f is None:
        if keep is NO_FILTER:
            values = lambda st, env: list(itf(st, env))  # noqa: E731
            lazy = lambda st, env: iter(itf(st, env))  # noqa: E731
        else:
            values = lambda st, env: list(filter(keep, itf(st, env)))  # noqa: E731
            lazy = source
    elif keep is NO_FILTER:
        values = lambda st, env: list(map(body_f, itf(st, env)))  # noqa: E731
        lazy = lambda st, env: map(body_f, itf(st, env))  # noqa: E731
    else:
        values = lambda st, env: list(map(body_f, filter(keep, itf(st, env))))  # noqa: E731
        lazy = lambda st, env: map(body_f, filter(keep, itf(st, env)))  # noqa: E731
    return values, lazy, count


def single_values(name: str, itf: Fn, cond: Fn | None, body: Node) -> Fn:
    if body.local == name:
        if cond is None:
            return lambda st, env: list(itf(st, env))

        def values(st: Any, env: dict) -> list:
            e = env.copy()
            return [e[name] for e[name] in itf(st, env) if cond(st, e)]

        return values
    if body.const:
        bv = body.value
        if cond is None:
            return lambda st, env: [bv for _ in itf(st, env)]

        def values(st: Any, env: dict) -> list:
            e = env.copy()
            return [bv for e[name] in itf(st, env) if cond(st, e)]

        return values
    bf = body.fn
    if cond is None:

        def values(st: Any, env: dict) -> list:
            e = env.copy()
            return [bf(st, e) for e[name] in itf(st, env)]

        return values

    def values(st: Any, env: dict) -> list:
        e = env.copy()
        return [bf(st, e) for e[name] in itf(st, env) if cond(st, e)]

    return values


def single_lazy(name: str, itf: Fn, cond: Fn | None, body: Node) -> Fn:
    bf = body.fn
    if cond is None:

        def lazy(st: Any, env: dict) -> Iterator:
            e = env.copy()
            return (bf(st, e) for e[name] in itf(st, env))

        return lazy

    def lazy(st: Any, env: dict) -> Iterator:
        e = env.copy()
        return (bf(st, e) for e[name] in itf(st, env) if cond(st, e))

    return lazy


def single_count(name: str, itf: Fn, cond: Fn | None) -> Fn:
    if cond is None:
        return lambda st, env: runtime.length(itf(st, env))

    def count(st: Any, env: dict) -> int:
        e = env.copy()
        n = 0
        for e[name] in itf(st, env):
            if cond(st, e):
                n += 1
        return n

    return count


def nested_values(levels: list[tuple[str, Fn, Fn | None]], body: Node) -> Fn:
    bf = body.fn

    def leaf(st: Any, e: dict, out: list) -> None:
        out.append(bf(st, e))

    step: Callable[[Any, dict, list], None] = leaf
    for name, itf, cond in reversed(levels):
        step = _values_level(name, itf, cond, step)
    top = step

    def values(st: Any, env: dict) -> list:
        out: list = []
        top(st, env.copy(), out)
        return out

    return values


def _values_level(
    name: str, itf: Fn, cond: Fn | None, inner: Callable[[Any, dict, list], None]
) -> Callable[[Any, dict, list], None]:
    if cond is None:

        def step(st: Any, e: dict, out: list) -> None:
            items = itf(st, e)
            for e[name] in items:
                inner(st, e, out)

        return step

    def step_if(st: Any, e: dict, out: list) -> None:
        items = itf(st, e)
        for e[name] in items:
            if cond(st, e):
                inner(st, e, out)

    return step_if


def nested_lazy(levels: list[tuple[str, Fn, Fn | None]], body: Node) -> Fn:
    bf = body.fn

    def leaf(st: Any, e: dict) -> Iterator:
        yield bf(st, e)

    step: Callable[[Any, dict], Iterator] = leaf
    for name, itf, cond in reversed(levels):
        step = _lazy_level(name, itf, cond, step)
    top = step
    return lambda st, env: top(st, env.copy())


def _lazy_level(
    name: str, itf: Fn, cond: Fn | None, inner: Callable[[Any, dict], Iterator]
) -> Callable[[Any, dict], Iterator]:
    if cond is None:

        def step(st: Any, e: dict) -> Iterator:
            items = itf(st, e)
            for e[name] in items:
                yield from inner(st, e)

        return step

    def step_if(st: Any, e: dict) -> Iterator:
        items = itf(st, e)
        for e[name] in items:
            if cond(st, e):
                yield from inner(st, e)

    return step_if


# -- bindings --------------------------------------------------------------------------


def bindings_iterator(clauses: list[tuple[str, Fn]]) -> Callable[[Any, dict], Iterator[dict]]:
    step: Callable[[Any, dict], Iterator[dict]] | None = None
    for name, itf in reversed(clauses):
        step = _last_binding(name, itf) if step is None else _binding(name, itf, step)
    assert step is not None
    # callers that loop themselves (the engine's option generators) can skip the generator
    step.clauses = tuple(clauses)  # type: ignore[attr-defined]
    return step


def _last_binding(name: str, itf: Fn) -> Callable[[Any, dict], Iterator[dict]]:
    def iterate(st: Any, env: dict) -> Iterator[dict]:
        for v in itf(st, env):
            d = env.copy()
            d[name] = v
            yield d

    return iterate


def _binding(
    name: str, itf: Fn, inner: Callable[[Any, dict], Iterator[dict]]
) -> Callable[[Any, dict], Iterator[dict]]:
    def iterate(st: Any, env: dict) -> Iterator[dict]:
        e = env.copy()
        for e[name] in itf(st, env):
            yield from inner(st, e)

    return iterate


# -- templates -------------------------------------------------------------------------


def template_fn(pieces: list[str | tuple[Fn, Callable[[Any], str]]], short: bool) -> Fn:
    """One closure for the whole template: head + r1(f1()) + lit1 + r2(f2()) + lit2 ...;
    the text of many parts is checked for length unless they are all `short`."""
    head = ""
    if pieces and isinstance(pieces[0], str):
        head = pieces[0]
        pieces = pieces[1:]
    if not pieces:
        return lambda st, env: head
    pairs: list[tuple[Fn, Callable[[Any], str], str]] = []
    i = 0
    while i < len(pieces):
        fn, render = pieces[i]  # type: ignore[misc]
        tail = ""
        if i + 1 < len(pieces) and isinstance(pieces[i + 1], str):
            tail = pieces[i + 1]  # type: ignore[assignment]
            i += 1
        pairs.append((fn, render, tail))
        i += 1
    if len(pairs) == 1:
        (f1, r1, t1), = pairs
        if not head and not t1:
            return lambda st, env: r1(f1(st, env))
        return lambda st, env: head + r1(f1(st, env)) + t1
    if len(pairs) == 2:
        (f1, r1, t1), (f2, r2, t2) = pairs
        return lambda st, env: head + r1(f1(st, env)) + t1 + r2(f2(st, env)) + t2
    frozen = tuple(pairs)
    if short:
        def joined(st: Any, env: dict) -> str:
            out = [head]
            for f, r, t in frozen:
                out.append(r(f(st, env)))
                out.append(t)
            return "".join(out)

        return joined
    # each value is a string of at most MAX_STR characters, but many of them are not
    most = MAX_STR + len(head) + sum(len(t) for _f, _r, t in frozen)

    def template(st: Any, env: dict) -> str:
        out = [head]
        for f, r, t in frozen:
            out.append(r(f(st, env)))
            out.append(t)
        return runtime.template_text(most, out)

    return template
