"""The checked flow as generated Python: the fast path of the hot parts of a game.

Option generators run for every candidate of every decision of every game, so each is
written out as one Python function when the game loads: `for` clauses become Python
loops, `let`s and loop variables Python locals, conditions and labels inline
expressions; an env dict is built only for the options that are kept. The source comes
from the checked expressions' `src` (see rulekit.expr.pysource): names are the
compiler's own, and every value from the file is a constant, so a game file cannot change
the shape of the code. Where an expression has no source form, the engine keeps the
closure path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.expr import Compiled, pysource
from rulekit.expr.budget import MAX_OPTIONS, BudgetExceeded, charged
from rulekit.expr.scope import Scope

#: False: every part runs on the closure path (the differential tests compare both)
ENABLED = True


def too_many_options() -> BudgetExceeded:
    return BudgetExceeded(f"more than {MAX_OPTIONS} options in one decision; do its `for` "
                          "clauses run over far more than the rules need?")


def option_generator(outer: Scope, inner: Scope, iterate: Callable | None,
                     lets: list[tuple[str, Compiled]], cond: Compiled | None, label: Compiled,
                     steps: Any, action: type, where: str) -> tuple[Callable, str] | None:
    """The generator of one option as a compiled function and its source, or None when
    a part has no source form.

    `outer` is the option's scope before its `for` clauses, `inner` after its `let`s; the
    function takes `(st, base, seat, out, seen)` like the closure generator it replaces.
    """
    if not ENABLED:
        return None
    clauses = getattr(iterate, "srcs", ()) if iterate is not None else ()
    parts = [c for _n, c in lets] + ([cond] if cond is not None else []) + [label]
    if any(c.src is None for c in parts) or any(src is None for _n, _p, src in clauses):
        return None
    consts: dict[str, Any] = {}
    for c in parts:
        consts.update(c.consts or {})
    if iterate is not None:
        consts.update(iterate.consts)
    with pysource.collecting(consts):
        k_charged = pysource.const(charged)
        k_action = pysource.const(action)
        k_steps = pysource.const(steps)
        k_too_many = pysource.const(too_many_options)
        k_max = pysource.const(MAX_OPTIONS)
        k_len = pysource.const(len)
        lines = ["def generate(st, base, seat, out, seen):"]
        for name, pyname in outer.pynames.items():
            lines.append(f"    {pyname} = base[{pysource.const(name)}]")
        depth = 1
        bound: list[tuple[str, str]] = []
        for name, pyname, src in clauses:
            lines.append("    " * depth + f"for {pyname} in {k_charged}({src}):")
            depth += 1
            bound.append((name, pyname))
        pad = "    " * depth
        for name, c in lets:
            pyname = inner.pynames[name]
            lines.append(f"{pad}{pyname} = {c.src}")
            bound.append((name, pyname))
        if cond is not None:
            lines.append(f"{pad}if {cond.src}:")
            depth += 1
            pad = "    " * depth
        lines += [
            f"{pad}label = {label.src}",
            f"{pad}if label not in seen:",
            f"{pad}    if {k_len}(out) >= {k_max}:",
            f"{pad}        raise {k_too_many}()",
            f"{pad}    seen.add(label)",
            f"{pad}    e = base.copy()",
        ]
        for name, pyname in bound:
            lines.append(f"{pad}    e[{pysource.const(name)}] = {pyname}")
        lines.append(f"{pad}    out.append({k_action}(label, seat, {k_steps}, e))")
    source = "\n".join(lines) + "\n"
    return pysource.compile_function(source, consts, "generate"), f"# {where}\n{source}"

