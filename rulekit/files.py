"""Which game files a command means: a path, the game files of a folder, standard input
(`-`), or a game shipped with rulekit named without its path and `.yaml`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

from rulekit.errors import Diagnostic, GameFileError

#: what a game file's name ends with
SUFFIXES = (".yaml", ".yml")
#: the name standard input goes by in messages
STDIN = "<stdin>"


def shipped_folder() -> Path | None:
    """Where the shipped games are: inside the installed package (a wheel copies them to
    rulekit/games), or else `games/` of the source checkout rulekit runs from."""
    here = Path(__file__).resolve().parent
    if (here / "games").is_dir():
        return here / "games"
    if (here.parent / "pyproject.toml").is_file() and (here.parent / "games").is_dir():
        return here.parent / "games"
    return None


def shipped_games() -> dict[str, Path]:
    """The shipped games by name (the file name without `.yaml`)."""
    folder = shipped_folder()
    return {} if folder is None else {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def resolve_game(arg: str) -> str:
    """The path a command's game argument means: itself when it names a file (or looks
    like a path), else the shipped game of that name; a name nothing matches stays as
    it is, for the usual "no such file" message."""
    if Path(arg).exists() or "/" in arg or "\\" in arg or arg.endswith(SUFFIXES):
        return arg
    found = shipped_games().get(arg) or shipped_games().get(arg.lower())
    return str(found) if found is not None else arg


def expand(args: tuple[str, ...] | list[str]) -> list[str]:
    """Each argument as the files it stands for: a folder's game files in order (a folder
    without any stays itself, to be reported), a shipped game's path, `-` as it is."""
    out: list[str] = []
    for arg in args:
        path = Path(arg)
        if arg != "-" and path.is_dir():
            files = sorted(str(p) for p in path.iterdir()
                           if p.suffix in SUFFIXES and p.is_file())
            out += files or [arg]
        else:
            out.append(arg if arg == "-" else resolve_game(arg))
    return out


def load_stdin(overrides: dict[str, Any] | None, stream: IO[bytes] | None = None) -> Any:
    """The game read from standard input, under the same limits as a file. It has no
    folder, so it may not `extends:` another file."""
    from rulekit.engine.game import check_source
    from rulekit.spec.source import MAX_CHARS, parse_text  # YAML: not for `--help`

    stream = stream if stream is not None else sys.stdin.buffer
    data = stream.read(4 * MAX_CHARS + 1)
    if len(data) > 4 * MAX_CHARS:
        raise GameFileError([Diagnostic(STDIN, 0, 0, f"more than {4 * MAX_CHARS} bytes",
                                        hint="a game file is far smaller")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise GameFileError([Diagnostic(STDIN, line, 1, "cannot read standard input: it is "
                                        "not UTF-8 text")]) from None
    src = parse_text(text.replace("\r\n", "\n").replace("\r", "\n"), STDIN)
    if isinstance(src.data, dict) and "extends" in src.data:
        raise GameFileError([src.diag(("extends",), "a game read from standard input cannot "
                                      "extend another file",
                                      hint="give the variant's path instead of '-'")])
    return check_source(src, overrides)
