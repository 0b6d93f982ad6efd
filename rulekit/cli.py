"""The `rulekit` command: validate, simulate and play game files from the terminal.

A user's mistake (a bad file, a bad `--set`, an unknown bot) ends with one clear
message on stderr and exit code 1; click's own usage errors exit with 2. No
Python traceback for anything a user can cause.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

import rulekit.bots
from rulekit.bots import DEFAULT_OPPONENT, MAX_ITERATIONS, MAX_SECONDS, known_bots
from rulekit.errors import Diagnostic, GameFileError, RulekitError
from rulekit.files import expand, load_stdin, resolve_game
from rulekit.text import printable

# The terminal (rulekit.terminal: the screens of play and replay) is imported by the
# commands that show it, so that the other commands start without it.


# ---- shared helpers ----------------------------------------------------------------------------
def _print_error(exc: RulekitError) -> None:
    if isinstance(exc, GameFileError) and exc.diagnostics:
        for d in exc.diagnostics:
            click.echo(d.format(), err=True)
    else:
        click.echo(printable(f"error: {exc}"), err=True)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn any `RulekitError` into its message on stderr and exit code 1."""
    try:
        yield
    except RulekitError as exc:
        _print_error(exc)
        raise click.exceptions.Exit(1) from None


def _parse_bots(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    """`random,mcts:200` -> ['random', 'mcts:200']; a bad bot spec is a usage error."""
    names = [n.strip().lower() for n in value.split(",")]
    if not names or any(not n for n in names):
        raise click.BadParameter("expected bots separated by commas, e.g. "
                                 "random,greedy,mcts:200")
    for name in names:
        try:
            rulekit.bots.make(name)
        except RulekitError as exc:
            raise click.BadParameter(str(exc)) from None
    return names


def _parse_opponents(ctx: click.Context, param: click.Parameter,
                     value: str | None) -> list[str] | None:
    """`play`'s bots: None (the default, chosen by the game and `--auto`) or as `--bots`."""
    return None if value is None else _parse_bots(ctx, param, value)


def _load(file: str, sets: Sequence[str], roots: Sequence[str] = ()) -> Any:
    """The game with `--set` overrides; errors are RulekitErrors for `_user_errors`."""
    import rulekit
    from rulekit.spec.params import parse_set_options

    overrides = parse_set_options(list(sets)) if sets else None
    return rulekit.load_game(resolve_game(file), overrides=overrides, extends_roots=roots)


def _players(game: Any, players: int | None) -> int:
    """The player count asked for, checked against the game's: a usage error if it is not."""
    if players is None:
        return game.min_players
    if not game.min_players <= players <= game.max_players:
        raise click.BadParameter(f"{printable(game.name)} is for {game.min_players} to "
                                 f"{game.max_players} players, not {players}",
                                 param_hint="'--players'")
    return players


_bots_option = click.option(
    "--bots", default="random", show_default=True, callback=_parse_bots,
    help=f"bots, comma-separated, assigned to seats in turn ({', '.join(known_bots())}; "
         "mcts takes a budget and a rollout: mcts:400, mcts:0.5s, mcts:2000:1s, "
         "mcts:200:greedy)")
_set_option = click.option(
    "--set", "sets", multiple=True, metavar="NAME=VALUE",
    help="override a param of the game; the value is read as YAML (repeatable)")
_extends_option = click.option(
    "--allow-extends", "extends_roots", multiple=True, metavar="DIR",
    type=click.Path(file_okay=False),
    help="let `extends:` read base files from DIR and below (repeatable); by default a "
         "file extends only files in its own folder or below")
_seed_option = click.option("--seed", type=int, default=0, show_default=True,
                            help="seed of every random choice, for reproducible runs")


class _Commands(click.Group):
    """The command group: Ctrl-C in any command exits with 130, the shell's convention,
    with one line instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            raise click.exceptions.Exit(130) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulekit")
def main() -> None:
    """rulekit: board games written as YAML files, validated, simulated and played.

    Exit codes: 0 done, 1 an invalid file or input, 2 a usage error, 130 Ctrl-C.
    """


# ---- validate ----------------------------------------------------------------------------------
@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="human-readable lines, or JSON for tools")
@_set_option
@_extends_option
@click.option("--simulate", "games", type=click.IntRange(min=1), default=None, metavar="N",
              help="after the checks, play N random games per valid file (seeds 0..N-1, the "
                   "player counts in turn) and report games that never end, decisions without "
                   "a legal option, failures and scores outside score_bounds")
@click.option("--strict", is_flag=True,
              help="warnings (a param nothing reads, a var nothing sets, options that share "
                   "a label) make a file invalid")
def validate(files: tuple[str, ...], fmt: str, sets: tuple[str, ...],
             extends_roots: tuple[str, ...], games: int | None, strict: bool) -> None:
    """Check game files against the schema and the semantic rules (and tests files,
    *.tests.yaml, against theirs: docs/tests.md).

    FILES are game files, folders (their *.yaml files), names of shipped games, or `-`
    for standard input. Warnings are printed; exit code 0 when every file is valid
    (and, with --simulate, every game went well; with --strict, without warnings), 1
    when one is not, 2 for a usage error.
    """
    import rulekit
    from rulekit.check import check_game
    from rulekit.scenarios.suite import is_tests_file, load_suite
    from rulekit.spec.params import parse_set_options
    from rulekit.spec.warnings import warnings_of

    try:
        overrides = parse_set_options(list(sets)) if sets else None
    except GameFileError as exc:
        raise click.BadParameter("; ".join(d.message + (f" ({d.hint})" if d.hint else "")
                                           for d in exc.diagnostics),
                                 param_hint="'--set'") from None
    results = []
    for file in expand(files):
        diagnostics: list[Diagnostic] = []
        report = None
        try:
            if file != "-" and is_tests_file(file):  # rule tests: checked, not simulated
                load_suite(file, extends_roots)
                results.append((file, diagnostics, report))
                continue
            if file == "-":
                game = load_stdin(overrides)
            else:
                game = rulekit.load_game(file, overrides=overrides, extends_roots=extends_roots)
        except GameFileError as exc:
            diagnostics = list(exc.diagnostics) or [Diagnostic(file, 1, 1, str(exc) or "invalid")]
        except RulekitError as exc:
            diagnostics = [Diagnostic(file, 1, 1, str(exc), hint="see docs/format.md")]
        except RecursionError:
            diagnostics = [Diagnostic(file, 1, 1, "the file is nested too deeply to check",
                                      hint="a game file needs a few levels of nesting")]
        except Exception as exc:  # a failure of rulekit itself: still a message, not a traceback
            diagnostics = [Diagnostic(file, 1, 1, f"internal error: {type(exc).__name__}: {exc}",
                                      hint="this is a bug in rulekit; please report it with "
                                           "the file")]
        else:
            diagnostics = warnings_of(game.source)
            if games:
                report = check_game(game, games)
        results.append((file, diagnostics, report))

    def invalid(ds: list[Diagnostic]) -> bool:
        return any(d.severity == "error" or strict for d in ds)

    if fmt == "json":
        out = []
        for f, ds, report in results:
            entry: dict[str, Any] = {"file": f, "valid": not invalid(ds),
                                     "diagnostics": [d.as_dict() for d in ds]}
            if report is not None:
                entry["simulation"] = report.as_dict()
            out.append(entry)
        click.echo(json.dumps(out, indent=2))
    else:
        for f, ds, report in results:
            if not invalid(ds):
                warned = f" ({len(ds)} warning{'s' if len(ds) > 1 else ''})" if ds else ""
                click.echo(f"{printable(f)}: ok{warned}")
            for d in ds:
                click.echo(d.format())
            if report is not None:
                for problem in report.problems:
                    click.echo(printable(problem.format()))
                click.echo(printable(report.summary()))
    if any(invalid(ds) or (report is not None and not report.ok) for _, ds, report in results):
        raise click.exceptions.Exit(1)


# ---- schema ------------------------------------------------------------------------------------
@main.command()
def schema() -> None:
    """Print the JSON Schema of game files (for editors and other tools)."""
    from rulekit.spec.schema import schema_text

    click.echo(schema_text())


# ---- compile -----------------------------------------------------------------------------------
@main.command("compile")
@click.argument("file", type=click.Path())
@click.option("--backend", type=click.Choice(["source", "flat"]), default="source",
              show_default=True,
              help="source: the hot parts as Python over the engine's state; flat: the "
                   "game's random play as one function over plain lists, or why not")
@_set_option
@_extends_option
def compile_(file: str, backend: str, sets: tuple[str, ...],
             extends_roots: tuple[str, ...]) -> None:
    """Show the Python code generated for FILE's hot parts, for debugging a game's speed.

    Each function is headed by the place in the file it comes from; parts not shown run
    on the engine's general (slower) path. With `--backend flat`, the module of the flat
    backend, which random playouts take, or the reason the game keeps the general path.
    """
    with _user_errors():
        game = _load(file, sets, extends_roots)
        if backend == "flat":
            from rulekit.backends import flat
            made, text = flat.build(game)
            if made is None:
                click.echo(f"# {printable(file)}: random play takes the engine's path; not in "
                           f"the flat backend yet: {printable(text)}")
            else:
                start = ("a turn's chance step" if made.entries - made.decisions
                         else "a turn's top-level decision")
                if made.decisions and made.entries - made.decisions:
                    start += " (or a decision at its top)"
                if any(len(key) > 1 for key in made.sites):
                    start += ", or one in its `repeat`,"
                click.echo(f"# {printable(file)}: random play from {start} takes this "
                           "function")
                click.echo(printable(text, newlines=True))
            return
        if not game.generated:
            click.echo(f"# {printable(file)}: no part of this game is generated code")
        for source in game.generated:
            click.echo(printable(source, newlines=True))


# ---- simulate ----------------------------------------------------------------------------------
# simulate, compare and sweep: the studies, whose logic lives in rulekit/studies/
# where the games of a study (or of a ladder) run
_jobs_option = click.option(
    "--jobs", type=click.IntRange(min=1), default=None,
    help="processes to play in; the report is the same for any number  "
         "[default: every core; one for runs under 500 games]")
_dask_option = click.option(
    "--dask", metavar="ADDRESS",
    help="play on a Dask cluster: tcp://HOST:PORT of its scheduler, or 'local' for one on "
         "this machine (extra rulekit[dask]); the report is the same as a local run's")


def _text() -> Any:
    """The studies' text reports, imported when one is printed (not for --json)."""
    from rulekit.studies import text

    return text


def _plot() -> Any:
    """The studies' plots, imported when one is drawn."""
    from rulekit.studies import plot

    return plot


def _study_options(f: Any) -> Any:
    """The options every study takes: games, players, bots, seed, where to run, outputs."""
    options = [
        click.option("--games", type=click.IntRange(min=1), default=100, show_default=True,
                     help="how many games to play (per variant)"),
        click.option("--players", type=int, default=None,
                     help="players per game  [default: the game's minimum]"),
        _bots_option, _seed_option, _extends_option,
        _jobs_option, _dask_option,
        click.option("--games-out", type=click.Path(dir_okay=False),
                     help="write one JSON line per game to this file (seed, bots, scores, "
                          "length, end reason)"),
        click.option("--plot", type=click.Path(dir_okay=False),
                     help="draw the figures into FILE.png or FILE.svg (extra rulekit[plot])"),
        click.option("--json", "as_json", is_flag=True, help="print the report as JSON"),
    ]
    for option in reversed(options):
        f = option(f)
    return f


@main.command()
@click.argument("file", type=click.Path())
@_set_option
@_study_options
def simulate(file: str, sets: tuple[str, ...], extends_roots: tuple[str, ...], players: int | None,
             **study: Any) -> None:
    """Let bots play many games and report win rates, scores, length and how games ended,
    each with its 95% interval. Ctrl-C prints the report of the games finished (exit 130)."""
    from rulekit.studies import command, simulate

    with _user_errors(), command.interruptible():
        game = _load(file, sets, extends_roots)
        command.run_study(simulate.simulate, game=game, players=_players(game, players),
                          render=lambda r: _text().format_simulate(r),
                          draw=lambda path, r, t: _plot().plot_simulate(path, t[0], r["game"]),
                          **study)


@main.command()
@click.argument("file_a", type=click.Path())
@click.argument("file_b", type=click.Path(), required=False)
@click.option("--set-a", "sets_a", multiple=True, metavar="NAME=VALUE",
              help="override a param of variant A (repeatable)")
@click.option("--set-b", "sets_b", multiple=True, metavar="NAME=VALUE",
              help="override a param of variant B (repeatable)")
@_study_options
def compare(file_a: str, file_b: str | None, sets_a: tuple[str, ...], sets_b: tuple[str, ...],
            extends_roots: tuple[str, ...], players: int | None, **study: Any) -> None:
    """Play two variants on the same seeds and report each figure's difference B - A with
    its 95% interval: two files A and B, or one file with --set-a/--set-b."""
    from rulekit.studies import command, compare

    if file_b is None and not (sets_a or sets_b):
        raise click.UsageError("give two files, or one file with --set-a and/or --set-b")
    with _user_errors(), command.interruptible():
        game_a = _load(file_a, sets_a, extends_roots)
        game_b = _load(file_b or file_a, sets_b, extends_roots)
        labels = [_variant_label(file_a, sets_a), _variant_label(file_b or file_a, sets_b)]
        command.run_study(compare.compare, game_a=game_a, game_b=game_b, labels=labels,
                          players=_players(game_b, _players(game_a, players)),
                          render=lambda r: _text().format_compare(r),
                          draw=lambda path, r, t: _plot().plot_compare(path, t, labels,
                                                                      "A: " + labels[0]),
                          **study)


def _variant_label(file: str, sets: Sequence[str]) -> str:
    return " ".join([file, *(f"--set {s}" for s in sets)])


@main.command()
@click.argument("file", type=click.Path())
@click.option("--vary", multiple=True, required=True, metavar="NAME=LIST",
              help="a param and the values to try, read as YAML: --vary 'penalty_points=[3,5,8]'"
                   " (once or twice: two make a grid)")
@_set_option
@click.option("--csv", "csv_file", type=click.Path(dir_okay=False),
              help="write the table to this CSV file")
@_study_options
def sweep(file: str, vary: tuple[str, ...], sets: tuple[str, ...], csv_file: str | None,
          extends_roots: tuple[str, ...], players: int | None, **study: Any) -> None:
    """Play a study per value of one or two params, on the same seeds, and print a table
    of the figures with their 95% intervals."""
    from rulekit.spec.params import parse_set_options
    from rulekit.studies import command, sweep

    try:  # a --vary that is not one or two lists of values is a usage error (exit 2)
        points = sweep.parse_vary(vary)
    except RulekitError as exc:
        raise click.UsageError(str(exc)) from None
    with _user_errors(), command.interruptible():
        base = parse_set_options(list(sets)) if sets else {}
        import rulekit

        path = resolve_game(file)  # a shipped game's name, as every command takes

        def load(values: dict) -> Any:
            return rulekit.load_game(path, overrides=base | values, extends_roots=extends_roots)

        first = load({k: v[0] for k, v in points.items()})
        command.run_study(sweep.sweep, load=load, vary=points, players=_players(first, players),
                          render=lambda r: _text().format_sweep(r),
                          after=lambda r: csv_file and sweep.write_csv(csv_file, r),
                          outputs=[("--csv", csv_file)],
                          draw=lambda path, r, t: _plot().plot_sweep(path, r, r["game"]),
                          **study)


# ---- ladder ------------------------------------------------------------------------------------
@main.command()
@click.argument("file", type=click.Path())
@click.option("--bots", default="random,greedy,mcts:50", show_default=True,
              callback=_parse_bots, help="the bots to rate, comma-separated (two at least)")
@click.option("--games", type=click.IntRange(min=1), default=20, show_default=True,
              help="games per pair of bots")
@click.option("--players", type=int, default=None,
              help="players per game  [default: the game's minimum]")
@_seed_option
@_set_option
@_extends_option
@_jobs_option
@_dask_option
@click.option("--json", "as_json", is_flag=True, help="print the ladder as JSON")
def ladder(file: str, bots: list[str], games: int, players: int | None, seed: int,
           sets: tuple[str, ...], extends_roots: tuple[str, ...], jobs: int | None,
           dask: str | None, as_json: bool) -> None:
    """Rate bots against each other: round-robin games, Bradley-Terry ratings (Elo scale,
    the first bot at 0) with 95% intervals, and head-to-head rates."""
    from rulekit.ladder import format_ladder
    from rulekit.ladder import ladder as run
    from rulekit.studies.command import interruptible
    from rulekit.studies.progress import ProgressLine

    with _user_errors(), interruptible():
        game = _load(file, sets, extends_roots)
        n = _players(game, players)
        pairs = len(bots) * (len(bots) - 1) // 2
        with ProgressLine(pairs * games) as line:
            report = run(game, bots, games, n, seed, progress=line.update, jobs=jobs, dask=dask)
    click.echo(json.dumps(report, indent=2) if as_json else format_ladder(report))


# ---- play --------------------------------------------------------------------------------------
_no_color_option = click.option("--no-color", is_flag=True,
                                 help="plain text, even in a terminal that shows colours")
_record_option = click.option(
    "--record-test", "record_test", type=click.Path(dir_okay=False), default=None,
    metavar="FILE", help="write the game as a scenario for `rulekit test` (docs/tests.md): its "
                         "chance outcomes, decisions, legal labels and final scores")


def _recorder(path: str | None, game_file: str, overrides: dict[str, Any],
              test_file: str | None) -> Any:
    """`--log` and `--record-test`: both written from the game when it ends or stops."""
    from rulekit.terminal import LogFile

    class Recorder(LogFile):
        def __init__(self) -> None:
            super().__init__(path, game_file, overrides)
            self.source_file = game_file
            self.test_file = test_file
            if test_file is not None:
                try:  # a test that cannot be written is said before the game, not after it
                    open(test_file, "a", encoding="utf-8").close()
                except OSError as exc:
                    raise RulekitError(f"cannot write the test {test_file}: {exc.strerror}") \
                        from None

        def write(self, state: Any) -> None:
            super().write(state)
            if self.test_file is not None:
                from rulekit.scenarios.record import write_scenario

                write_scenario(self.test_file, state, self.source_file, self.overrides)
                click.echo(f"test written to {printable(self.test_file)}")

    return Recorder()


@main.command()
@click.argument("file", type=click.Path())
@click.option("--players", type=int, default=None,
              help="players in the game  [default: the game's minimum]")
@click.option("--seat", type=int, default=0, show_default=True, help="the seat you play")
@click.option(
    "--bots", default=None, callback=_parse_opponents,
    help=f"your opponents, comma-separated, assigned to seats in turn ({', '.join(known_bots())}"
         f"; mcts takes a budget and a rollout: mcts:400, mcts:0.5s, mcts:2000:1s; at most "
         f"{MAX_ITERATIONS} iterations or {MAX_SECONDS:g} seconds a move); given, they replace "
         f"the bots of the file's levels too  [default: the file's levels; else "
         f"{DEFAULT_OPPONENT}, about a second a move at most; random with --auto]")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="seed of the deal and of every roll  [default: a fresh one each game; "
                   "shown when the game is over and written to the log]")
@_set_option
@_extends_option
@click.option("--auto", is_flag=True, help="bots play every seat, you only watch")
@click.option("--level", "first_level", type=click.IntRange(min=1), default=None,
              help="for a game with levels: the level to start at  [default: 1]")
@click.option("--log", "log_file", type=click.Path(dir_okay=False), default=None,
              help="write the game's log (JSON lines) to this file, for `rulekit replay`; "
                   "in a series of levels it holds the level played last")
@_record_option
@_no_color_option
def play(file: str, players: int | None, seat: int, bots: list[str] | None, seed: int | None,
         sets: tuple[str, ...], extends_roots: tuple[str, ...], auto: bool,
         first_level: int | None, log_file: str | None, record_test: str | None,
         no_color: bool) -> None:
    """Play a game in the terminal against bots; choices are read from stdin.

    FILE is a game file, or the name of a game or example shipped with rulekit (its
    file name without `.yaml`).

    Type the number of a choice or its label; `?` explains the choices, `quit` or end
    of input stops the game. A game file with `levels:` is played as a series: each
    level passed opens the next.
    """
    from rulekit.spec.params import parse_set_options
    from rulekit.studies.play import derive_seed
    from rulekit.terminal import (
        Paint,
        Session,
        colour_wanted,
        echo_description,
        echo_headed,
        echo_result,
        fresh_seed,
        play_levels,
        run_session,
        seat_agents,
    )

    paint = Paint(colour_wanted(no_color))
    if seed is None:
        seed = fresh_seed()
    with _user_errors():
        file = resolve_game(file)
        game = _load(file, sets, extends_roots)
        overrides = parse_set_options(list(sets)) if sets else {}
        n = _players(game, players)
        if not auto and not 0 <= seat < n:
            raise click.BadParameter(f"there are seats 0 to {n - 1}, not {seat}",
                                     param_hint="'--seat'")
        human = None if auto else seat
        log = _recorder(log_file, file, overrides, record_test)
        if first_level is not None and not 1 <= first_level <= len(game.levels):
            has = f"has levels 1 to {len(game.levels)}" if game.levels else "has no levels"
            raise click.BadParameter(f"{printable(game.name)} {has}", param_hint="'--level'")
        if game.levels:
            play_levels(game, n, seat, human, bots, seed, first_level or 1, paint, log)
            return
        if bots is None:
            bots = ["random" if auto else DEFAULT_OPPONENT]
        agents, who = seat_agents(n, human, bots)
        state = game.new_game(players=n, seed=seed)
        rng = random.Random(derive_seed(seed, "bots", "play"))
        # the seed deals every hidden part: a game with any is told its seed at the end
        seed_note = "" if game.hides_information else f"; seed {seed}"
        echo_headed(paint, f"{game.name}, {n} players: ",
                    ", ".join(who[s] for s in range(n)) + seed_note)
        echo_description(game, human)
        session = Session(state, who, paint, human, agents, rng, game.name)
        if run_session(session, log, "the game stops at"):
            echo_result(session, f"seed {seed}: --seed {seed} deals this game again")
            log.write(state)


# ---- replay ------------------------------------------------------------------------------------
@main.command()
@click.argument("log", type=click.Path())
@click.option("--game", "game_file", type=click.Path(), default=None,
              help="the game file  [default: the one the log names, if it lies next to the "
                   "log: in the log's folder or below]")
@_extends_option
@_record_option
@_no_color_option
def replay(log: str, game_file: str | None, extends_roots: tuple[str, ...],
           record_test: str | None, no_color: bool) -> None:
    """Rebuild a logged game exactly and print its course and result.

    The game file is the one named with --game, or else the one the log names if it lies
    next to the log (a log may come from someone else: it cannot make rulekit read a file
    elsewhere); the first line says which. Exit code 1 when the log is malformed or does
    not fit the game file; the message names the log's line.
    """
    from rulekit.replay import load_game_of, read_log, rebuild
    from rulekit.terminal import EndOfInput, Paint, Session, colour_wanted, echo_result

    paint = Paint(colour_wanted(no_color))
    with _user_errors():
        glog = read_log(log)
        game, path = load_game_of(glog, game_file, extends_roots)
        click.echo(f"game file: {path} ({'--game' if game_file else 'named by the log'})")
        rebuild(game, glog)  # the whole log must fit before any of it is shown
        state = game.new_game(players=glog.players, seed=glog.seed)
        click.echo(paint(f"{game.name}, {state.n} players; replay of {log}", bold=True))
        steps = iter([e for e in glog.entries if "chance" in e
                      or ("action" in e and not e.get("forced"))])
        session = Session(state, {s: f"player {s}" for s in range(state.n)}, paint,
                           title=f"{game.name}, replay", pictures=False)
        try:
            session.run(decide=lambda st: _next_step(steps)["action"],
                        chance=lambda st: st.resolve_chance(_next_step(steps).get("outcome")))
        except EndOfInput:
            pass
        if state.is_over:
            echo_result(session)
        else:
            session.show_picture()
            click.echo(f"\nthe log stops at turn {state.turn}: the game is not over")
            click.echo("scores so far: " + ", ".join(f"player {s} {x}"
                                                     for s, x in enumerate(state.scores())))
        if record_test is not None:
            from rulekit.scenarios.record import write_scenario

            write_scenario(record_test, state, path, glog.overrides)
            click.echo(f"test written to {printable(record_test)}")


def _next_step(steps: Iterator[dict]) -> dict:
    """The next logged chance outcome or decision; a log that stops early stops the replay."""
    step = next(steps, None)
    if step is None:
        from rulekit.terminal import EndOfInput

        raise EndOfInput
    return step


# ---- serve -------------------------------------------------------------------------------------
@main.command()
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address to listen on; another than 127.0.0.1 lets other machines in")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--db", default="rulekit-games.sqlite3", show_default=True,
              type=click.Path(dir_okay=False),
              help="the SQLite file the games are kept in; a server started again with it "
                   "resumes them")
def serve(files: tuple[str, ...], host: str, port: int, db: str) -> None:
    """Play in the browser: a page to start a game of FILE (files, folders or shipped game
    names; every shipped game when none is given), a link per person, live moves.

    Needs the optional extra web: pip install 'rulekit[web]'.
    """
    import rulekit

    with _user_errors():
        try:
            import starlette  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError:
            raise RulekitError("rulekit serve needs the optional extra web: "
                               "pip install 'rulekit[web]'") from None
        from rulekit.web import game_files
        from rulekit.web.app import create_app

        served = game_files(expand(files))
        for path in served.values():  # a file that does not load is said now, not in a page
            rulekit.load_game(path)
        click.echo(f"rulekit: {len(served)} game(s) at http://{host}:{port}/ (Ctrl-C stops; "
                   f"games are kept in {printable(db)})")
        _serve_until_ctrl_c(create_app(served, db), host, port)


def _serve_until_ctrl_c(app: Any, host: str, port: int) -> None:
    """Run the app with uvicorn's own signal handling; Ctrl-C stops it with one line and
    exit 130. Open pages keep event streams, which a stop waits for a moment only and then
    cancels: uvicorn would log each cancelled stream with a traceback, so once the server
    is stopping its error log is silenced."""
    import logging

    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)

    class Stopping(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            return not server.should_exit

    quiet = Stopping()
    log = logging.getLogger("uvicorn.error")
    log.addFilter(quiet)
    try:
        server.run()  # uvicorn raises the caught SIGINT again once it has stopped
    except KeyboardInterrupt:
        pass
    finally:
        log.removeFilter(quiet)
    if server.should_exit:
        click.echo("rulekit: stopped", err=True)
        raise click.exceptions.Exit(130)


# ---- test --------------------------------------------------------------------------------------
@main.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="one line per scenario, or JSON for tools")
@click.option("--untested-ok", is_flag=True,
              help="a game file without a tests file beside it is no error (for hooks)")
@_extends_option
def test_command(paths: tuple[str, ...], fmt: str, untested_ok: bool,
                 extends_roots: tuple[str, ...]) -> None:
    """Run the scenarios of tests files (docs/tests.md).

    A game file runs NAME.tests.yaml beside it, a folder every *.tests.yaml in it, a
    tests file itself. Exit code 0 when every scenario passes, 1 when one fails or a
    file is invalid, 2 for a usage error.
    """
    from rulekit.scenarios.report import run_paths

    report = run_paths(paths, extends_roots, untested_ok)
    click.echo(json.dumps(report.as_dict(), indent=2) if fmt == "json" else report.text())
    if not report.ok:
        raise click.exceptions.Exit(1)


if __name__ == "__main__":
    main()
