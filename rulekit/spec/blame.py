"""A problem found in a value that a param supplies is reported at the param, when the
param's value comes from another file (a variant that changed it): the designer who
wrote `row_lengths: {default: [2, 2, 2]}` in a variant reads the message at that line,
not at a line of the base file they never touched."""

from __future__ import annotations

import re
from typing import Any

from rulekit.errors import Diagnostic, cut
from rulekit.spec.source import Path_, Source, format_path

_PARAM = re.compile(r"\s*params\s*\.\s*([A-Za-z_]\w*)\s*")


def blame_params(src: Source, diags: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics, each at the param whose value it is about when that value is
    written in another file than the place that reads it; a problem of a value already
    reported at its param (a list of the wrong `length`) is not reported again."""
    readers = dict(_readers(src.data))
    params = src.data.get("params") if isinstance(src.data, dict) else None
    at_params = {d.path for d in diags}
    out = []
    for d in diags:
        name = readers.get(d.path)
        if name and {f"params.{name}.default", f"params.{name}"} & at_params:
            continue
        decl = params.get(name) if isinstance(params, dict) and name else None
        if not isinstance(decl, dict) or "default" not in decl:
            out.append(d)
            continue
        at = src.pos(("params", name, "default"))
        if at.file == d.file:
            out.append(d)
            continue
        doc = f" ({cut(str(decl['doc']), 200)})" if decl.get("doc") else ""
        out.append(Diagnostic(at.file, at.line, at.col,
                              f"param '{cut(name)}': {d.message}",
                              f"params.{name}.default",
                              f"{d.path} in {d.file}:{d.line} reads it{doc}; {d.hint}"
                              if d.hint else f"{d.path} in {d.file}:{d.line} reads it{doc}",
                              d.severity))
    return out


def _readers(node: Any, path: Path_ = ()) -> list[tuple[str, str]]:
    """(path, param name) of every value that is exactly one param: `params.row_lengths`."""
    if isinstance(node, str):
        m = _PARAM.fullmatch(node)
        return [(format_path(path), m[1])] if m and path[:1] != ("params",) else []
    items = (node.items() if isinstance(node, dict)
             else enumerate(node) if isinstance(node, list) else ())
    return [r for k, v in items for r in _readers(v, path + (k,))]
