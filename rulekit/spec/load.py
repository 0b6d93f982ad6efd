"""From a path to one merged document: `extends:` resolved, positions kept per file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.errors import GameFileError
from rulekit.spec.source import KEY, Path_, Pos, Source, read_file

MAX_EXTENDS = 16


def load_source(path: str | Path) -> Source:
    """Read a game file and every file it extends; a variant's keys win over its base's."""
    return _load(Path(path), [])


def _load(path: Path, chain: list[Path]) -> Source:
    src = read_file(path)
    data = src.data
    if not isinstance(data, dict) or "extends" not in data:
        return src
    base_ref = data["extends"]
    if not isinstance(base_ref, str) or not base_ref:
        raise GameFileError([src.diag(("extends",), "extends: needs the path of a game file",
                                      hint="for example extends: ../base.yaml (relative to this "
                                           "file)")])
    base_path = (path.parent / base_ref).resolve()
    here = path.resolve()
    if base_path in chain + [here]:
        cycle = " -> ".join(str(p.name) for p in chain + [here, base_path])
        raise GameFileError([src.diag(("extends",), f"extends: forms a cycle ({cycle})",
                                      hint="a base file must not extend its variants; remove "
                                           "one `extends:`")])
    if len(chain) >= MAX_EXTENDS:
        raise GameFileError([src.diag(("extends",), "extends: chain is too long",
                                      hint=f"at most {MAX_EXTENDS} files may extend each other")])
    if not base_path.is_file():
        raise GameFileError([src.diag(("extends",), f"extends: no such file '{base_ref}'",
                                      hint=f"looked for {base_path}")])
    base = _load(base_path, chain + [here])
    positions = dict(base.positions)
    merged = _merge(base.data, data, (), src.positions, positions)
    merged.pop("extends", None)
    return Source(merged, positions, src.file)


def _merge(base: Any, over: Any, path: Path_, over_pos: dict[Path_, Pos],
           positions: dict[Path_, Pos]) -> Any:
    """Mappings merge key by key; anything else in the variant replaces the base's value.

    A key set to null in the variant removes it from the base.
    """
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            kpath = path + (key,)
            if value is None and key in base:
                out.pop(key)
                continue
            if key in base:
                out[key] = _merge(base[key], value, kpath, over_pos, positions)
            else:
                out[key] = value
                _copy_positions(kpath, over_pos, positions)
        for p in (path, path + (KEY,)):  # the variant's mapping, and the key naming it
            if p in over_pos:
                positions[p] = over_pos[p]
        return out
    # replaced whole: forget the base's positions below this path
    for p in [p for p in positions if p[: len(path)] == path]:
        del positions[p]
    _copy_positions(path, over_pos, positions)
    return over


def _copy_positions(path: Path_, src: dict[Path_, Pos], dst: dict[Path_, Pos]) -> None:
    n = len(path)
    for p, pos in src.items():
        if p[:n] == path:
            dst[p] = pos
