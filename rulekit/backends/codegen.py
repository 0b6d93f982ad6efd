"""The checked flow as generated Python: the fast path of the hot parts of a game.

Option generators run for every candidate of every decision of every game, so each is
written out as one Python function when the game loads: `for` clauses become Python
loops, `let`s and loop variables Python locals, conditions and labels inline
expressions; an env dict is built only for the options that are kept. Steps that only
have effects, and triggers, become one function each in the same way, so that an action's
effects run without a call per step or per expression; so do the checks after a step (the
triggers and the end conditions, by the parts each reads), and, for random play (see
flowgen), the effects of the option played as one function of its values. The source comes
from the checked expressions' `src` (see rulekit.backends.pysource): names are the
compiler's own, and every value from the file is a constant, so a game file cannot change
the shape of the code. Where an expression has no source form, the engine keeps the
closure path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rulekit.backends import pysource
from rulekit.engine.labels import JOIN_PARTS, LabelForm, distinct_keys, label_of
from rulekit.engine.state import RUNTIME_ERRORS, _failed, end_condition
from rulekit.engine.steps import (
    MAX_TRIGGER_FIRINGS,
    Action,
    Effects,
    KeyedAction,
    _no_effects,
    log_too_long,
)
from rulekit.expr import Compiled, budget
from rulekit.expr.budget import MAX_INT, MAX_LOG_CHARS, MAX_OPTIONS, BudgetExceeded
from rulekit.expr.scope import Scope

#: False: every part runs on the closure path (the differential tests compare both)
ENABLED = True


def too_many_options() -> BudgetExceeded:
    return BudgetExceeded(f"more than {MAX_OPTIONS} options in one decision; do its `for` "
                          "clauses run over far more than the rules need?")


def option_generator(outer: Scope, inner: Scope, iterate: Callable | None,
                     lets: list[tuple[str, Compiled]], cond: Compiled | None, label: Compiled,
                     steps: Any, where: str,
                     keyed: tuple[tuple[str, str, str], str, int] | None = None,
                     by_parts: LabelForm | None = None) -> tuple[Callable, Callable, str] | None:
    """The generators of one option as compiled functions, and their source; None when
    a part has no source form.

    `outer` is the option's scope before its `for` clauses, `inner` after its `let`s; the
    functions take `(st, base, seat, out, seen)` like the closure generator they replace.
    The first appends Actions, the second, for random play, records `(label, make,
    values)` (see steps.Decision): it makes no env and no Action for the options not
    played. With `keyed` (see labels.keyed_label; the option is its decision's only one),
    options are merged by the numbers of their labels and made KeyedActions, which write
    their labels when read. With `by_parts` (see labels.label_forms: every option of the
    decision has one), records are merged by the keys of their labels' parts, and only the
    label of the one played is written.
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
        k_action = pysource.const(Action)
        k_steps = pysource.const(steps)
        k_too_many = pysource.const(too_many_options)
        k_max = pysource.const(MAX_OPTIONS)
        k_len = pysource.const(len)
        lines = ["def generate(st, base, seat, out, seen):"]
        for name, pyname in outer.pynames.items():
            lines.append(f"    {pyname} = base[{pysource.const(name)}]")
        depth = 1
        bound: list[tuple[str, str]] = []
        guards = getattr(iterate, "guards", ()) if iterate is not None else ()
        for i, (name, pyname, src) in enumerate(clauses):
            guard = guards[i] if i < len(guards) else None
            if guard is not None:  # a loop over `xs if c else []`: no loop when not c
                lines.append("    " * depth + f"if {guard[0]}:")
                depth += 1
                src = guard[1]
            lines += pysource.charged_loop("    " * depth, pyname, src, f"items{i + 1}")
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
        head = lines[1:]  # the loops, lets and condition both functions share
        # a keyed label of the list that a single loop runs over, which has no repeats and
        # only numbers short enough to write any time (see Method): no two options share
        # a label, none has the pass label, and the list itself is a record's key
        unique = False
        if keyed is not None and len(clauses) == 1 and keyed[1] == clauses[0][1]:
            distinct, numbers = iterate.promises[0]
            unique = (distinct and numbers is not None and numbers[0] <= JOIN_PARTS
                      and numbers[1] <= keyed[2])
        if by_parts is not None:  # keys of values no other record shares: no lookup
            unique = distinct_keys(by_parts, [pyname for _n, pyname, _s in clauses],
                                   getattr(iterate, "promises", ()))
        if keyed is None:
            lines.append(f"{pad}label = {label.src}")
            rec_label = (lines[-1:] if by_parts is None
                         else [f"{pad}label = {by_parts.key_src()}"])
            make = f"{k_action}(label, seat, {k_steps}, e)"
        else:
            form, xs, digits = keyed
            written = label_of(form)  # one function, one store of labels, for both makers
            k_tuple = pysource.const(tuple)
            if unique:
                lines.append(f"{pad}label = {k_tuple}({xs})")
                rec_label = [f"{pad}label = {xs}"]
            else:
                k_list, k_parts = pysource.const(list), pysource.const(JOIN_PARTS)
                k_hi = pysource.const(10**digits)
                lines += [
                    # the numbers themselves stand for the label where they give it one
                    # to one
                    f"{pad}label = ({k_tuple}({xs}) if {xs}.__class__ is {k_list} and "
                    f"{k_len}({xs}) <= {k_parts} else None)",
                    # no number of more digits (the sum of sizes bounds each; min and max
                    # cost more than this)
                    f"{pad}if label is None or {pysource.const(sum)}({pysource.const(map)}("
                    f"{pysource.const(abs)}, label)) >= {k_hi}:",
                    f"{pad}    label = {label.src}",
                ]
                rec_label = lines[-3:]
            make = (f"({pysource.const(KeyedAction)}({pysource.const(written)}, label, seat, "
                    f"{k_steps}, e) if label.__class__ is {k_tuple} else "
                    f"{k_action}(label, seat, {k_steps}, e))")
        if unique:
            keep = [f"{pad}if {k_len}(out) >= {k_max}:",
                    f"{pad}    raise {k_too_many}()"]
            inner_pad = pad
        else:
            keep = [f"{pad}if label not in seen:",
                    f"{pad}    if {k_len}(out) >= {k_max}:",
                    f"{pad}        raise {k_too_many}()",
                    f"{pad}    seen.add(label)"]
            inner_pad = pad + "    "
        lines += keep
        lines.append(f"{inner_pad}e = base.copy()")
        for name, pyname in bound:
            lines.append(f"{inner_pad}e[{pysource.const(name)}] = {pyname}")
        lines.append(f"{inner_pad}out.append({make})")
        # the same options as records: the values bound, and a maker of the Action
        make_fn, make_source = _record_maker(tuple(name for name, _p in bound), steps,
                                             written if keyed is not None else None, by_parts)
        played = effects_function(tuple(name for name, _p in bound), steps, where)
        make_fn.run = played[0] if played is not None else None if steps else _no_effects
        if played is not None:
            make_source += (f"\n{pysource.comment(where)}: the effects of the option played\n"
                            f"{played[1]}")
        k_make = pysource.const(make_fn)
        values = (bound[0][1] if len(bound) == 1
                  else "(" + "".join(f"{pyname}, " for _n, pyname in bound) + ")")
        records = (["def records(st, base, seat, out, seen):"] + head + rec_label + keep
                   + [f"{inner_pad}out.append((label, {k_make}, {values}))"])
    source = "\n".join(lines) + "\n"
    record_source = "\n".join(records) + "\n"
    records_fn = pysource.compile_function(record_source, consts, "records")
    # what the generated turns write in place of a call (see flowgen._Writer.paste)
    records_fn.inline = Inline(records[1:], consts)
    records_fn.make = make_fn
    return (pysource.compile_function(source, consts, "generate"), records_fn,
            f"{pysource.comment(where)}\n{source}\n{pysource.comment(where)}, for random play "
            f"(and `make` of a record)\n{record_source}\n{make_source}")


class Inline:
    """A generated function's body, for a caller that writes it in place of the call: its
    lines (indented one level; the parameters by their own names) and their constants."""

    __slots__ = ("lines", "consts")

    def __init__(self, lines: list[str], consts: dict[str, Any]) -> None:
        self.lines = lines
        self.consts = consts


def _record_maker(names: tuple[str, ...], steps: Any,
                  written: Callable[[tuple[int, ...]], str] | None,
                  parts: LabelForm | None = None
                  ) -> tuple[Callable[[Any, int, dict, Any], Action], str]:
    """The maker of an option's records `(key, make, values)`: the Action, with `values`
    (a tuple; for one name, the value itself) bound to `names` in a copy of the decision's
    env, as the option's generator makes it. With `written` (the label of a keyed label's
    numbers, see labels.label_of), a key of numbers makes a KeyedAction; with `parts`, the
    key is its parts' and the label is written from it. Generated too: it runs once per
    move played."""
    consts: dict[str, Any] = {}
    with pysource.collecting(consts):
        lines = ["def make(key, seat, base, values):", "    e = base.copy()"]
        if len(names) == 1:
            lines.append(f"    e[{pysource.const(names[0])}] = values")
        else:
            for i, name in enumerate(names):
                lines.append(f"    e[{pysource.const(name)}] = values[{i}]")
        k_steps = pysource.const(steps)
        if written is not None:
            # numbers (a tuple, or a list that is its loop's element) rather than a label
            lines.append(f"    if key.__class__ is not {pysource.const(str)}:")
            lines.append(f"        return {pysource.const(KeyedAction)}("
                         f"{pysource.const(written)}, {pysource.const(tuple)}(key), seat, "
                         f"{k_steps}, e)")
        label = None if parts is None else parts.label()
        text = "key" if label is None else f"{pysource.const(label)}(key)"
        lines.append(f"    return {pysource.const(Action)}({text}, seat, {k_steps}, e)")
    source = "\n".join(lines) + "\n"
    make = pysource.compile_function(source, consts, "make")
    make.label = written if written is not None else label
    make.form = parts  # the generated turns write the label of a key themselves
    return make, source


def effects_function(names: tuple[str, ...], steps: Any, where: str
                     ) -> tuple[Callable[[Any, int, dict, Any], None], str] | None:
    """An option's effects as one function `run(st, seat, base, values)`, for the generated
    turns (see flowgen), and its source; None when the option has steps that are not all
    effects, or a part without source form.

    What a record's Action would do when played (`State._effects`): the steps in order, the
    option's values and the decision's names as Python locals rather than an env, an error
    named after its step as "an action".
    """
    if not ENABLED or steps.__class__ is not Effects or not steps:
        return None
    consts: dict[str, Any] = {}
    out = _Block()
    with pysource.collecting(consts):
        for step in steps:
            out.add(1, "try:")
            if not _emit(out, step, 2, False, consts):
                return None
            out.add(1, f"except {pysource.const(RUNTIME_ERRORS)} as exc:")
            out.add(2, f"raise {pysource.const(_failed)}({pysource.const(step.where)}, "
                       f"{pysource.const('an action')}, exc) from exc")
        body = "\n".join(out.lines)
        used = set(_PYNAME.findall(body))
        head = ["def run(st, seat, base, values):"]
        for name, pyname in steps[0].scope.pynames.items():
            if pyname not in used:
                continue
            if name in names:
                value = "values" if len(names) == 1 else f"values[{names.index(name)}]"
            else:
                value = f"base[{pysource.const(name)}]"
            head.append(f"    {pyname} = {value}")
    source = "\n".join(head) + "\n" + body + "\n"
    run = pysource.compile_function(source, consts, "run")
    run.inline = Inline(head[1:] + out.lines, consts)
    return run, source



#: a token of generated source that names a local of the compiler's own (see Scope.pynames)
_PYNAME = re.compile(r"\bv\d+\b")
#: a local or a constant of generated code: reading it has no effect and cannot fail
_SIMPLE = re.compile(r"[kv]\d+")


class _Block:
    """The lines of one generated step function while they are written."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.temps = 0

    def temp(self, stem: str) -> str:
        self.temps += 1
        return f"{stem}{self.temps}"

    def add(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)


def _srcs(*parts: Compiled | None) -> bool:
    return all(c is not None and c.src is not None for c in parts)


def _emit(out: _Block, step: Any, depth: int, top: bool, consts: dict[str, Any]) -> bool:
    """Write `step` as lines at `depth`; False when a part of it has no source form.

    `top`: the step runs in the env it was given (not in a loop's), so a `let` also
    writes its names there for the steps after it that are not part of this function.
    """
    gen = step.gen
    if gen is None or not step.pure:
        return False
    kind = step.__class__.__name__
    if kind == "Effect":
        target, args = gen
        if not _srcs(target, *[a for a in args if a is not None]):
            return False
        # the method is the engine's own (a kind's effect), private ones included
        if not pysource.identifier(step.method.removeprefix("_")):
            return False
        for c in [target, *args]:
            if c is not None:
                consts.update(c.consts or {})
        view = out.temp("t")
        out.add(depth, f"{view} = {target.src}")
        names = []
        for a in args:
            if a is None or _SIMPLE.fullmatch(a.src):
                # a local or a constant: the same value after the version is counted up
                names.append(a.src if a is not None else "None")
                continue
            name = out.temp("a")
            out.add(depth, f"{name} = {a.src}")
            names.append(name)
        # a define read while the effect runs (an `on_lock:`) is read anew
        out.add(depth, "st._version += 1")
        out.add(depth, f"{view}.{step.method}({', '.join(names)})")
        out.add(depth, "st._version += 1")
        out.add(depth, f"st._dirty |= {pysource.const(step.writes)}")
        return True
    if kind == "SetVar":
        who, value = gen
        if not _srcs(value, *([who] if who is not None else [])):
            return False
        for c in (who, value):
            if c is not None:
                consts.update(c.consts or {})
        x, store = out.temp("x"), out.temp("s")
        name = pysource.const(step.name)
        out.add(depth, f"{x} = {value.src}")
        out.add(depth, f"{store} = st.gvars" if who is None else f"{store} = ({who.src}).vars")
        if step.add:
            out.add(depth, f"{x} = {store}[{name}] + {x}")
        constant = (value.consts or {}).get(value.src, 0)
        if step.add or constant.__class__ not in (bool, str):
            # what SetVar.check refuses: whole numbers past MAX_INT, floats that are not
            # finite (a constant truth value or text it lets pass)
            out.add(depth, f"if {x}.__class__ is not {pysource.const(int)} or not "
                           f"{pysource.const(-MAX_INT)} < {x} < {pysource.const(MAX_INT)}:")
            out.add(depth + 1, f"{pysource.const(step.check)}({x})")
        out.add(depth, f"{store}[{name}] = {x}")
        out.add(depth, "st._version += 1")
        out.add(depth, f"st._dirty |= {pysource.const(step.writes)}")
        return True
    if kind == "Say":
        text, to = gen
        if not _srcs(text, *([to] if to is not None else [])):
            return False
        for c in (text, to):
            if c is not None:
                consts.update(c.consts or {})
        x = out.temp("x")
        out.add(depth, f"{x} = {text.src}")
        out.add(depth, f"st._log_chars += {pysource.const(len)}({x})")
        out.add(depth, f"if st._log_chars > {pysource.const(MAX_LOG_CHARS)}:")
        out.add(depth + 1, f"raise {pysource.const(log_too_long)}()")
        if to is None:
            out.add(depth, f"st._log.append({{{pysource.const('say')}: {x}}})")
        else:
            out.add(depth, f"st._log.append({{{pysource.const('say')}: {x}, "
                           f"{pysource.const('to')}: ({to.src}).seat}})")
        return True
    if kind == "Let":
        if not _srcs(*[c for _n, c, _p in gen]):
            return False
        for name, c, pyname in gen:
            consts.update(c.consts or {})
            out.add(depth, f"{pyname} = {c.src}")
            if top:
                out.add(depth, f"env[{pysource.const(name)}] = {pyname}")
        return True
    if kind == "If":
        if not _srcs(gen):
            return False
        consts.update(gen.consts or {})
        out.add(depth, f"if {gen.src}:")
        if not _emit_all(out, step.then, depth + 1, top, consts):
            return False
        if step.other:
            out.add(depth, "else:")
            if not _emit_all(out, step.other, depth + 1, top, consts):
                return False
        return True
    if kind == "ForEach":
        clauses = getattr(gen, "srcs", ())
        if not clauses or any(src is None for _n, _p, src in clauses):
            return False
        consts.update(gen.consts)
        # every round counts against the step budget, as ForEach.run counts it
        left, n = out.temp("left"), out.temp("n")
        out.add(depth, f"{left} = st._steps_left")
        out.add(depth, f"{n} = 0")
        inner = depth
        for _name, pyname, src in clauses:
            out.lines += pysource.charged_loop("    " * inner, pyname, src, out.temp("items"))
            inner += 1
        out.add(inner, f"{n} += 1")
        out.add(inner, f"if {n} > {left}:")
        out.add(inner + 1, f"st._steps_left = {left} - {n}")
        out.add(inner + 1, f"raise st._endless({pysource.const(step)})")
        if not _emit_all(out, step.body, inner, False, consts):
            return False
        out.add(depth, f"st._steps_left -= {n}")
        return True
    return False


def _emit_all(out: _Block, steps: Any, depth: int, top: bool, consts: dict[str, Any]) -> bool:
    if not steps:
        out.add(depth, "pass")
        return True
    return all(_emit(out, s, depth, top, consts) for s in steps)


def step_function(step: Any, where: str) -> tuple[Callable, str] | None:
    """A step that only has effects as one compiled function `run(st, env)` and its source,
    or None when a part has no source form: its expressions inline, its loops Python loops,
    its names Python locals, without a call per step or per expression.

    The same work in the same order as the step's own `run` (the versions and change bits
    of the state, the step budget, the budget of `say` lines), so that it plays the same.
    """
    if not ENABLED:
        return None
    consts: dict[str, Any] = {}
    out = _Block()
    with pysource.collecting(consts):
        if not _emit(out, step, 1, True, consts):
            return None
        body = "\n".join(out.lines)
        # the names the step reads from the env it runs in, bound once on entry
        used = set(_PYNAME.findall(body))
        head = ["def run(st, env):"]
        for name, pyname in step.scope.pynames.items():
            if pyname in used:
                head.append(f"    {pyname} = env[{pysource.const(name)}]")
    source = "\n".join(head) + "\n" + body + "\n    return False\n"
    run = pysource.compile_function(source, consts, "run")
    run.inline = Inline(head[1:] + out.lines, consts)  # all but `return False`
    return run, f"{pysource.comment(where)}\n{source}"


def trigger_function(trigger: Any, iterate: Callable | None, cond: Compiled | None,
                     where: str) -> tuple[Callable, str] | None:
    """A trigger's check and steps as one compiled function `fire(st)` and its source, or
    None when a part has no source form; the work of `Trigger.fire`, in the same order."""
    if not ENABLED or cond is None or cond.src is None:
        return None
    clauses = getattr(iterate, "srcs", ()) if iterate is not None else ()
    if iterate is not None and (not clauses or any(src is None for _n, _p, src in clauses)):
        return None
    consts: dict[str, Any] = dict(cond.consts or {})
    if iterate is not None:
        consts.update(iterate.consts)
    out = _Block()
    with pysource.collecting(consts):
        depth = 1
        for _name, pyname, src in clauses:
            out.lines += pysource.charged_loop("    " * depth, pyname, src, out.temp("items"))
            depth += 1
        n = out.temp("n")
        out.add(depth, f"{n} = 0")
        out.add(depth, f"while {cond.src}:")
        out.add(depth + 1, f"{n} += 1")
        out.add(depth + 1, f"if {n} > {pysource.const(MAX_TRIGGER_FIRINGS)}:")
        out.add(depth + 2, f"raise {pysource.const(trigger.endless)}()")
        if not _emit_all(out, trigger.steps, depth + 1, False, consts):
            return None
    source = "def fire(st):\n" + "\n".join(out.lines) + "\n"
    return pysource.compile_function(source, consts, "fire"), f"{pysource.comment(where)}\n{source}"


def define_getter(c: Compiled, where: str) -> tuple[Callable[[Any], Any], str] | None:
    """A global define's getter `get(st)` (see build._define_global) with its expression
    written in, and its source: the same unit of work a value worked out, the same value per version
    of the state, without a call to the expression; None on the closure path."""
    if not ENABLED or c.src is None:  # a global scope has no locals: a name in the source
        return None                     # is a comprehension's own
    consts = dict(c.consts or {})
    with pysource.collecting(consts):
        local, key = pysource.const(budget.LOCAL), pysource.const(c.fn)
        source = "\n".join([
            "def get(st):",
            f"    hit = st._defs.get({key})",
            "    if hit is not None and hit[0] == st._version:",
            "        return hit[1]",
            f"    m = {local}.m",
            "    m.left -= 1",
            "    if m.left < 0:",
            f"        {pysource.const(budget.charge)}(0)",
            f"    value = {c.src}",
            f"    st._defs[{key}] = (st._version, value)",
            "    return value"]) + "\n"
    return pysource.compile_function(source, consts, "get"), f"{pysource.comment(where)}\n{source}"


def checks_function(triggers: list, conds: list, check_mask: int, finish: str
                    ) -> tuple[Callable[[Any], None], str] | None:
    """The checks after a step (`State._after_step`) as one function `after_step(st)` and
    its source: each trigger and end condition tested by its mask inline, the conditions'
    expressions inline where they have source form; the same work in the same order."""
    if not ENABLED:
        return None
    consts: dict[str, Any] = {}
    with pysource.collecting(consts):
        k = pysource.const
        lines = ["def after_step(st):",
                 "    changed = st._dirty | st._stale",
                 "    st._dirty = 0",
                 f"    if not changed & {k(check_mask)}:",
                 "        st._stale = 0",
                 "        return"]
        failing = f"except {k(RUNTIME_ERRORS)} as exc:"
        for trigger in triggers:
            lines += [f"    if {k(trigger.mask)} & (changed | st._dirty):",
                      "        try:",
                      f"            {k(trigger.fire)}(st)",
                      f"        {failing}",
                      f"            raise {k(_failed)}({k(trigger.where)}, {k('a trigger')}, "
                      "exc) from exc"]
        lines += ["    # what the triggers changed: the triggers before them see it at the next "
                  "check",
                  "    st._stale = stale = st._dirty",
                  "    st._dirty = 0"]
        if conds:
            lines += ["    if st._ending:", "        return", "    changed |= stale"]
        for reason, fn, mask, where, c in conds:
            if c is not None and c.src is not None and not _PYNAME.search(c.src):
                consts.update(c.consts or {})
                test = f"({c.src})"
            else:
                test = f"{k(fn)}(st, {k({})})"
            lines += [f"    if {k(mask)} & changed:",
                      "        try:",
                      f"            holds = {test}",
                      f"        {failing}",
                      f"            raise {k(_failed)}({k(where)}, {k(end_condition(reason))}, "
                      "exc) from exc",
                      "        if holds:",
                      f"            st.end_reason = {k(reason)}",
                      "            st.over = True" if finish == "now" else
                      "            st._ending = True",
                      "            return"]
    source = "\n".join(lines) + "\n"
    fn = pysource.compile_function(source, consts, "after_step")
    fn.mask = check_mask  # what any check reads: the generated turns test it inline
    return fn, f"# the checks\n{source}"
