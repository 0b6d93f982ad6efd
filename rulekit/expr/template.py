"""Label templates: literal text with `{expr}` parts, compiled like expressions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.backends import pysource as py
from rulekit.expr import runtime
from rulekit.expr.budget import MAX_INT_BITS, MAX_STR
from rulekit.expr.check import Compiled, _guarded, compile_node, need_text, reads_of
from rulekit.expr.errors import ExprError
from rulekit.expr.parser import position, unquoted
from rulekit.expr.scope import Scope
from rulekit.expr.tree import Fn
from rulekit.expr.types import BOOL, INT, STR, ObjT, Type

#: the longest a whole number or a truth value is written
_SHORT = {INT: len(str(-(2 ** MAX_INT_BITS))), BOOL: len("false")}


def _split(text: str) -> list[str | tuple[str, int]]:
    """Literal strings and (expression text, offset) pairs, in order."""
    parts: list[str | tuple[str, int]] = []
    literal: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "{" and text.startswith("{{", i):
            literal.append("{")
            i += 2
        elif ch == "}" and text.startswith("}}", i):
            literal.append("}")
            i += 2
        elif ch == "}":
            line, column = position(text, i)
            raise ExprError("single '}' in a template", column=column, line=line,
                            hint="write '}}' for a literal brace")
        elif ch == "{":
            end = _closing_brace(text, i)
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append((text[i + 1 : end], i + 1))
            i = end + 1
        else:
            literal.append(ch)
            i += 1
    if literal:
        parts.append("".join(literal))
    return parts


def _closing_brace(text: str, start: int) -> int:
    """Offset of the '}' closing the '{' at `start`, skipping quoted strings."""
    for i, ch in unquoted(text, start + 1):
        if ch == "}":
            return i
    line, column = position(text, start)
    raise ExprError("'{' is never closed in this template", column=column, line=line,
                    hint="write '{{' for a literal brace")


def _relocate(err: ExprError, part: str, text: str, offset: int) -> ExprError:
    """Move an error's position from inside one `{...}` part to the whole template."""
    line_start = 0
    for _ in range(err.line - 1):
        nl = part.find("\n", line_start)
        if nl < 0:
            break
        line_start = nl + 1
    inner = min(line_start + err.column - 1, len(part))
    line, column = position(text, offset + inner)
    return ExprError(err.message, column=column, line=line, hint=err.hint)


def compile_template(text: str, scope: Scope) -> Compiled:
    """Compile a label template such as "{r.name} {w + dice[r.name]}" into a str function.

    "{{" and "}}" are literal braces. Values read like the language writes them: true/false
    for booleans, and 2 rather than 2.0.
    """

    def run() -> Compiled:
        if not isinstance(text, str):
            raise ExprError(f"expected template text, got {type(text).__name__}")
        pieces: list[str | tuple[Fn, Callable[[Any], str]]] = []
        srcs: list[str | tuple[str | None, Callable[[Any], str], Type]] = []
        consts: dict[str, Any] = {}
        free: set[str] = set()
        nodes = []
        tree: list[str | tuple[Any, Callable[[Any], str]]] = []  # literals, (node, render)
        constant = True
        for part in _split(text):
            if isinstance(part, str):
                _append_literal(pieces, part)
                _append_literal(srcs, part)
                _append_literal(tree, part)
                continue
            source, offset = part
            if not source.strip():
                line, column = position(text, offset - 1)
                raise ExprError("empty '{}' in a template", column=column, line=line,
                                hint="write '{{}}' for literal braces")
            try:
                node = compile_node(source, scope, consts)
                if node.err is not None:
                    raise node.err
                need_text(node.type, node.pos, "a template")
            except ExprError as err:
                raise _relocate(err, source, text, offset) from None
            # runtime.render differs from str only for truth values and numbers
            render = (str if node.type is STR or node.type is INT or isinstance(node.type, ObjT)
                      else runtime.render)
            if node.const:
                _append_literal(pieces, render(node.value))
                _append_literal(srcs, render(node.value))
                _append_literal(tree, render(node.value))
            else:
                tree.append((node, render))
                constant = False
                pieces.append((node.fn, render))
                srcs.append((node.src, render, node.type))
                free |= node.free
                nodes.append(node)
        # values that are all numbers or truth values, too few to pass MAX_STR together:
        # joined without the length check of many parts (and the work it charges)
        short = sum(_SHORT.get(n.type, MAX_STR + 1) for n in nodes) <= MAX_STR
        with py.collecting(consts):
            src = _source(srcs, short)
        fn = _assemble(pieces, short)
        if src is not None and not constant:
            names = sorted(free)
            fn = py.function(src, consts, [scope.pynames[n] for n in names], names) or fn
        plain = src is not None and (short or len(nodes) <= 2)  # as `_source` writes it
        return Compiled(fn, STR, text, constant, src, consts, reads_of(nodes),
                        _joined(pieces, nodes), tuple(srcs) if plain else None,
                        node=("template", tuple(tree)))

    return _guarded(run)


def _source(parts: list, short: bool) -> str | None:
    """The template as Python source: literals and rendered values joined, checked for
    length as `_assemble`'s closure does when it has many parts that are not `short`."""
    out = []
    literal = 0
    for part in parts:
        if isinstance(part, str):
            out.append(py.const(part))
            literal += len(part)
        else:
            src, render, type_ = part
            if src is None:
                return None
            out.append(src if type_ is STR else py.call(render, src))
    if not out:
        return py.const("")
    if short or sum(1 for p in parts if not isinstance(p, str)) <= 2:
        return "(" + " + ".join(out) + ")"  # type: ignore[arg-type]
    return py.call(runtime.template_text, py.const(MAX_STR + literal),
                   "(" + ", ".join(out) + ",)")  # type: ignore[arg-type]


def _joined(pieces: list, nodes: list) -> tuple[str, str, str, str] | None:
    """(PREFIX, SEP, SUFFIX, xs) when the template is PREFIX{join(SEP, xs)}SUFFIX, xs a
    local list of whole numbers: then the label is a function of the numbers alone."""
    if len(nodes) != 1 or nodes[0].joined is None:
        return None
    sep, xs = nodes[0].joined
    if xs.local is None or xs.src is None:
        return None
    prefix = pieces[0] if isinstance(pieces[0], str) else ""
    suffix = pieces[-1] if isinstance(pieces[-1], str) else ""
    return prefix, sep, suffix, xs.src


def _append_literal(pieces: list, s: str) -> None:
    if pieces and isinstance(pieces[-1], str):
        pieces[-1] += s
    else:
        pieces.append(s)


def _assemble(pieces: list[str | tuple[Fn, Callable[[Any], str]]], short: bool) -> Fn:
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
