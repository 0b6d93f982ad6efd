"""Parsing expression text into a lark tree, with every failure turned into an ExprError.

The grammar is loaded once, at import, and parsed with LALR(1): expressions are parsed
only when a game file is loaded, but a game file may hold many of them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from rulekit.expr.errors import ExprError

MAX_LENGTH = 2000
MAX_DEPTH = 50

@functools.cache
def _parser() -> Lark:
    """The LALR parser, built once, on the first expression: commands that read no game
    file (`rulekit --help`, `rulekit schema`) never pay for it.

    Lark keeps its analysis of the grammar in a file beside the grammar (rebuilt when the
    grammar changes; skipped where the package is read-only), which makes the first
    parse of a process about three times faster.
    """
    here = Path(__file__)
    return Lark(
        here.with_name("grammar.lark").read_text(encoding="utf-8"),
        parser="lalr",
        lexer="basic",  # keywords are always keywords, never names
        start=["start", "bindings"],
        propagate_positions=True,
        maybe_placeholders=False,
        cache=str(here.with_name("grammar.lark.cache")),
    )

# Tree kinds that only group things and do not add a level of nesting a reader would see.
_WRAPPERS = frozenset({"comp", "comp_for", "comp_if", "comp_op", "bindings", "binding"})

# How terminals are named in messages.
_TERMINAL_TEXT = {
    "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['", "COMMA": "','", "DOT": "'.'",
    "NAME": "a name", "INT": "a number", "FLOAT": "a number", "STRING": "a string",
    "IF": "'if'", "ELSE": "'else'", "OR": "'or'", "AND": "'and'", "NOT": "'not'", "IN": "'in'",
    "FOR": "'for'",
}
_CLOSERS = {"RPAR": "')'", "RSQB": "']'"}
_OPENERS = {"RPAR": "'('", "RSQB": "'['"}
# Terminals that can start an expression: when one of these is expected and something
# else comes, the reader left an operand out.
_STARTERS = frozenset({
    "NAME", "INT", "FLOAT", "STRING", "LPAR", "LSQB", "MINUS", "PLUS", "NOT", "TRUE", "TRUE_PY",
    "FALSE", "FALSE_PY", "NONE", "NONE_PY",
})
# Text that, when it is the last thing before an error, is waiting for an operand.
_OPERATORS = (
    "**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "<", ">", "(", "[", ",",
)
_KEYWORD_OPERATORS = ("not", "and", "or", "in", "if", "else")


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a 0-based character offset in `text`."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def _error_at(text: str, offset: int, message: str, hint: str | None = None) -> ExprError:
    line, column = position(text, offset)
    return ExprError(message, column=column, line=line, hint=hint)


def unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """The characters of `text` from `start` that stand outside string literals."""
    quote = ""
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        else:
            yield i, ch
        i += 1


def _check_brackets(text: str) -> None:
    """Reject bracket nesting deeper than MAX_DEPTH before the parser sees it."""
    depth = 0
    for i, ch in unquoted(text):
        if ch in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise _error_at(text, i, f"expression is nested too deeply (more than "
                                         f"{MAX_DEPTH} levels)")
        elif ch in ")]}":
            depth -= 1


def _check_depth(tree: Tree) -> None:
    """Reject trees nested deeper than MAX_DEPTH; walks with an explicit stack, no recursion."""
    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data not in _WRAPPERS:
            depth += 1
            if depth > MAX_DEPTH:
                meta = node.meta
                line = getattr(meta, "line", 1) or 1
                column = getattr(meta, "column", 1) or 1
                raise ExprError(
                    f"expression is nested too deeply (more than {MAX_DEPTH} levels)",
                    column=column, line=line,
                )
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth))


def _previous_operator(text: str, offset: int) -> str | None:
    """The operator or keyword right before `offset`, if the text there ends with one."""
    before = text[:offset].rstrip()
    for op in _OPERATORS:
        if before.endswith(op):
            return op
    for word in _KEYWORD_OPERATORS:
        if before.endswith(word):
            head = before[: -len(word)]
            if not head or not (head[-1].isalnum() or head[-1] == "_"):
                return word
    return None


def _is_open(text: str, opener: str) -> bool:
    """Whether `text` leaves an `opener` bracket unclosed at its end (strings skipped)."""
    stack: list[str] = []
    for _i, ch in unquoted(text):
        if ch in "([":
            stack.append(ch)
        elif ch in ")]" and stack:
            stack.pop()
    return bool(stack) and stack[-1] == opener


def _describe_expected(expected: set[str]) -> str | None:
    names = sorted({_TERMINAL_TEXT.get(t, "") for t in expected} - {""})
    if not names or len(names) > 4:
        return None
    return "expected " + " or ".join(names)


def _syntax_error(text: str, err: UnexpectedInput) -> ExprError:
    """Turn lark's exception into a message a game designer can act on."""
    if isinstance(err, UnexpectedCharacters):
        offset = err.pos_in_stream
        ch = text[offset] if offset < len(text) else ""
        if ch in "'\"":
            return _error_at(text, offset, "unterminated string",
                             hint=f"close the string with {ch}")
        if ch == "_":
            return _error_at(text, offset, "a name cannot start with '_'",
                             hint="names start with a letter; '_' is reserved for the engine")
        hint = None
        if ch == "=":
            hint = "use '==' to compare"
        elif ch == "&":
            hint = "use 'and'"
        elif ch == "|":
            hint = "use 'or'"
        elif ch == "!":
            hint = "use 'not'"
        return _error_at(text, offset, f"unexpected character {ch!r}", hint=hint)
    if isinstance(err, UnexpectedToken):
        token = err.token
        expected = set(err.expected or ())
        if token.type == "$END":
            offset = len(text.rstrip())
            op = _previous_operator(text, offset)
            if op is not None and expected & _STARTERS:
                return _error_at(text, offset, f"expected an expression after '{op}'")
            closers = [_CLOSERS[t] for t in sorted(expected) if t in _CLOSERS]
            hint = f"missing {' or '.join(closers)}" if closers else _describe_expected(expected)
            return _error_at(text, offset, "expression ends too early", hint=hint)
        offset = token.start_pos if token.start_pos is not None else 0
        op = _previous_operator(text, offset)
        if op is not None and expected & _STARTERS and token.type not in _STARTERS:
            return _error_at(text, offset, f"expected an expression after '{op}'")
        hint = _describe_expected(expected - {"$END"})
        before = text[:offset].rstrip()
        if token.type in _OPENERS and not _is_open(text[:offset], _OPENERS[token.type][1]):
            hint = f"nothing opens it with {_OPENERS[token.type]}"
        elif token.value == "is":
            hint = "use '==' or '!=' to compare"
        elif token.type in _STARTERS and "PLUS" in expected and op is None and before:
            hint = "is an operator or ',' missing before it?"
        return _error_at(text, offset, f"unexpected {token.value!r}", hint=hint)
    offset = getattr(err, "pos_in_stream", None) or 0
    return _error_at(text, offset, "this expression cannot be read")


def parse(text: str, start: str = "start") -> Tree | Token:
    """Parse `text`; the result is a lark tree (or a lone token for trivial inputs)."""
    if not isinstance(text, str):
        raise ExprError(f"expected expression text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExprError(
            f"expression is too long ({len(text)} characters; the limit is {MAX_LENGTH})",
            column=1,
        )
    if not text.strip():
        raise ExprError("empty expression")
    _check_brackets(text)
    try:
        tree = _parser().parse(text, start=start)
    except UnexpectedInput as err:
        raise _syntax_error(text, err) from None
    except LarkError as err:  # anything else lark may raise: still a clean error
        raise ExprError(f"this expression cannot be read: {err}") from None
    if isinstance(tree, Tree):
        _check_depth(tree)
    return tree
