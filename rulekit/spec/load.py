"""From a path to one merged document: `extends:` resolved, positions kept per file."""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulekit.errors import GameFileError, cut
from rulekit.spec.source import KEY, Path_, Pos, Source, read_file

MAX_EXTENDS = 16
#: what a base file's name ends with
SUFFIXES = (".yaml", ".yml")


def load_source(path: str | Path, extends_roots: Sequence[str | Path] = ()) -> Source:
    """Read a game file and every file it extends; a variant's keys win over its base's.

    `extends:` reaches only regular .yaml files in the folder of the file that names it
    or below; `extends_roots` names further folders (and everything below them) that the
    user allows. The check is made on the real path, symbolic links followed, before the
    base is opened: a file outside is never read, so none of it can show in a message.
    """
    roots = tuple(Path(os.path.realpath(r)) for r in extends_roots)
    return _load(Path(path), [], roots)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _load(path: Path, chain: list[Path], roots: tuple[Path, ...]) -> Source:
    src = read_file(path)
    data = src.data
    if not isinstance(data, dict) or "extends" not in data:
        return src
    base_ref = data["extends"]
    if not isinstance(base_ref, str) or not base_ref or "\0" in base_ref:
        raise GameFileError([src.diag(("extends",), "extends: needs the path of a game file",
                                      hint="for example extends: base.yaml (relative to this "
                                           "file, in its folder or below)")])
    here = Path(os.path.realpath(path))
    base_path = confined_path(src, path, base_ref, roots)
    if base_path in chain + [here]:
        cycle = " -> ".join(str(p.name) for p in chain + [here, base_path])
        raise GameFileError([src.diag(("extends",), f"extends: forms a cycle ({cycle})",
                                      hint="a base file must not extend its variants; remove "
                                           "one `extends:`")])
    if len(chain) >= MAX_EXTENDS:
        raise GameFileError([src.diag(("extends",), "extends: chain is too long",
                                      hint=f"at most {MAX_EXTENDS} files may extend each other")])
    base = _load(base_path, chain + [here], roots)
    if not isinstance(base.data, dict):
        raise GameFileError([src.diag(("extends",), f"extends: '{cut(base_ref, 200)}' is not "
                                      "a game file",
                                      hint="a base file is a mapping of keys such as `name:` "
                                           "and `flow:`")])
    _check_overrides(src, base.data.get("params"))
    positions = dict(base.positions)
    merged = _merge(base.data, data, (), src.positions, positions)
    merged.pop("extends", None)
    return Source(merged, positions, src.file)


def _check_overrides(src: Source, base_params: Any) -> None:
    """A variant's param without a `type` changes a param of its base: the base must
    declare it (a misspelt name would otherwise be a new, incomplete param)."""
    params = src.data.get("params")
    if not isinstance(params, dict):
        return
    known = [str(k) for k in base_params] if isinstance(base_params, dict) else []
    problems = []
    for name, decl in params.items():
        if str(name) in known or not isinstance(decl, dict) or "type" in decl:
            continue
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = (f"did you mean '{close[0]}'?" if close else
                f"the base's params are: {', '.join(known)}" if known else "the base has no params")
        problems.append(src.diag(("params", name), f"param '{cut(str(name))}' changes nothing: "
                                 "the base file declares no param of that name",
                                 hint + " (a new param needs a `type:`)", key=True))
    if problems:
        raise GameFileError(problems)


def confined_path(src: Source, path: Path, ref: str, roots: tuple[Path, ...],
                  key: str = "extends") -> Path:
    """The real path of the file that `key:` of a file names (its base), if the user allows
    it to be read: a regular YAML file in the folder of `path` or below, or under `roots`."""
    folder = Path(os.path.realpath(path.parent))
    written = Path(os.path.normpath(folder / ref))
    real = Path(os.path.realpath(folder / ref))
    widen = ("or allow its folder with --allow-extends DIR (extends_roots=[DIR] in "
             "load_game)")
    if not any(_inside(real, f) for f in (folder,) + roots):
        if Path(ref).is_absolute() or Path(ref).drive:
            why = "is an absolute path"
        elif not _inside(written, folder):
            why = "leaves the folder of this file"
        else:
            why = "is a link that leads outside the folder of this file"
        raise GameFileError([src.diag((key,), f"{key}: '{cut(ref, 200)}' {why}",
                                      hint="a base file lies in the folder of its variant or "
                                           f"below it: move it there, {widen}")])
    if real.suffix.lower() not in SUFFIXES:
        raise GameFileError([src.diag((key,), f"{key}: '{cut(ref, 200)}' is not a game file",
                                      hint="a base file is YAML, named *.yaml or *.yml")])
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        raise GameFileError([src.diag((key,), f"{key}: no such file '{cut(ref, 200)}'",
                                      hint=f"looked for {cut(str(real), 300)}")]) from None
    except (OSError, ValueError) as exc:
        raise GameFileError([src.diag((key,), f"{key}: cannot read '{cut(ref, 200)}'",
                                      hint=str(getattr(exc, "strerror", None) or exc))]) from None
    if not stat.S_ISREG(mode):
        raise GameFileError([src.diag((key,), f"{key}: '{cut(ref, 200)}' is not a regular file",
                                      hint="a base file is a YAML text file, not a folder, "
                                           "a device or a pipe")])
    return real


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
