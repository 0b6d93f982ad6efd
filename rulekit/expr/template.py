"""Label templates: literal text with `{expr}` parts, compiled like expressions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulekit.backends import closures as cl
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
            src = py.template_src(srcs, short)
        fn = cl.template_fn(pieces, short)
        if src is not None and not constant:
            names = sorted(free)
            fn = py.function(src, consts, [scope.pynames[n] for n in names], names) or fn
        plain = src is not None and (short or len(nodes) <= 2)  # as template_src writes it
        return Compiled(fn, STR, text, constant, src, consts, reads_of(nodes),
                        _joined(pieces, nodes), tuple(srcs) if plain else None,
                        node=("template", tuple(tree)))

    return _guarded(run)


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


