"""Python source for checked expressions: the generated-code backend's vocabulary.

The compiler gives every node it can a `src`: the node's value as a Python expression
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
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rulekit.expr import budget
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
