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


def shipped_games(examples: bool = False) -> dict[str, Path]:
    """The shipped games by name (the file name without `.yaml`); with `examples`, the
    example games of `examples/` as well (their names differ from the games')."""
    folder = shipped_folder()
    if folder is None:
        return {}
    paths = sorted(folder.glob("*.yaml"))
    if examples:
        paths += sorted((folder / "examples").glob("*.yaml"))
    return {p.stem: p for p in paths if not p.stem.endswith(".tests")}


def resolve_game(arg: str) -> str:
    """The path a command's game argument means: itself when it names a file (or looks
    like a path), else the shipped game or example of that name. A bare name that is
    neither is refused with the names there are, so that `rulekit play pgi` says what
    to type rather than "no such file"."""
    if Path(arg).exists() or "/" in arg or "\\" in arg or arg.endswith(SUFFIXES) \
            or arg == "-":
        return arg
    games = shipped_games(examples=True)
    found = games.get(arg) or games.get(arg.lower())
    if found is not None:
        return str(found)
    raise GameFileError([Diagnostic(arg, 0, 0, "no such file, nor a shipped game of that "
                                    "name", hint=_names_hint(arg, games))])


def _names_hint(arg: str, games: dict[str, Path]) -> str:
    import difflib

    shipped = shipped_games()
    main = [n for n in games if n in shipped]
    others = [n for n in games if n not in shipped]
    close = difflib.get_close_matches(arg.lower(), list(games), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    hint += "games: " + ", ".join(main)
    if others:
        hint += "; examples: " + ", ".join(others)
    return hint + "; or give a file's path"


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
            try:
                out.append(resolve_game(arg))
            except GameFileError:  # reported with the other files, as a file not found
                out.append(arg)
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
