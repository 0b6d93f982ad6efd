"""Reading YAML while remembering where every node stood, so any later check can point at it."""

from __future__ import annotations

import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from rulekit.errors import Diagnostic, GameFileError, cut

# Guards against careless or hostile files: an alias bomb expands a few lines into
# millions of nodes, deep nesting exhausts the stack, a huge file takes long to read.
MAX_NODES = 200_000
MAX_DEPTH = 60
MAX_INT_DIGITS = 30
MAX_CHARS = 1_000_000
# The characters of every scalar (keys included) as the document uses them, aliases
# expanded: a 100 KB text used 1000 times counts 100 MB. Aliases may repeat parts of a
# file but never make it larger than a file may be; the largest shipped game uses about
# 10 000. Whatever later quotes, copies or validates the document stays bounded by it.
MAX_EXPANDED_CHARS = MAX_CHARS

# libyaml's parser when it is installed: the same documents, read many times faster
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_NODE = (yaml.ScalarEvent, yaml.AliasEvent, *_OPEN)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)

Path_ = tuple  # a path inside the document: keys and list indexes
_STD = "tag:yaml.org,2002:"
_PLAIN_TAGS = (_STD + "map", _STD + "seq")


class _KeyMark:
    """Ends a path in `Source.positions` that locates a mapping's key rather than its value."""

    def __repr__(self) -> str:
        return "<key>"


KEY = _KeyMark()


@dataclass(frozen=True)
class Pos:
    """Where a node starts (file, 1-based line and column) and its scalar style (quotes)."""

    file: str
    line: int
    col: int
    style: str | None = None


class Source:
    """A document as plain data plus the position of every node in it."""

    def __init__(self, data: Any, positions: dict[Path_, Pos], file: str) -> None:
        self.data = data
        self.positions = positions
        self.file = file

    def pos(self, path: Path_) -> Pos:
        """The position of the node at path, or of its nearest ancestor that has one."""
        path = tuple(path)
        while path:
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), Pos(self.file, 1, 1))

    def key_pos(self, path: Path_) -> Pos:
        """The position of the key that names the node at path (or the node's own)."""
        return self.positions.get(tuple(path) + (KEY,)) or self.pos(path)

    def diag(self, path: Path_, message: str, hint: str | None = None,
             key: bool = False) -> Diagnostic:
        """A diagnostic at the node at path, or with `key` at the key that names it."""
        p = self.key_pos(path) if key else self.pos(path)
        return Diagnostic(p.file, p.line, p.col, message, format_path(path), hint)


def format_path(path: Path_) -> str:
    """`flow.turn[2].choose`; a long key shows its start only, as a message quotes it."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + cut(str(part))
    return out


class _Builder:
    def __init__(self, file: str) -> None:
        self.file = file
        self.positions: dict[Path_, Pos] = {}
        self.count = 0
        self.loader = yaml.SafeLoader("")

    def fail(self, node: yaml.Node, message: str, hint: str | None = None,
             path: Path_ = ()) -> GameFileError:
        m = node.start_mark
        return GameFileError([Diagnostic(self.file, m.line + 1, m.column + 1, message,
                                         format_path(path), hint)])

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(node, f"the document expands to more than {MAX_NODES} nodes",
                            "aliases (*name) that repeat large parts multiply the size", path)
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nesting deeper than {MAX_DEPTH} levels",
                            "aliases (*name) nested in each other deepen the document", path)
        m = node.start_mark
        if node.tag not in _PLAIN_TAGS and not isinstance(node, yaml.ScalarNode):
            # a tag on a list or mapping (!!python/..., !!set, !!omap) would be dropped
            raise self.fail(node, f"the YAML tag {cut(node.tag.replace(_STD, '!!'))} is not "
                            "supported", "write plain lists and mappings, without !tags", path)
        style = getattr(node, "style", None) or None  # libyaml gives '' for plain scalars
        self.positions[path] = Pos(self.file, m.line + 1, m.column + 1, style)
        if isinstance(node, yaml.MappingNode):
            out: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise self.fail(key_node, "merge keys (<<) are not supported",
                                    "use `extends:` to build on another file", path)
                key = self.scalar(key_node, path)
                if isinstance(key, (list, dict)) or not isinstance(key, (str, int, bool)):
                    raise self.fail(key_node, "a key must be a plain name or number",
                                    "write the key as a name such as `red` or a number", path)
                if key in out:
                    raise self.fail(key_node, f"duplicate key '{cut(str(key))}'",
                                    "a key appears once in a mapping: merge the two entries",
                                    path + (key,))
                kpath = path + (key,)
                km = key_node.start_mark
                self.positions[kpath + (KEY,)] = Pos(self.file, km.line + 1, km.column + 1)
                out[key] = self.build(value_node, kpath, depth + 1)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, path + (i,), depth + 1) for i, child in enumerate(node.value)]
        return self.scalar(node, path)

    def scalar(self, node: yaml.Node, path: Path_ = ()) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, "a key must be a plain name or number",
                            "write the key as a name such as `red` or a number", path)
        tag = node.tag
        if tag == "tag:yaml.org,2002:int":
            digits = node.value.lstrip("+-").replace("_", "")
            if len(digits) > MAX_INT_DIGITS:
                raise self.fail(node, f"number with more than {MAX_INT_DIGITS} digits",
                                "no rule needs numbers this large", path)
        try:
            value = self.loader.construct_object(node, deep=True)
        except (ValueError, TypeError, AttributeError, OverflowError):
            # an impossible date (2001-13-45) or a !!int tag on a word: the node, not Python
            kind = tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else "value"
            kind = {"timestamp": "date", "str": "text"}.get(kind, kind)
            raise self.fail(node, f"this is not a valid {kind}",
                            "quote it to mean text", path) from None
        if value.__class__ is float and not math.isfinite(value):
            raise self.fail(node, f"{cut(node.value)} is not a finite number",
                            "write a number such as 1.5 (quote it to mean text)", path)
        return value


def _yaml_hint(problem: str, text: str = "", mark: Any = None) -> str:
    """What usually causes a YAML syntax error of this kind, and how to mend it."""
    p = problem.lower()
    at = text[mark.index:mark.index + 1] if mark is not None and text else ""
    before = text[:mark.index].rstrip()[-1:] if mark is not None and text else ""
    if at == "\t" or "\\t" in p or "tab" in p:
        return "indent with spaces, not tabs"
    indent = _misindented(text, mark)
    if indent and ("expected" in p or "block" in p):
        return indent
    if before in ("'", '"') and ("expected" in p or "block end" in p):
        return ("a quoted text ends just before this place: is a quote not closed on an "
                "earlier line, or one too many here?")
    if "mapping values are not allowed" in p:
        return "quote a value that holds ': ' (label: \"a: b\"), or check the indentation"
    if "alias" in p:
        return "define an anchor (&name) before it is used as *name"
    if "quoted scalar" in p or "end of stream" in p:
        return "a quote is not closed"
    if "flow sequence" in p or "']'" in p:
        return "close the list with ']', and quote items that hold ',' or ': '"
    if "flow mapping" in p or "'}'" in p:
        return "close the mapping with '}', and quote values that hold ',' or ': '"
    if "expected ':'" in p or "simple key" in p:
        return "a key needs ': ' after it; check the indentation of this line"
    if "block" in p or "indentation" in p or "expected key" in p or "<block end>" in p:
        return "check the indentation: the keys of one mapping line up, one under the other"
    if "anchor" in p:
        return "an anchor is written &name, made of letters, digits, '-' and '_'"
    return "check the indentation and the quoting near this place"


def _misindented(text: str, mark: Any) -> str | None:
    """The hint for a line whose first word is where YAML stopped and whose indentation
    matches none of the lines before it: the usual slip of one space too many or few."""
    if mark is None or not text:
        return None
    lines = text.split("\n")
    if mark.line >= len(lines):
        return None
    line = lines[mark.line]
    here = len(line) - len(line.lstrip(" "))
    if line[:mark.column].strip() or mark.column != here:
        return None
    earlier = [len(x) - len(x.lstrip(" ")) for x in lines[:mark.line]
               if x.strip() and not x.lstrip().startswith("#")]
    if not earlier or here in earlier[-8:]:
        return None
    near = sorted({i for i in earlier[-8:] if abs(i - here) <= 2}) or [earlier[-1]]
    return (f"this line is indented {here} space{'' if here == 1 else 's'}, the lines above it "
            f"{', '.join(map(str, near))}: the keys of one mapping (and the items of one list) "
            "line up exactly, one under the other")


def _bad_character(text: str, file: str, exc: yaml.reader.ReaderError) -> GameFileError:
    """A control character in the text: located, named by its code, never quoted."""
    at = min(max(exc.position, 0), len(text))
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    code = exc.character if isinstance(exc.character, int) else 0
    return GameFileError([Diagnostic(
        file, line, col, f"the file holds the control character #x{code:04x}, which YAML "
        "does not allow", hint="a game file is plain text: remove the character")])


def _too_large(file: str) -> GameFileError:
    return GameFileError([Diagnostic(file, 1, 1, f"the file has more than {MAX_CHARS} characters",
                                     hint="a game file holds rules, not data")])


def _check_shape(text: str, file: str) -> None:
    """Refuse nesting and sizes that would exhaust the parser, before a node is built.

    Reads the event stream, which needs no recursion, and stops at the first node with more
    than MAX_DEPTH collections around it. The YAML library may give up on deep nesting before
    that (libyaml stops at 1000 levels while it looks ahead along a line of brackets): then
    that node is found in the text, so the message is rulekit's and points at the place
    where the nesting goes too deep.

    It also counts the document as it will be used: every alias adds the characters and the
    nodes of what its anchor names, so a long text anchored once and aliased many times is
    refused at the alias that makes it too large, before anything is expanded.
    """
    count = 0
    flows: list[bool] = []  # the open collections, innermost last: written in brackets?
    sizes = _Sizes()
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            count += 1
            if isinstance(event, _NODE):
                if len(flows) > MAX_DEPTH:
                    m = event.start_mark
                    bracket = flows[-1] or bool(getattr(event, "flow_style", False))
                    raise _too_deep(file, m.line + 1, m.column + 1, bracket)
                if isinstance(event, _OPEN):
                    flows.append(bool(event.flow_style))
                sizes.node(event, file)
            elif isinstance(event, _CLOSE):
                flows.pop()
                sizes.close()
            if count > 2 * MAX_NODES:
                m = event.start_mark
                raise GameFileError([Diagnostic(
                    file, m.line + 1, m.column + 1,
                    f"the document has more than {MAX_NODES} nodes",
                    hint="a game file holds rules, not data")])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        found = _first_too_deep(text, MAX_DEPTH)
        if found is not None:
            line, col, bracket = found
            if mark is None or (line, col) <= (mark.line + 1, mark.column + 1):
                raise _too_deep(file, line, col, bracket) from None
        if mark is not None and "nesting" in str(getattr(exc, "problem", "")):
            # the library's own limit where the scan above could not follow the text
            raise _too_deep(file, mark.line + 1, mark.column + 1, True) from None
        raise


class _Sizes:
    """The size of a document as used, aliases expanded, counted from its events.

    Each open collection adds up the characters and nodes inside it; when it closes, an
    anchor on it keeps that size, and every alias of the anchor adds it again. The work
    is one step an event, however large the expansion.
    """

    def __init__(self) -> None:
        self.chars = 0
        self.nodes = 0
        # per open collection, the document at the bottom: [chars, nodes, anchor, its line]
        self.open: list[list[Any]] = [[0, 0, None, 0]]
        self.anchors: dict[str, tuple[int, int, int]] = {}  # chars, nodes, line

    def node(self, event: yaml.Event, file: str) -> None:
        if isinstance(event, yaml.AliasEvent):
            chars, nodes, line = self.anchors.get(event.anchor, (0, 1, 0))
            self.add(chars, nodes)
            if self.chars > MAX_EXPANDED_CHARS or self.nodes > MAX_NODES:
                raise self._too_large(event, file, chars, nodes, line)
        elif isinstance(event, yaml.ScalarEvent):
            self.add(len(event.value), 1)
            if event.anchor is not None:
                self.anchors[event.anchor] = (len(event.value), 1, event.start_mark.line + 1)
        else:
            self.open.append([0, 1, event.anchor, event.start_mark.line + 1])

    def add(self, chars: int, nodes: int) -> None:
        self.chars += chars
        self.nodes += nodes
        self.open[-1][0] += chars
        self.open[-1][1] += nodes

    def close(self) -> None:
        chars, nodes, anchor, line = self.open.pop()
        self.open[-1][0] += chars
        self.open[-1][1] += nodes
        self.nodes += 1
        if anchor is not None:
            self.anchors[anchor] = (chars, nodes, line)

    def _too_large(self, event: yaml.Event, file: str, chars: int, nodes: int,
                   line: int) -> GameFileError:
        m = event.start_mark
        name = cut(str(event.anchor), 40)
        if self.chars > MAX_EXPANDED_CHARS:
            message = (f"the document expands to more than {MAX_EXPANDED_CHARS} characters "
                       "with its aliases")
            what = f"{chars} characters"
        else:
            message = f"the document expands to more than {MAX_NODES} nodes"
            what = f"{nodes} nodes"
        return GameFileError([Diagnostic(
            file, m.line + 1, m.column + 1, message,
            hint=f"the alias *{name} repeats the {what} anchored as &{name} on line {line}, "
                 "and aliases (*name) count each time they are used: repeat short parts, "
                 "or fewer times")])


def _too_deep(file: str, line: int, col: int, bracket: bool) -> GameFileError:
    hint = ("a game file needs a few levels; is a bracket never closed?" if bracket else
            "a game file needs a few levels of indentation; is this line indented too far?")
    return GameFileError([Diagnostic(file, line, col, f"nesting deeper than {MAX_DEPTH} levels",
                                     hint=hint)])


_BREAKS = "\r\n\x85\u2028\u2029"
_BLANKS = " \t" + _BREAKS
_BLANK_SET = frozenset(_BLANKS)
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
# the rest of a plain scalar's word: in block context up to a blank or ': ', in flow context
# also up to , [ ] { } (unrolled loops: they cannot backtrack badly)
_B = r" \t\r\n\x85\u2028\u2029"
_BLOCK_WORD = re.compile(rf"[^{_B}:]*(?::(?![{_B}]|\Z)[^{_B}:]*)*")
_FLOW_WORD = re.compile(rf"[^{_B}:,\[\]{{}}]*(?::(?![{_B},?\[\]{{}}]|\Z)[^{_B}:,\[\]{{}}]*)*")
_DOUBLE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NAME = re.compile(r"[0-9A-Za-z_-]*")
_BLANK_RUN = re.compile(r"[ \t]*")
_SPACES = re.compile(r" *")
_TO_EOL = re.compile(r"[^\r\n\x85\u2028\u2029]*")
_BLOCK_HEADER = re.compile(r"[|>](?:[+-]([1-9])?|([1-9])[+-]?)?[ \t]*"
                           r"(?:#[^\r\n\x85\u2028\u2029]*)?")


def _first_too_deep(text: str, limit: int) -> tuple[int, int, bool] | None:
    """Where the first node stands that has more than `limit` collections around it.

    A linear scan that follows the YAML scanner's reading of the text (quoted, plain and
    block scalars, comments, indentation, `key:` and `- ` in both contexts) without building
    anything. Where it cannot be sure that the parser opens a collection it counts none, so
    it never finds a document deeper than the parser does. Returns the line and column
    (1-based) of the node (a bracket, key, `-` or value) and whether it stands in brackets,
    or None, also when the text stops making sense to it (an unclosed quote, a character
    that starts nothing): the parser reports those.
    """
    n = len(text)
    i = line_start = 1 if text.startswith("\ufeff") else 0
    # open block collections: their column, whether a mapping, whether a sequence of `- `
    # entries stands at the mapping's own column (an indentless sequence: one level more)
    indents: list[int] = []
    is_map: list[bool] = []
    loose: list[bool] = []
    # open flow collections: [is a sequence, possible key of its current entry, whether that
    # entry is a `key: value` pair (an implicit mapping: one level more)]
    flows: list[list] = []
    extra = 0  # open indentless sequences and pairs
    key: tuple[int, int, int] | None = None  # possible block key: index, line start, column
    allow_key = True  # the YAML scanner's `allow_simple_key`
    after_value = False  # just after a block `:` (and properties): an indentless `- ` may come

    def where(j: int, start: int, bracket: bool) -> tuple[int, int, bool]:
        return len(_LINE_BREAK.findall(text, 0, start)) + 1, j - start + 1, bracket

    def line_end(j: int) -> int:
        return _TO_EOL.match(text, j).end()

    def after_break(j: int) -> int:  # j at a line break: the index after it
        return j + 2 if text.startswith("\r\n", j) else j + 1

    def last_line_start(a: int, b: int) -> int:  # the line start after a span [a, b)
        return max(line_start, *(text.rfind(c, a, b) + 1 for c in _BREAKS))

    def blank_at(j: int) -> bool:
        return j >= n or text[j] in _BLANK_SET

    def marker_at(j: int) -> bool:  # a document marker at a line start
        return text.startswith(("---", "..."), j) and blank_at(j + 3)

    def push(col: int, mapping: bool) -> None:
        indents.append(col)
        is_map.append(mapping)
        loose.append(False)

    while True:
        # to the next token: blanks, comments and line breaks
        while i < n:
            c = text[i]
            if c == " " or c == "\t":
                i += 1
            elif c == "#":
                i = line_end(i)
            elif c in _BREAKS:
                i = line_start = after_break(i)
                if not flows:
                    allow_key = True
            else:
                break
        if i >= n:
            return None
        col = i - line_start
        c = text[i]
        if key is not None and (key[1] != line_start or i - key[0] > 1024):
            key = None
        entry = c == "-" and blank_at(i + 1)
        if not flows:
            while indents and indents[-1] > col:
                indents.pop()
                is_map.pop()
                extra -= loose.pop()
            if indents and indents[-1] == col and loose[-1] and not entry:
                loose[-1] = False
                extra -= 1
            if col == 0 and (c == "%" or marker_at(i)):
                indents.clear()
                is_map.clear()
                loose.clear()
                extra = 0
                key, allow_key, after_value = None, False, False
                i = line_end(i) if c == "%" else i + 3
                continue
        level = len(indents) + len(flows) + extra
        if c in "[{":
            if level > limit:
                return where(i, line_start, True)
            if allow_key:
                if flows:
                    flows[-1][1] = (i, line_start)
                else:
                    key = (i, line_start, col)
            flows.append([c == "[", None, False])
            allow_key, after_value = True, False
            i += 1
            continue
        if c in "]}" or c == ",":
            if flows:
                if flows[-1][2]:
                    flows[-1][2] = False
                    extra -= 1
                flows[-1][1] = None
                if c != ",":
                    flows.pop()
            allow_key, after_value = c == ",", False
            i += 1
            continue
        if flows and c in "?:":
            top = flows[-1]
            pair = top[1] if c == ":" else (i, line_start)
            if pair is not None and (pair[1] != line_start or i - pair[0] > 1024):
                pair = None  # a key holds on one line, as in the parser
            if top[0] and not top[2] and pair is not None:
                if level > limit:
                    return where(pair[0], pair[1], True)
                top[2] = True
                extra += 1
                if c == ":" and level + 1 > limit:  # the key, already read, is in the pair
                    return where(pair[0], pair[1], True)
            top[1] = None
            allow_key = False
            i += 1
            continue
        if entry or (c in "?:" and blank_at(i + 1)):
            if flows:  # a `- ` in brackets: the parser reports it
                i += 1
                continue
            if c == ":" and key is not None:  # `key:` opens a mapping where the key stands
                at, start, col = key
                if not indents or indents[-1] < col:
                    push(col, True)
                if len(indents) + extra > limit:  # the key is too deep, or its mapping
                    return where(at, start, False)
                allow_key, after_value = False, True
            else:
                if entry and indents and indents[-1] == col and is_map[-1] and after_value:
                    if not loose[-1]:  # `key:` and below it `- ` at the same column
                        if level > limit:
                            return where(i, line_start, False)
                        loose[-1] = True
                        extra += 1
                elif not indents or indents[-1] < col:
                    if level > limit:
                        return where(i, line_start, False)
                    push(col, not entry)
                allow_key, after_value = True, c == ":"
            key = None
            i += 1
            continue
        if c in "%@`" or (flows and c in "|>"):  # cannot start a token: the parser says so
            return None
        if level > limit:  # a scalar, an alias, or the anchor or tag of a node
            return where(i, line_start, bool(flows))
        if allow_key and c not in "|>":
            if flows:
                flows[-1][1] = (i, line_start)
            else:
                key = (i, line_start, col)
        allow_key = False
        if c in "&!":  # properties of the node that follows
            if c == "&":
                i = _NAME.match(text, i + 1).end()
            else:  # a tag runs to a blank (in brackets also to , ] or })
                j = i + 1
                while j < n and text[j] not in _BLANK_SET and not (flows and text[j] in ",]}"):
                    j += 1
                i = j
            continue
        after_value = False
        if c == "*":  # an alias
            i = _NAME.match(text, i + 1).end()
        elif c == "'":
            j = i + 1
            while True:
                j = text.find("'", j)
                if j < 0:
                    return None
                if text.startswith("''", j):
                    j += 2
                    continue
                break
            line_start = last_line_start(i, j)
            i = j + 1
        elif c == '"':
            m = _DOUBLE.match(text, i)
            if m is None:
                return None
            line_start = last_line_start(i, m.end())
            i = m.end()
        elif c in "|>":
            m = _BLOCK_HEADER.match(text, i)
            j = m.end()
            if j < n and text[j] not in _BREAKS:
                return None
            key, allow_key = None, True
            min_indent = max((indents[-1] if indents else -1) + 1, 1)
            step = m.group(1) or m.group(2)
            j = after_break(j) if j < n else j
            if step:
                indent = min_indent + int(step) - 1
            else:  # the widest run of spaces up to the first line with text sets the indent
                widest, k = 0, j
                while True:
                    e = _SPACES.match(text, k).end()
                    widest = max(widest, e - k)
                    if e < n and text[e] in _BREAKS:
                        k = after_break(e)
                        continue
                    break
                indent = max(min_indent, widest)
            # the content: blank lines and lines indented by at least `indent`
            while j < n:
                e = _SPACES.match(text, j).end()
                if e < n and text[e] in _BREAKS:
                    j = after_break(e)
                elif e >= n:
                    j = n
                elif e - j >= indent:
                    j = line_end(e)
                    j = after_break(j) if j < n else j
                else:
                    break
            i = line_start = j
        else:  # a plain scalar: words, and in block context more indented lines
            words = _FLOW_WORD if flows else _BLOCK_WORD
            if words.match(text, i).end() == i:  # cannot happen after the checks above
                return None
            least = (indents[-1] if indents else -1) + 1
            while True:
                e = words.match(text, i).end()
                if e == i:
                    break
                i = e
                e = _BLANK_RUN.match(text, i).end()
                if e < n and text[e] not in _BREAKS:
                    if e == i or text[e] == "#":
                        break
                    i = e
                    continue
                # a line break: the scalar goes on where the next line with text is
                # indented enough and is neither a comment nor a document marker
                k = e
                while k < n and text[k] in _BREAKS:
                    start = after_break(k)
                    k = _BLANK_RUN.match(text, start).end()
                    if marker_at(start):
                        break
                if k >= n or marker_at(start) or text[k] == "#" or (
                        not flows and k - start < least):
                    break
                i, line_start = k, start


def parse_text(text: str, file: str, empty_ok: bool = False) -> Source:
    """Parse YAML text into a Source; syntax problems become located diagnostics.

    The guards (size, nesting, nodes, digits, finite numbers) hold for any YAML rulekit
    reads, game files and `--set` values alike; `empty_ok` reads an empty text as null.
    """
    if len(text) > MAX_CHARS:
        raise _too_large(file)
    try:
        _check_shape(text, file)
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = cut(exc.problem or str(exc), 200)  # it may name an alias of any length
        if exc.context:
            message = f"{cut(exc.context, 200)}, {message}"
        raise GameFileError([Diagnostic(file, line, col, f"YAML syntax: {message}",
                                        hint=_yaml_hint(message, text, mark))]) from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        raise _bad_character(text, file, exc) from None
    except yaml.YAMLError as exc:
        raise GameFileError([Diagnostic(file, 1, 1, f"YAML: {cut(str(exc), 300)}",
                                        hint=_yaml_hint(str(exc)))]) from None
    except RecursionError:
        raise GameFileError([Diagnostic(file, 1, 1, "the document is nested too deeply",
                                        hint="a game file needs a few levels")]) from None
    if node is None:
        if empty_ok:
            return Source(None, {(): Pos(file, 1, 1)}, file)
        raise GameFileError([Diagnostic(file, 1, 1, "the file is empty",
                                        hint="a game file starts with `name:` and `players:`")])
    builder = _Builder(file)
    try:
        data = builder.build(node, (), 0)
    except yaml.MarkedYAMLError as exc:  # a tag or value that has no constructor
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise GameFileError([Diagnostic(file, line, col,
                                        f"YAML: {cut(exc.problem or exc.context or '', 200)}",
                                        hint="write plain values: names, numbers, true, false, "
                                             "lists and mappings, without !tags")]) from None
    except yaml.YAMLError as exc:
        raise GameFileError([Diagnostic(file, 1, 1, f"YAML: {cut(str(exc), 300)}",
                                        hint=_yaml_hint(str(exc)))]) from None
    return Source(data, builder.positions, file)


class UnreadableFile(Exception):
    """A file refused before or while reading: `reason` says why ("it is a pipe")."""

    def __init__(self, reason: str, too_large: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.too_large = too_large


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def read_limited(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file, refusing one of more than `limit` bytes.

    `stat` says nothing reliable about size (/proc files report 0, a pipe has none), so
    at most `limit + 1` bytes are read whatever it says. Devices, pipes, sockets and
    folders are refused before they are opened; the opened file is checked again, so a
    file swapped in between is refused too. Raises UnreadableFile, or OSError.
    """
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise _not_regular(os.stat(path).st_mode)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(mode)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise UnreadableFile(f"it has more than {limit} bytes", too_large=True)
    return b"".join(chunks)


def _not_regular(mode: int) -> UnreadableFile:
    kind = ("a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "special")
    return UnreadableFile(f"it is {kind}, not a regular file")


def read_file(path: str | Path) -> Source:
    """Read and parse a game file, bounded in bytes; every failure is a located diagnostic."""
    name = str(path)
    try:
        data = read_limited(path, 4 * MAX_CHARS)  # utf-8 is at most 4 bytes a character
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise GameFileError([Diagnostic(name, 0, 0, "no such file",
                                        hint="check the path and its spelling")]) from None
    except UnreadableFile as exc:
        if exc.too_large:
            raise _too_large(name) from None
        raise GameFileError([Diagnostic(name, 0, 0, f"cannot read the file: {exc.reason}",
                                        hint="name a game file (a .yaml text file)")]) from None
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise GameFileError([Diagnostic(name, line, 1, "cannot read the file: it is not UTF-8 "
                                        "text", hint="save the file as UTF-8 text")]) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        why = getattr(exc, "strerror", None) or str(exc)
        raise GameFileError([Diagnostic(name, 0, 0, f"cannot read the file: {why}",
                                        hint="is it a readable file (not a folder)?")]) from None
    if len(text) > MAX_CHARS:
        raise _too_large(name)
    return parse_text(text.replace("\r\n", "\n").replace("\r", "\n"), name)
