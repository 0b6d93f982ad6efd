"""Warnings about a valid game file: parts that do nothing, which are most often a
mistake (a misspelt name, a leftover). `rulekit validate` prints them and still exits 0,
unless `--strict`. They read the merged document only, never the compiled game."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from rulekit.errors import Diagnostic, capped, cut
from rulekit.spec.source import Path_, Source

_NAME = re.compile(r"[A-Za-z_]\w*")
#: the names a `for:` binds: `w in [...], row in player.sheet.rows`
_BOUND = re.compile(r"(?:^|,)\s*([A-Za-z_]\w*)\s+in\b")
_PART = re.compile(r"\{([^{}]*)\}")


def warnings_of(src: Source) -> list[Diagnostic]:
    """Params nothing reads, vars nothing sets, procedures nothing runs, options whose
    label leaves out a name that tells them apart; each located at the part concerned."""
    data = src.data if isinstance(src.data, dict) else {}
    out = (_unread_params(src, data) + _unset_vars(src, data) + _unrun_procedures(src, data)
           + _merged_options(src, data))
    for d in out:
        d.severity = "warning"
    return capped(sorted(out, key=lambda d: (d.line, d.col)))


def _strings(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, str]]:
    if isinstance(node, str):
        yield path, node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _strings(v, path + (i,))


def _nodes(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, dict]]:
    """Every mapping in the document, with its path."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _nodes(v, path + (i,))


def _unread_params(src: Source, data: dict) -> list[Diagnostic]:
    params = data.get("params")
    if not isinstance(params, dict):
        return []
    text = "\n".join(s for path, s in _strings(data) if path[:1] != ("params",))
    read = set(re.findall(r"\bparams\s*\.\s*([A-Za-z_]\w*)", text))
    return [src.diag(("params", name), f"param '{cut(str(name))}' is never read",
                     "no expression reads params." + cut(str(name)) + ": a --set or a variant "
                     "that changes it changes nothing; use it or remove it", key=True)
            for name in params if str(name) not in read]


def _unset_vars(src: Source, data: dict) -> list[Diagnostic]:
    decls = data.get("vars")
    if not isinstance(decls, dict):
        return []
    written = set()
    for _path, node in _nodes(data):
        for key in ("set", "add"):
            targets = node.get(key)
            if isinstance(targets, dict):
                written |= {str(t).rsplit(".", 1)[-1].strip() for t in targets}
    return [src.diag(("vars", name), f"var '{cut(str(name))}' is never set",
                     "no `set:` or `add:` step changes it, so it keeps its `init:` value: "
                     "set it somewhere, or make it a param or a `define:`", key=True)
            for name in decls if str(name) not in written]


def _unrun_procedures(src: Source, data: dict) -> list[Diagnostic]:
    flow = data.get("flow")
    procedures = flow.get("procedures") if isinstance(flow, dict) else None
    if not isinstance(procedures, dict):
        return []
    runs = {str(node["run"]) for _path, node in _nodes(data) if isinstance(node.get("run"), str)}
    return [src.diag(("flow", "procedures", name), f"procedure '{cut(str(name))}' is never run",
                     "no `run:` step names it, so its steps never happen: `run:` it where "
                     "it belongs, or remove it", key=True)
            for name in procedures if str(name) not in runs]


def _merged_options(src: Source, data: dict) -> list[Diagnostic]:
    """An option generator whose `for:` binds a name that neither the label nor a `let:`
    it uses mentions: options that differ only in that name get one label, and only the
    first one generated is offered."""
    out = []
    for path, node in _nodes(data):
        if not {"for", "label"} <= set(node) or not isinstance(node["for"], str):
            continue
        label = node["label"] if isinstance(node["label"], str) else ""
        used = {n for part in _PART.findall(label) for n in _NAME.findall(part)}
        lets = node.get("let") if isinstance(node.get("let"), dict) else {}
        for name, expr in lets.items():
            if str(name) in used and isinstance(expr, str):
                used |= set(_NAME.findall(expr))
        for name in _BOUND.findall(node["for"]):
            if name not in used:
                out.append(src.diag(path + ("label",), f"options that differ only in "
                                    f"'{cut(name)}' get the same label; only the first of "
                                    "them is offered",
                                    f"put {{{cut(name)}}} (or what it decides) in the label, if "
                                    "they should be separate choices"))
    return out
