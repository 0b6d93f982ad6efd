"""What simulate, compare and sweep share on the command line: the progress line, Ctrl-C,
`--games-out`, `--plot` and printing the report.

Every output file (`--games-out`, `--plot`, sweep's `--csv`) is tried before the first
game: a missing folder or a place that cannot be written is one line naming the path and
why (exit 1, as for any output file), not a traceback after the whole study has run.

Ctrl-C prints the report of the games finished (marked as interrupted) and exits with
130; output files are written for those games too, and a file that would stay empty is
removed rather than left behind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click

from rulekit.errors import RulekitError
from rulekit.studies.progress import ProgressLine
from rulekit.studies.simulate import Interrupted, SimulateTally
from rulekit.text import printable

Study = Callable[..., dict]
Draw = Callable[[str, dict, list[SimulateTally]], None]


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C before any game finished (while loading, say): exit 130 without a traceback."""
    try:
        yield
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        raise click.exceptions.Exit(130) from None


def check_output(option: str, path: str | None) -> None:
    """A `RulekitError` naming `option`, `path` and the reason, unless a file can be written
    there. Trying is the only sure test (permissions, a read-only disk, /proc); a file this
    creates is removed again, and an existing one is left as it was."""
    if path is None:
        return
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        where = printable(str(folder))
        raise RulekitError(f"{option} {printable(path)}: " + (
            f"{where} is a file, not a folder" if folder.exists()
            else f"the folder {where} does not exist"))
    try:
        if target.exists() or target.is_symlink():
            open(target, "a", encoding="utf-8").close()
        else:
            open(target, "x", encoding="utf-8").close()
            target.unlink()
    except OSError as exc:
        raise RulekitError(f"{option} {printable(path)}: cannot be written "
                           f"({exc.strerror or exc})") from None


@contextmanager
def _games_out(path: str | None) -> Iterator[IO[str] | None]:
    if path is None:
        yield None
        return
    try:
        out = open(path, "w", encoding="utf-8")  # closed below, or removed if empty
    except OSError as exc:
        raise RulekitError(f"--games-out {path}: {exc.strerror}") from None
    try:
        yield out
    finally:
        out.close()
        if Path(path).stat().st_size == 0:
            Path(path).unlink()




def run_study(study: Study, games: int, as_json: bool, render: Callable[[dict], str],
              plot: str | None = None, draw: Draw | None = None,
              games_out: str | None = None, after: Callable[[dict], None] | None = None,
              outputs: Sequence[tuple[str, str | None]] = (), **kwargs: Any) -> None:
    """Run `study(games=..., progress=..., games_out=..., tallies=..., **kwargs)` and print
    its report as JSON or as `render` makes it; `after(report)` writes further files, the
    `outputs` (option, path), checked with the others before any game is played."""
    if plot is not None:
        from rulekit.studies.plot import require

        require(plot)  # a missing extra or a bad name is reported before any game is played
    for option, path in [("--games-out", games_out), ("--plot", plot), *outputs]:
        check_output(option, path)
    tallies: list[SimulateTally] = []
    interrupted = False
    with _games_out(games_out) as out, ProgressLine(games) as bar:
        progress = bar.update
        try:
            report = study(games=games, progress=progress, games_out=out, tallies=tallies,
                           **kwargs)
        except Interrupted as stop:
            report, interrupted = stop.report, True
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(render(report))
    if report["games"] and after is not None:
        after(report)
    if report["games"] and plot is not None and draw is not None:
        draw(plot, report, tallies)
    if interrupted:
        raise click.exceptions.Exit(130)


def install_hint(extra: str) -> str:
    """How to install an optional extra, as this copy of rulekit was installed: from a
    source checkout (`pip install rulekit[...]` would fetch another rulekit from the index)
    or from a package."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "rulekit").is_dir():
        return f"python -m pip install -e '.[{extra}]' in the checkout {printable(str(root))}"
    return f"pip install 'rulekit[{extra}]'"
