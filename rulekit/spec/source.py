"""Reading YAML while remembering where every node stood, so any later check can point at it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from rulekit.errors import Diagnostic, GameFileError

# Guards against careless or hostile files: an alias bomb expands a few lines into
# millions of nodes, deep nesting exhausts the stack.
MAX_NODES = 200_000
MAX_DEPTH = 60
MAX_INT_DIGITS = 30

Path_ = tuple  # a path inside the document: keys and list indexes


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

    def diag(self, path: Path_, message: str, hint: str | None = None) -> Diagnostic:
        p = self.pos(path)
        return Diagnostic(p.file, p.line, p.col, message, format_path(path), hint)


def format_path(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


class _Builder:
    def __init__(self, file: str) -> None:
        self.file = file
        self.positions: dict[Path_, Pos] = {}
        self.count = 0
        self.loader = yaml.SafeLoader("")

    def fail(self, node: yaml.Node, message: str, hint: str | None = None) -> GameFileError:
        m = node.start_mark
        return GameFileError([Diagnostic(self.file, m.line + 1, m.column + 1, message, hint=hint)])

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(node, f"the document expands to more than {MAX_NODES} nodes",
                            "aliases (*name) that repeat large parts multiply the size")
        if depth > MAX_DEPTH:
            raise self.fail(node, f"nesting deeper than {MAX_DEPTH} levels")
        m = node.start_mark
        style = getattr(node, "style", None)
        self.positions[path] = Pos(self.file, m.line + 1, m.column + 1, style)
        if isinstance(node, yaml.MappingNode):
            out: dict = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise self.fail(key_node, "merge keys (<<) are not supported",
                                    "use `extends:` to build on another file")
                key = self.scalar(key_node)
                if isinstance(key, (list, dict)) or not isinstance(key, (str, int, bool)):
                    raise self.fail(key_node, "a key must be a plain name or number")
                if key in out:
                    raise self.fail(key_node, f"duplicate key '{key}'")
                kpath = path + (key,)
                out[key] = self.build(value_node, kpath, depth + 1)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(child, path + (i,), depth + 1) for i, child in enumerate(node.value)]
        return self.scalar(node)

    def scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, "a key must be a plain name or number")
        tag = node.tag
        if tag == "tag:yaml.org,2002:int":
            digits = node.value.lstrip("+-").replace("_", "")
            if len(digits) > MAX_INT_DIGITS:
                raise self.fail(node, f"number with more than {MAX_INT_DIGITS} digits")
        return self.loader.construct_object(node, deep=True)


def parse_text(text: str, file: str) -> Source:
    """Parse YAML text into a Source; syntax problems become located diagnostics."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = exc.problem or str(exc)
        if exc.context:
            message = f"{exc.context}, {message}"
        raise GameFileError([Diagnostic(file, line, col, f"YAML syntax: {message}")]) from None
    except yaml.YAMLError as exc:
        raise GameFileError([Diagnostic(file, 1, 1, f"YAML: {exc}")]) from None
    except RecursionError:
        raise GameFileError([Diagnostic(file, 1, 1, "the document is nested too deeply")]) from None
    if node is None:
        raise GameFileError([Diagnostic(file, 1, 1, "the file is empty")])
    builder = _Builder(file)
    try:
        data = builder.build(node, (), 0)
    except yaml.YAMLError as exc:
        raise GameFileError([Diagnostic(file, 1, 1, f"YAML: {exc}")]) from None
    return Source(data, builder.positions, file)


def read_file(path: str | Path) -> Source:
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GameFileError([Diagnostic(name, 1, 1, "no such file")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GameFileError([Diagnostic(name, 1, 1, f"cannot read the file: {exc}")]) from None
    return parse_text(text, name)
