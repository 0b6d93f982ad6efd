"""The `rulekit` command: validate, simulate and play game files from the terminal.

A user's mistake (a bad file, a bad `--set`, an unknown bot) ends with one clear
message on stderr and exit code 1; click's own usage errors exit with 2. No
Python traceback for anything a user can cause.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from rulekit.agents import known_agents, make_agent
from rulekit.errors import Diagnostic, GameFileError, RulekitError
from rulekit.terminal import (
    EndOfInput,
    LogFile,
    Paint,
    Session,
    colour_wanted,
    echo_description,
    echo_result,
    hides_information,
    is_tty,
    play_levels,
    run_session,
    seat_agents,
)
from rulekit.text import printable


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
            make_agent(name)
        except RulekitError as exc:
            raise click.BadParameter(str(exc)) from None
    return names


def _load(file: str, sets: Sequence[str], roots: Sequence[str] = ()) -> Any:
    """The game with `--set` overrides; errors are RulekitErrors for `_user_errors`."""
    import rulekit
    from rulekit.spec.params import parse_set_options

    overrides = parse_set_options(list(sets)) if sets else None
    return rulekit.load_game(file, overrides=overrides, extends_roots=roots)


def _players(game: Any, players: int | None) -> int:
    if players is None:
        return game.min_players
    if not game.min_players <= players <= game.max_players:
        raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                           f"players, not {players}")
    return players


_bots_option = click.option(
    "--bots", default="random", show_default=True, callback=_parse_bots,
    help=f"bots, comma-separated, assigned to seats in turn ({', '.join(known_agents())}; "
         "mcts takes a budget and a rollout: mcts:400, mcts:0.5s, mcts:200:greedy)")
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulekit")
def main() -> None:
    """rulekit: board games written as YAML files, validated, simulated and played."""


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
def validate(files: tuple[str, ...], fmt: str, sets: tuple[str, ...],
             extends_roots: tuple[str, ...], games: int | None) -> None:
    """Check game files against the schema and the semantic rules (and tests files,
    *.tests.yaml, against theirs: docs/tests.md).

    Exit code 0 when every file is valid (and, with --simulate, every game went well),
    1 when one is not, 2 for a usage error.
    """
    import rulekit
    from rulekit.check import check_game
    from rulekit.scenarios.suite import is_tests_file, load_suite
    from rulekit.spec.params import parse_set_options

    try:
        overrides = parse_set_options(list(sets)) if sets else None
    except GameFileError as exc:
        raise click.BadParameter("; ".join(d.message + (f" ({d.hint})" if d.hint else "")
                                           for d in exc.diagnostics),
                                 param_hint="'--set'") from None
    results = []
    for file in files:
        diagnostics: list[Diagnostic] = []
        report = None
        try:
            if is_tests_file(file):  # rule tests beside the games: checked, not simulated
                load_suite(file, extends_roots)
                results.append((file, diagnostics, report))
                continue
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
            if games:
                report = check_game(game, games)
        results.append((file, diagnostics, report))

    if fmt == "json":
        out = []
        for f, ds, report in results:
            entry: dict[str, Any] = {"file": f, "valid": not ds,
                                     "diagnostics": [d.as_dict() for d in ds]}
            if report is not None:
                entry["simulation"] = report.as_dict()
            out.append(entry)
        click.echo(json.dumps(out, indent=2))
    else:
        for f, ds, report in results:
            if not ds:
                click.echo(f"{printable(f)}: ok")
            for d in ds:
                click.echo(d.format())
            if report is not None:
                for problem in report.problems:
                    click.echo(printable(problem.format()))
                click.echo(printable(report.summary()))
    if any(ds or (report is not None and not report.ok) for _, ds, report in results):
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
@_set_option
@_extends_option
def compile_(file: str, sets: tuple[str, ...], extends_roots: tuple[str, ...]) -> None:
    """Show the Python code generated for FILE's hot parts, for debugging a game's speed.

    Each function is headed by the place in the file it comes from; parts not shown run
    on the engine's general (slower) path.
    """
    with _user_errors():
        game = _load(file, sets, extends_roots)
        if not game.generated:
            click.echo(f"# {printable(file)}: no part of this game is generated code")
        for source in game.generated:
            click.echo(printable(source, newlines=True))


# ---- simulate ----------------------------------------------------------------------------------
@main.command()
@click.argument("file", type=click.Path())
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True,
              help="how many games to play")
@click.option("--players", type=int, default=None,
              help="players per game  [default: the game's minimum]")
@_bots_option
@_seed_option
@_set_option
@_extends_option
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def simulate(file: str, games: int, players: int | None, bots: list[str], seed: int,
             sets: tuple[str, ...], extends_roots: tuple[str, ...], as_json: bool) -> None:
    """Let bots play many games and report win rates, scores, length and how games ended."""
    from rulekit.simulate import simulate as run

    with _user_errors():
        game = _load(file, sets, extends_roots)
        n = _players(game, players)
        if games >= 50 and is_tty(sys.stderr):
            with click.progressbar(length=games, label="simulating", file=sys.stderr) as bar:
                report = run(game, games, n, bots, seed, progress=bar.update)
        else:
            report = run(game, games, n, bots, seed)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(format_report(report))


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _mean_sd(s: dict) -> str:
    return f"{s['mean']:7.1f} ± {s['stdev']:<5.1f}"


def format_report(r: dict) -> str:
    """The simulation report as a few aligned tables, for reading in a terminal (names
    from the game file with their control characters escaped)."""
    lines = [
        f"{printable(r['game'])}: {r['games']} games, {r['players']} players, "
        f"bots {', '.join(r['bots'])}, seed {r['seed']} ({r['seconds']:.2f} s)",
    ]
    if r["params"]:
        params = ", ".join(f"{printable(k)}={json.dumps(v)}" for k, v in r["params"].items())
        lines.append(f"params: {params}")
    lines += ["", "seat  win rate  score mean ± sd     min    max"]
    for s in r["by_seat"]:
        sc = s["score"]
        lines.append(f"{s['seat']:>4}  {_pct(s['win_rate']):>8}  {_mean_sd(sc):<17}"
                     f"{sc['min']:>6} {sc['max']:>6}")
    width = max(len("bot"), *(len(b["bot"]) for b in r["by_bot"]))
    lines += ["", f"{'bot':<{width}}  seat-games  win rate  score mean ± sd     min    max"]
    for b in r["by_bot"]:
        sc = b["score"]
        lines.append(f"{b['bot']:<{width}}  {b['seat_games']:>10}  {_pct(b['win_rate']):>8}  "
                     f"{_mean_sd(sc):<17}{sc['min']:>6} {sc['max']:>6}")
    t, d = r["length"]["turns"], r["length"]["decisions"]
    lines += [
        "",
        f"game length: {t['mean']:.1f} turns (min {t['min']}, max {t['max']}); "
        f"{d['mean']:.1f} decisions per game (min {d['min']}, max {d['max']})",
        "",
        "how games ended:",
    ]
    reasons = {printable(k): v for k, v in r["end_reasons"].items()}
    width = max((len(k) for k in reasons), default=0)
    for reason, count in reasons.items():
        lines.append(f"  {reason:<{width}}  {count:>6}  {_pct(count / r['games'])}")
    return "\n".join(lines)


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
@click.option("--json", "as_json", is_flag=True, help="print the ladder as JSON")
def ladder(file: str, bots: list[str], games: int, players: int | None, seed: int,
           sets: tuple[str, ...], extends_roots: tuple[str, ...], as_json: bool) -> None:
    """Rate bots against each other: round-robin games, Bradley-Terry ratings (Elo scale,
    the first bot at 0) with 95% intervals, and head-to-head rates."""
    from rulekit.ladder import format_ladder
    from rulekit.ladder import ladder as run

    with _user_errors():
        game = _load(file, sets, extends_roots)
        n = _players(game, players)
        report = run(game, bots, games, n, seed)
    click.echo(json.dumps(report, indent=2) if as_json else format_ladder(report))


# ---- play --------------------------------------------------------------------------------------
_no_color_option = click.option("--no-color", is_flag=True,
                                 help="plain text, even in a terminal that shows colours")
_record_option = click.option(
    "--record-test", "record_test", type=click.Path(dir_okay=False), default=None,
    metavar="FILE", help="write the game as a scenario for `rulekit test` (docs/tests.md): its "
                         "chance outcomes, decisions, legal labels and final scores")


class _Recorder(LogFile):
    """`--log` and `--record-test`: both written from the game when it ends or stops."""

    def __init__(self, path: str | None, game_file: str, overrides: dict[str, Any],
                 test_file: str | None) -> None:
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


@main.command()
@click.argument("file", type=click.Path())
@click.option("--players", type=int, default=None,
              help="players in the game  [default: the game's minimum]")
@click.option("--seat", type=int, default=0, show_default=True, help="the seat you play")
@_bots_option
@_seed_option
@_set_option
@_extends_option
@click.option("--auto", is_flag=True, help="bots play every seat, you only watch")
@click.option("--level", "first_level", type=click.IntRange(min=1), default=1,
              show_default=True, help="for a game with levels: the level to start at")
@click.option("--log", "log_file", type=click.Path(dir_okay=False), default=None,
              help="write the game's log (JSON lines) to this file, for `rulekit replay`; "
                   "in a series of levels it holds the level played last")
@_record_option
@_no_color_option
def play(file: str, players: int | None, seat: int, bots: list[str], seed: int,
         sets: tuple[str, ...], extends_roots: tuple[str, ...], auto: bool, first_level: int,
         log_file: str | None, record_test: str | None, no_color: bool) -> None:
    """Play a game in the terminal against bots; choices are read from stdin.

    Type the number of a choice or its label; `?` explains the choices, `quit` or end
    of input stops the game. A game file with `levels:` is played as a series: each
    level passed opens the next.
    """
    from rulekit.simulate import derive_seed
    from rulekit.spec.params import parse_set_options

    paint = Paint(colour_wanted(no_color))
    with _user_errors():
        game = _load(file, sets, extends_roots)
        overrides = parse_set_options(list(sets)) if sets else {}
        n = _players(game, players)
        if not auto and not 0 <= seat < n:
            raise click.BadParameter(f"there are seats 0 to {n - 1}, not {seat}",
                                     param_hint="'--seat'")
        human = None if auto else seat
        log = _Recorder(log_file, file, overrides, record_test)
        if game.levels:
            if first_level > len(game.levels):
                raise click.BadParameter(f"{printable(game.name)} has levels 1 to "
                                         f"{len(game.levels)}",
                                         param_hint="'--level'")
            play_levels(game, n, seat, human, bots, seed, first_level, paint, log)
            return
        agents, who = seat_agents(n, human, bots)
        state = game.new_game(players=n, seed=seed)
        rng = random.Random(derive_seed(seed, "bots", "play"))
        # the seed deals every hidden part: a game with any is told its seed at the end
        seed_note = "" if hides_information(game) else f"; seed {seed}"
        click.echo(paint(f"{game.name}, {n} players: ", bold=True)
                   + ", ".join(who[s] for s in range(n)) + seed_note)
        echo_description(game, human)
        session = Session(state, who, paint, human, agents, rng, game.name)
        if run_session(session, log, "the game stops at"):
            echo_result(session)
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
        raise EndOfInput
    return step


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
