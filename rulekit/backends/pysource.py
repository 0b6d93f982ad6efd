"""Python source for checked expressions: the generated-code backend's vocabulary.

The checker gives every node it can a `src`: the node's value as a Python expression
over `st` (the state), the Python names of locals (`v12`, from the scope) and constants
(`k34`). Nothing from a game file is ever written into the source as text: literals,
params, functions and getters enter as constants, bound when the generated code is
compiled; attribute and method names enter only after the type checker found them in an
engine type and `identifier` accepted them. So a game file can change the values the
generated code computes with, never its shape.
"""

from __future__ import annotations

import itertools
import keyword
import math
import re
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rulekit.backends import closures
from rulekit.expr import budget, runtime
from rulekit.expr.budget import MAX_STR, charged
from rulekit.expr.scope import Global
from rulekit.expr.tree import Gen, Node
from rulekit.expr.types import INT, STR, ListT
from rulekit.text import printable

_NAMES = (f"k{i}" for i in itertools.count())
_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*")

#: constants of the compile in progress: name -> value (None: no source is collected)
_consts: dict[str, Any] | None = None


@contextmanager
def collecting(consts: dict[str, Any]) -> Iterator[None]:
    """Collect the constants that the sources built in this block refer to."""
    global _consts
    outer = _consts
    _consts = consts
    try:
        yield
    finally:
        _consts = outer


def const(value: Any) -> str | None:
    """The name under which `value` reaches generated code (None outside `collecting`)."""
    if _consts is None:
        return None
    name = next(_NAMES)
    _consts[name] = value
    return name


def identifier(name: str) -> bool:
    """Whether an attribute or method name, vouched for by a type, may stand in source."""
    return _IDENT.fullmatch(name) is not None and not keyword.iskeyword(name)


def call(func: Any, *args: str | None) -> str | None:
    """`func(args...)` with `func` as a constant; None when an argument has no source."""
    if any(a is None for a in args):
        return None
    f = const(func)
    if f is None:
        return None
    return f"{f}({', '.join(args)})"  # type: ignore[arg-type]


def comment(text: str) -> str:
    """`# text` as one line of Python: control and format characters (a newline in a file's
    name) written as escapes, so that no part of a game's file can show as a line of
    generated code in `rulekit compile`."""
    return "# " + printable(text)


#: False: expressions keep their closures (the differential tests compare both paths)
FUNCTIONS = True


def function(src: str, consts: dict[str, Any], pynames: list[str], names: list[str]) -> Any:
    """An expression's source as a function `f(st, env)`: its locals read once from env."""
    if not FUNCTIONS:
        return None
    with collecting(consts):
        keys = [const(n) for n in names]
    lines = ["def f(st, env):"]
    lines += [f"    {p} = env[{k}]" for p, k in zip(pynames, keys)]
    lines.append(f"    return {src}")
    return compile_function("\n".join(lines) + "\n", consts, "f")


#: where the sources of helper functions go while a game is built (`rulekit compile`)
_helpers: list[str] | None = None


@contextmanager
def gathering(sources: list[str]) -> Iterator[None]:
    """Add the source of every helper function made in this block to `sources`."""
    global _helpers
    outer = _helpers
    _helpers = sources
    try:
        yield
    finally:
        _helpers = outer


def local_function(lines: list[str], name: str, what: str) -> Any:
    """A helper function of the source being built (defined by `lines`, over the
    constants collected so far; `what` it is, for `rulekit compile`); None outside
    `collecting`, and while expressions keep their closures."""
    if _consts is None or not FUNCTIONS:
        return None
    source = "\n".join(lines) + "\n"
    if _helpers is not None:
        _helpers.append(f"{comment(what)}\n{source}")
    return compile_function(source, dict(_consts), name)


def compile_function(source: str, consts: dict[str, Any], name: str) -> Any:
    """Compile generated `source`, which defines `name`, with `consts` as its only globals."""
    namespace: dict[str, Any] = {"__builtins__": {}}
    namespace.update(consts)
    exec(compile(source, f"<rulekit: {name}>", "exec"), namespace)  # noqa: S102
    return namespace[name]


def charged_loop(pad: str, pyname: str, src: str, items: str) -> list[str]:
    """`for pyname in charged(src):` with the charge written out, as lines at `pad`: the
    length of the list (`items`) taken off the meter's slot without a call (see
    budget.Meter; the running thread's meter, read once), the error of `charge` when the
    meter runs out."""
    m = f"{items}_m"
    return [f"{pad}{m} = {const(budget.LOCAL)}.m",
            f"{pad}{items} = {src}",
            f"{pad}{m}.left -= {const(len)}({items})",
            f"{pad}if {m}.left < 0:",
            f"{pad}    {const(budget.charge)}(0)",
            f"{pad}for {pyname} in {items}:"]


# -- the source of checked nodes --------------------------------------------------------
# The checker (rulekit.expr.check) calls these as it checks, for the nodes whose source
# is more than a line of its own.


#: the builtins an attribute's inline source (ObjT.inline) may name
_INLINE_BUILTINS = {"len": len, "list": list, "min": min, "sum": sum}


def inline_src(template: str, obj: str) -> str | None:
    """An attribute read as its building block's source for it (see ObjT.inline)."""
    names = {name: const(f) for name, f in _INLINE_BUILTINS.items() if "{" + name in template}
    if None in names.values():
        return None
    return template.format(f"({obj})", **names)


def clauses_src(loops: list[tuple[str, str, list[str]]] | None) -> str | None:
    """`for v1 in charged(xs) if c ...` of a comprehension's loops (see `loops_src`)."""
    if loops is None:
        return None
    charged_items = [call(charged, items) for _pv, items, _conds in loops]
    if None in charged_items:
        return None
    return " ".join(f"for {pv} in {items}" + "".join(f" if {c}" for c in conds)
                    for (pv, _i, conds), items in zip(loops, charged_items))


def loops_src(levels: list[tuple[str, Node, list[Node]]], pynames: list[str]
              ) -> list[tuple[str, str, list[str]]] | None:
    """A comprehension's clauses as source: one (local, the list it runs over, which is
    charged by its length, [conditions]) per `for` clause."""
    out = []
    for (_name, it, conds), pv in zip(levels, pynames):
        items = it.iter_src or it.src
        if items is None or any(c.src is None for c in conds):
            return None
        out.append((pv, items, [c.src for c in conds]))  # type: ignore[misc]
    return out


_PYNAME = re.compile(r"\bv\d+\b")
_BOUND = re.compile(r"\bfor (v\d+) in\b")


def scan_loop(name: str, gen: Gen) -> str | None:
    """any(), all(), a count or a sum of whole numbers over a generator as a call of a
    function of its own, whose loops are Python loops: the same elements read, charged and
    tested, in the same order (any and all to the first element that decides), without a
    generator resumed per element. A sum of numbers that may be fractions stays the
    builtin's: Python may add floats in another order than a loop does."""
    if gen.loops is None or gen.body_src is None:
        return None
    text = " ".join([gen.body_src] + [i + " " + " ".join(cs) for _p, i, cs in gen.loops])
    bound = set(_BOUND.findall(text)) | {pv for pv, _i, _c in gen.loops}
    free = sorted(set(_PYNAME.findall(text)) - bound, key=lambda v: int(v[1:]))
    lines = [f"def scan(st{''.join(', ' + v for v in free)}):"]
    adding = name not in ("any", "all")
    if adding:
        lines.append("    total = 0")
    pad = "    "
    for i, (pv, items, conds) in enumerate(gen.loops):
        lines += charged_loop(pad, pv, items, f"items{i + 1}")
        pad += "    "
        for c in conds:
            lines.append(f"{pad}if {c}:")
            pad += "    "
    if adding:
        lines += [f"{pad}total += {'1' if name in ('count', 'len') else gen.body_src}",
                  "    return total"]
    else:
        found = name == "any"  # what the first element that decides returns
        lines += [f"{pad}if {'' if found else 'not '}{gen.body_src}:",
                  f"{pad}    return {found}",
                  f"    return {not found}"]
    what = "a count" if name in ("count", "len") else f"{name}()"
    scan = local_function(lines, "scan", f"{what} over a generator, as a loop")
    return None if scan is None else call(scan, "st", *free)


def builtin_only(body_f: Callable[[Any], Any] | None, keep: Any) -> bool:
    """Whether map() and filter() would call only functions written in C (attrgetter, an
    operator): then they beat a generator in generated code; a Python function (a lambda
    made for a comparison) would be one call per element where a generator inlines it."""
    return not any(isinstance(f, types.FunctionType) for f in (body_f, keep))


def fast_src(items: str | None, body: Node, body_f: Callable[[Any], Any] | None,
             keep: Any) -> str | None:
    """The source of `closures.fast_single`'s lazy pipeline: map() and filter() over the
    charged items with the same C-level functions as constants, no Python-level loop."""
    if items is None or body.const:
        return None
    seq = call(charged, items)
    if keep is not closures.NO_FILTER:
        seq = call(filter, const(keep), seq)
    if body_f is not None:
        seq = call(map, const(body_f), seq)
    return seq


def global_src(glob: Global) -> str | None:
    """A global name: its own source, a game variable's store read inline, or its getter
    called on the state."""
    if glob.src is not None:
        return glob.src
    if glob.var is not None:  # a game variable: the store read inline
        key = const(glob.var)
        return None if key is None else f"st.gvars[{key}]"
    return call(glob.get, "st")


def attr_src(base: Node, name: str, store: str | None, inline: str | None) -> str | None:
    """`base.name`: read from the object's `store` by key (ObjT.stored), as the building
    block's own source (ObjT.inline), or as an attribute whose name `identifier` accepts."""
    if base.src is not None and store is not None:
        key = const(name)
        return None if key is None else f"{base.src}.{store}[{key}]"
    if base.src is not None and inline is not None:
        return inline_src(inline, base.src)
    if base.src is not None and identifier(name):
        return f"{base.src}.{name}"
    return None


def list_src(items: list[Node], depth: int) -> str | None:
    """`[a, b, ...]`; when `depth` (a list of lists), refused at run time when what it holds
    is too much (runtime.sized)."""
    if not all(it.src is not None for it in items):
        return None
    src = "[" + ", ".join(it.src for it in items) + "]"  # type: ignore[misc]
    if depth:
        src = call(runtime.sized, src, const(depth))  # type: ignore[assignment]
    return src


def index_src(base: Node, key: Node) -> str | None:
    if base.src is None or key.src is None:
        return None
    return f"{base.src}[{key.src}]"


def method_src(base: Node, name: str, args: list[Node]) -> str | None:
    """`base.name(args...)`, for a method name that `identifier` accepts."""
    if (base.src is not None and identifier(name)
            and all(a.src is not None for a in args)):
        return f"{base.src}.{name}({', '.join(a.src for a in args)})"  # type: ignore[misc]
    return None


def range_iter_src(args: list[Node]) -> str | None:
    """range() where it is only looped over: the range object, no list built."""
    return call(runtime.range_iter, *[a.src for a in args])


def comprehension_src(gen: Gen, levels: list[tuple[str, Node, list[Node]]],
                      pynames: list[str], body: Node, fast: str | None,
                      depth: int) -> str | None:
    """Give a comprehension's `gen` its source parts (clauses, body, `fast`: its map/filter
    pipeline, see `fast_src`), and return its value, the list, as source; lists of lists
    (`depth`) are refused at run time when what they hold is too much."""
    gen.loops = loops_src(levels, pynames)
    gen.clauses = clauses_src(gen.loops)
    gen.body_src = body.src
    gen.lazy_src = fast
    src = None
    if fast is not None:
        src = call(list, fast)
    elif gen.clauses is not None and body.src is not None:
        src = f"[{body.src} {gen.clauses}]"
    if depth and src is not None:
        src = call(runtime.sized, src, const(depth))
    return src


def cond_src(a: Node, c: Node, b: Node) -> str | None:
    """`a if c else b`."""
    if a.src is not None and b.src is not None and c.src is not None:
        return f"({a.src} if {c.src} else {b.src})"
    return None


def guard_src(c: Node, xs: Node, negated: bool) -> tuple[str, str]:
    """`xs if c else []` (`[] if c else xs`: `negated`) as (the test that gives xs, xs), the
    sources a loop over it is written with (see Node.guard)."""
    return (f"(not {c.src})" if negated else c.src,  # type: ignore[return-value]
            xs.iter_src or xs.src)


def boolop_src(nodes: list[Node], is_and: bool) -> str | None:
    """`a and b and ...` or `a or b or ...`."""
    if not all(n.src is not None for n in nodes):
        return None
    return "(" + (" and " if is_and else " or ").join(
        n.src for n in nodes) + ")"  # type: ignore[misc]


def not_src(a: Node) -> str | None:
    return None if a.src is None else f"(not {a.src})"


def neg_src(a: Node) -> str | None:
    return None if a.src is None else f"(-{a.src})"


def compare_src(operands: list[Node], ops: list[str]) -> str | None:
    """A chain of comparisons `a < b <= c ...` as Python's own chain (`in` has none here:
    see `binary_src`)."""
    if not all(o.src is not None for o in operands) or any(
            op in ("in", "not in") for op in ops):
        return None
    parts = [operands[0].src]
    for op, o in zip(ops, operands[1:]):
        parts += [op, o.src]
    return "(" + " ".join(parts) + ")"  # type: ignore[arg-type]


def binary_src(op: str, left: Node, right: Node) -> str | None:
    """`left op right`: Python's operator, or the runtime's function for it."""
    if left.src is None or right.src is None:
        return None
    func = _SRC_FUNCTION.get(op)
    return (call(func, left.src, right.src) if func is not None
            else f"({left.src} {op} {right.src})")


#: operators whose source is a call of the runtime's function (exact or budget-keeping)
_SRC_FUNCTION: dict[str, Callable[[Any, Any], Any]] = {
    "*": runtime.mul, "/": runtime.div, "**": runtime.power,
}


#: built-ins that read all of one list (or generator) argument, and their functions
_SCANS: dict[str, Callable[[Any], Any]] = {
    "sum": sum, "min": min, "max": max, "any": any, "all": all, "sorted": sorted,
    "reversed": runtime.reversed_list,
}
_PLAIN: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "abs": abs, "floor": math.floor, "ceil": math.ceil, "len": len,
    "range": runtime.range_list, "str": runtime.render,
}


def builtin_src(name: str, args: list[Node], gen: Gen | None) -> str | None:
    """A built-in call as source: a generator argument is consumed lazily, and a list
    argument that is read whole is charged by its length, as the closures do."""
    srcs = [a.src for a in args]
    if gen is not None:
        if gen.clauses is None or gen.body_src is None:
            return None
        if name == "first":
            return call(next, gen.gen_src, const(None))
        looped = name in ("any", "all", "count", "len") or (
            name == "sum" and args[0].type == ListT(INT))
        scan = scan_loop(name, gen) if looped and not gen.lazy_src else None
        if scan is not None:
            return scan
        if name in ("count", "len"):
            return call(sum, f"(1 {gen.clauses})")
        if name in _SCANS and len(args) == 1:
            return call(_SCANS[name], gen.gen_src)
        return None
    if name in _SCANS and len(args) == 1:
        return call(_SCANS[name], call(charged, srcs[0]))
    if name == "count":
        return call(runtime.length, *srcs)
    if name == "first":
        return call(runtime.first, *srcs)
    if name == "join":
        return call(closures.joiner(args[1]), *srcs)
    if name in _PLAIN:
        return call(_PLAIN[name], *srcs)
    return None


def template_src(parts: list, short: bool) -> str | None:
    """A label template as Python source: literals and rendered values joined, checked for
    length as `closures.template_fn`'s closure does when it has many parts that are not
    `short`."""
    out = []
    literal = 0
    for part in parts:
        if isinstance(part, str):
            out.append(const(part))
            literal += len(part)
        else:
            src, render, type_ = part
            if src is None:
                return None
            out.append(src if type_ is STR else call(render, src))
    if not out:
        return const("")
    if short or sum(1 for p in parts if not isinstance(p, str)) <= 2:
        return "(" + " + ".join(out) + ")"  # type: ignore[arg-type]
    return call(runtime.template_text, const(MAX_STR + literal),
                "(" + ", ".join(out) + ",)")  # type: ignore[arg-type]
