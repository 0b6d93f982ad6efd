"""The `rulekit` command: validate, simulate and play game files from the terminal.

A user's mistake (a bad file, a bad `--set`, an unknown bot) ends with one clear
message on stderr and exit code 1; click's own usage errors exit with 2. No
Python traceback for anything a user can cause.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import sys
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click

from rulekit.agents import Agent, known_agents, make_agent
from rulekit.errors import Diagnostic, GameFileError, RulekitError


# ---- shared helpers ----------------------------------------------------------------------------
def _print_error(exc: RulekitError) -> None:
    if isinstance(exc, GameFileError) and exc.diagnostics:
        for d in exc.diagnostics:
            click.echo(d.format(), err=True)
    else:
        click.echo(f"error: {exc}", err=True)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn any `RulekitError` into its message on stderr and exit code 1."""
    try:
        yield
    except RulekitError as exc:
        _print_error(exc)
        raise click.exceptions.Exit(1) from None


def _parse_bots(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    """`random,greedy` -> ['random', 'greedy']; an unknown name is a usage error."""
    names = [n.strip().lower() for n in value.split(",")]
    if not names or any(not n for n in names):
        raise click.BadParameter(f"expected bot names separated by commas, e.g. "
                                 f"{','.join(known_agents())}")
    for name in names:
        try:
            make_agent(name)
        except RulekitError as exc:
            raise click.BadParameter(str(exc)) from None
    return names


def _load(file: str, sets: Sequence[str]) -> Any:
    """The game with `--set` overrides; errors are RulekitErrors for `_user_errors`."""
    import rulekit
    from rulekit.spec.params import parse_set_options

    overrides = parse_set_options(list(sets)) if sets else None
    return rulekit.load_game(file, overrides=overrides)


def _players(game: Any, players: int | None) -> int:
    if players is None:
        return game.min_players
    if not game.min_players <= players <= game.max_players:
        raise RulekitError(f"{game.name} is for {game.min_players} to {game.max_players} "
                           f"players, not {players}")
    return players


_bots_option = click.option(
    "--bots", default="random", show_default=True, callback=_parse_bots,
    help=f"bots by name, comma-separated, assigned to seats in turn ({', '.join(known_agents())})")
_set_option = click.option(
    "--set", "sets", multiple=True, metavar="NAME=VALUE",
    help="override a param of the game; the value is read as YAML (repeatable)")
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
@click.option("--simulate", "games", type=click.IntRange(min=1), default=None, metavar="N",
              help="after the checks, play N random games per valid file (seeds 0..N-1, the "
                   "player counts in turn) and report games that never end, decisions without "
                   "a legal option, failures and scores outside score_bounds")
def validate(files: tuple[str, ...], fmt: str, sets: tuple[str, ...], games: int | None) -> None:
    """Check game files against the schema and the semantic rules.

    Exit code 0 when every file is valid (and, with --simulate, every game went well),
    1 when one is not, 2 for a usage error.
    """
    import rulekit
    from rulekit.check import check_game
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
            game = rulekit.load_game(file, overrides=overrides)
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
                click.echo(f"{f}: ok")
            for d in ds:
                click.echo(d.format())
            if report is not None:
                for problem in report.problems:
                    click.echo(problem.format())
                click.echo(report.summary())
    if any(ds or (report is not None and not report.ok) for _, ds, report in results):
        raise click.exceptions.Exit(1)


# ---- schema ------------------------------------------------------------------------------------
@main.command()
def schema() -> None:
    """Print the JSON Schema of game files (for editors and other tools)."""
    from rulekit.spec.schema import schema_text

    click.echo(schema_text())


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
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
def simulate(file: str, games: int, players: int | None, bots: list[str], seed: int,
             sets: tuple[str, ...], as_json: bool) -> None:
    """Let bots play many games and report win rates, scores, length and how games ended."""
    from rulekit.simulate import simulate as run

    with _user_errors():
        game = _load(file, sets)
        n = _players(game, players)
        if games >= 50 and _is_tty(sys.stderr):
            with click.progressbar(length=games, label="simulating", file=sys.stderr) as bar:
                report = run(game, games, n, bots, seed, progress=bar.update)
        else:
            report = run(game, games, n, bots, seed)
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(format_report(report))


def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _mean_sd(s: dict) -> str:
    return f"{s['mean']:7.1f} ± {s['stdev']:<5.1f}"


def format_report(r: dict) -> str:
    """The simulation report as a few aligned tables, for reading in a terminal."""
    lines = [
        f"{r['game']}: {r['games']} games, {r['players']} players, "
        f"bots {', '.join(r['bots'])}, seed {r['seed']} ({r['seconds']:.2f} s)",
    ]
    if r["params"]:
        params = ", ".join(f"{k}={json.dumps(v)}" for k, v in r["params"].items())
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
    width = max((len(k) for k in r["end_reasons"]), default=0)
    for reason, count in r["end_reasons"].items():
        lines.append(f"  {reason:<{width}}  {count:>6}  {_pct(count / r['games'])}")
    return "\n".join(lines)


# ---- play --------------------------------------------------------------------------------------
class _EndOfInput(Exception):
    """stdin is exhausted, or the person typed `quit`: the game stops."""


class _Paint:
    """Colours for the terminal, or plain text: styles are added only when `on`."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, **style: Any) -> str:
        return click.style(text, **style) if self.on else text


def _colour_wanted(no_color: bool) -> bool:
    """Colour when stdout is a terminal that shows it, unless `--no-color` or NO_COLOR says no."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return not click.utils.should_strip_ansi(sys.stdout)


_no_color_option = click.option("--no-color", is_flag=True,
                                 help="plain text, even in a terminal that shows colours")


@main.command()
@click.argument("file", type=click.Path())
@click.option("--players", type=int, default=None,
              help="players in the game  [default: the game's minimum]")
@click.option("--seat", type=int, default=0, show_default=True, help="the seat you play")
@_bots_option
@_seed_option
@_set_option
@click.option("--auto", is_flag=True, help="bots play every seat, you only watch")
@click.option("--level", "first_level", type=click.IntRange(min=1), default=1,
              show_default=True, help="for a game with levels: the level to start at")
@click.option("--log", "log_file", type=click.Path(dir_okay=False), default=None,
              help="write the game's log (JSON lines) to this file, for `rulekit replay`; "
                   "in a series of levels it holds the level played last")
@_no_color_option
def play(file: str, players: int | None, seat: int, bots: list[str], seed: int,
         sets: tuple[str, ...], auto: bool, first_level: int, log_file: str | None,
         no_color: bool) -> None:
    """Play a game in the terminal against bots; choices are read from stdin.

    Type the number of a choice or its label; `?` explains the choices, `quit` or end
    of input stops the game. A game file with `levels:` is played as a series: each
    level passed opens the next.
    """
    from rulekit.simulate import derive_seed
    from rulekit.spec.params import parse_set_options

    paint = _Paint(_colour_wanted(no_color))
    with _user_errors():
        game = _load(file, sets)
        overrides = parse_set_options(list(sets)) if sets else {}
        n = _players(game, players)
        if not auto and not 0 <= seat < n:
            raise click.BadParameter(f"there are seats 0 to {n - 1}, not {seat}",
                                     param_hint="'--seat'")
        human = None if auto else seat
        log = _LogFile(log_file, file, overrides)
        if game.levels:
            if first_level > len(game.levels):
                raise click.BadParameter(f"{game.name} has levels 1 to {len(game.levels)}",
                                         param_hint="'--level'")
            _play_levels(game, n, seat, human, bots, seed, first_level, paint, log)
            return
        agents, who = _seat_agents(n, human, bots)
        state = game.new_game(players=n, seed=seed)
        rng = random.Random(derive_seed(seed, "bots", "play"))
        click.echo(paint(f"{game.name}, {n} players: ", bold=True)
                   + ", ".join(who[s] for s in range(n)) + f"; seed {seed}")
        _echo_description(game, human)
        session = _Session(state, who, paint, human, agents, rng, game.name)
        if _run_session(session, log, "the game stops at"):
            _echo_result(session)
            log.write(state)


class _LogFile:
    """Where `--log` writes the game's log: at its end, and when it stops early.

    The log names a relative game file relative to itself, so that `rulekit replay`
    finds it from anywhere as long as the two stay together.
    """

    def __init__(self, path: str | None, game_file: str, overrides: dict[str, Any]) -> None:
        self.path = path
        self.game_file = game_file
        self.overrides = overrides
        if path is None:
            return
        if not os.path.isabs(game_file):
            try:
                self.game_file = os.path.relpath(game_file, os.path.dirname(os.path.abspath(path)))
            except ValueError:  # another drive
                self.game_file = os.path.abspath(game_file)
        try:  # a log that cannot be written is said before the game, not after it
            open(path, "a", encoding="utf-8").close()
        except OSError as exc:
            raise RulekitError(f"cannot write the log {path}: {exc.strerror}") from None

    def write(self, state: Any) -> None:
        if self.path is None:
            return
        from rulekit.replay import log_text

        try:
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(log_text(state, self.game_file, self.overrides))
        except OSError as exc:
            raise RulekitError(f"cannot write the log {self.path}: {exc.strerror}") from None
        click.echo(f"log written to {self.path}")


def _run_session(session: _Session, log: _LogFile, stops: str) -> bool:
    """Play the session to its end (True), or stop it cleanly on end of input or Ctrl-C
    and write the log so far."""
    state = session.state
    try:
        session.run()
    except (_EndOfInput, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            why = "interrupted"
        else:
            why = "you quit" if str(exc) == "quit" else "end of input"
        click.echo(f"\n{why}: {stops} turn {state.turn}.")
        log.write(state)
        return False
    return True


def _echo_description(game: Any, human: int | None) -> None:
    """The game's description and, for a person, how to answer."""
    text = " ".join(str(game.spec.get("description") or "").split())
    if text:
        click.echo(textwrap.fill(text, 88))
    if human is not None:
        click.echo("Type the number of a choice or its label; '?' explains the choices, "
                   "'quit' stops.")


def _seat_agents(n: int, human: int | None, bots: Sequence[str],
                 ) -> tuple[dict[int, Agent], dict[int, str]]:
    """A bot for every seat but the person's (bots assigned in turn), and each seat's name."""
    agents: dict[int, Agent] = {}
    bot_names: dict[int, str] = {}
    bot_seats = [s for s in range(n) if s != human]
    for k, s in enumerate(bot_seats):
        bot_names[s] = bots[k % len(bots)]
        agents[s] = make_agent(bot_names[s])
    who = {s: (f"player {s} ({bot_names[s]})" if s in bot_names else f"player {s} (you)")
           for s in range(n)}
    return agents, who


class _Session:
    """One game in the terminal: each event as it happens, pictures, the person's choices.

    Bots and chance move by themselves, and each move is shown with the score it made;
    a person is asked through stdin. `decide` and `chance`, when given, replace both
    (a replay feeds the logged steps). The picture is shown before each of the
    person's decisions, or after every turn when nobody plays in person.
    """

    def __init__(self, state: Any, who: dict[int, str], paint: _Paint, human: int | None = None,
                 agents: dict[int, Agent] | None = None, rng: random.Random | None = None,
                 title: str = "", pictures: bool = True) -> None:
        self.state = state
        self.who = who
        self.paint = paint
        self.human = human
        self.agents = agents or {}
        self.rng = rng or random.Random(0)
        self.title = title
        self.pictures = pictures
        self.viewer = human
        self.shown = 0
        self.scores = state.scores()
        self.picture = ""
        self.turn: int | None = None
        # outcomes of secret chance steps (a deal into hidden hands) are never shown
        self.secret = frozenset(name for kind in state.game.components
                                for name, c in type(kind).chances.items() if not c.public)

    def run(self, decide: Any = None, chance: Any = None) -> None:
        st = self.state
        self._report(None)
        while not st.is_over:
            if st.turn != self.turn:
                if self.pictures and self.human is None and self.turn:
                    self.show_picture(f"after turn {self.turn}")
                self.turn = st.turn
                head = f"turn {st.turn}: {self._name(st.active)}" if st.turn else "setup"
                click.echo("\n" + self.paint(f"--- {head} ---", bold=True))
            if st.is_chance:
                if chance is not None:
                    chance(st)
                else:
                    st.resolve_chance()
                self._report(None)
                continue
            seat = st.current_player
            if decide is not None:
                label = decide(st)
            elif seat == self.human:
                label = self._ask(seat)
            else:
                label = self.agents[seat].choose(st, self.rng).label
            st.apply(label)
            self._report(seat)

    # ---- what happened -------------------------------------------------------------------
    def _name(self, seat: int | None) -> str:
        return self.who.get(seat, f"player {seat}") if seat is not None else "nobody"

    def _report(self, mover: int | None) -> None:
        """The log entries added since the last report, with the scores they changed."""
        st = self.state
        entries = st.log[self.shown:]
        self.shown = len(st.log)
        new = st.scores()
        delta = {s: new[s] - old for s, old in enumerate(self.scores) if new[s] != old}
        self.scores = new
        for i, entry in enumerate(entries):
            line = self._describe(entry)
            if i == 0 and mover is not None and mover in delta:
                line += "  " + self._delta(delta.pop(mover), new[mover], "({})")
            click.echo(line)
        for s, d in delta.items():  # effects that resolved now, or that hit other players
            click.echo(f"  {self._name(s)}: {self._delta(d, new[s])}")

    def _delta(self, d: int, now: int, form: str = "{}") -> str:
        return self.paint(form.format(f"{d:+d}, score {now}"), fg="green" if d > 0 else "red")

    def _describe(self, entry: dict) -> str:
        if "chance" in entry:
            name = entry["chance"]
            if name in self.secret:
                return self.paint(f"{name}: done (hidden)", dim=True)
            outcome = entry.get("outcome")
            if isinstance(outcome, dict):
                text = ", ".join(f"{k} {v}" for k, v in outcome.items())
            else:
                text = json.dumps(outcome)
                if len(text) > 80 and isinstance(outcome, list):
                    text = f"{len(outcome)} items"
            return f"{name}: {text}"
        if "action" in entry:
            seat = entry.get("seat")
            forced = " (forced)" if entry.get("forced") else ""
            line = f"{self._name(seat)}: {entry['action']}{forced}"
            return self.paint(line, bold=True) if seat == self.human else line
        if "say" in entry:
            return str(entry["say"])
        return json.dumps(entry)

    # ---- the picture ---------------------------------------------------------------------
    def show_picture(self, when: str = "") -> None:
        """The game as the viewer may see it; not again when nothing changed since."""
        st = self.state
        text = st.render(self.viewer)
        if text == self.picture:
            return
        self.picture = text
        when = when or (f"the end, after turn {st.turn}" if st.is_over else f"turn {st.turn}")
        head = f"== {self.title}, {when} =="
        click.echo("\n" + self.paint(head, fg="cyan", bold=True))
        for line in text.split("\n"):
            click.echo(self.paint(line, bold=True) if line.startswith("player ") else line)

    # ---- the person's choice -------------------------------------------------------------
    def _ask(self, seat: int) -> str:
        """The label the person picks; asks again, saying why, until it is a legal one."""
        st = self.state
        labels = [a.label for a in st.legal_actions()]
        self.show_picture()
        click.echo(self.paint(f"\n{self._name(seat)}, your choice ('?' explains):", bold=True))
        self._list(labels)
        while True:
            click.echo("> ", nl=False)
            line = sys.stdin.readline()
            if not line:
                raise _EndOfInput
            text = " ".join(line.split())
            if not _is_tty(sys.stdin):
                click.echo(text)  # a pipe is not echoed: keep the transcript legible
            if not text:
                continue
            if text.lower() in ("?", "help") and text not in labels:
                self._help(labels)
                continue
            if text.lower() in ("quit", "exit") and text not in labels:
                raise _EndOfInput("quit")
            label, why = _match(text, labels)
            if label is not None:
                if label != text:
                    click.echo(f"  = {label}")
                return label
            click.echo(self.paint(why, fg="yellow"))

    def _list(self, labels: list[str]) -> None:
        for i, label in enumerate(labels, 1):
            click.echo(f"  {self.paint(f'{i:>2}.', fg='cyan')} {label}")

    def _help(self, labels: list[str]) -> None:
        text = self.state.decision_help()
        if text:
            click.echo(textwrap.fill(" ".join(text.split()), 88))
        click.echo(textwrap.fill(
            f"Type a number from 1 to {len(labels)} or a label as listed (in any case; the "
            "first words of a label do when they fit one choice only). '#N' is always the "
            "number N, '=TEXT' the label TEXT; 'quit' stops the game.", 88))
        self._list(labels)


def _match(text: str, labels: list[str]) -> tuple[str | None, str]:
    """The label a person means by `text`, or None and why it is not a choice."""
    n = len(labels)
    how = f"Type a number from 1 to {n} or a label as listed; '?' explains."
    if text.startswith("#") and text[1:].isdigit():
        k = int(text[1:])
        if 1 <= k <= n:
            return labels[k - 1], ""
        return None, f"{k} is not a legal choice. {how}"
    if text.startswith("=") and len(text) > 1:
        text = text[1:].strip()
        return (text, "") if text in labels else (None, f"{text!r} is not a legal choice. {how}")
    lower = text.lower()
    folded = [label for label in labels if label.lower() == lower]
    by_label = text if text in labels else (folded[0] if len(folded) == 1 else None)
    if text.isdigit():
        k = int(text)
        by_number = labels[k - 1] if 1 <= k <= n else None
        if by_number is not None and by_label is not None and by_number != by_label:
            return None, (f"{k} is ambiguous: choice {k} is '{by_number}', and '{by_label}' is "
                          f"choice {labels.index(by_label) + 1}. Type #{k} for the number or "
                          f"={by_label} for the label.")
        if by_number is not None or by_label is not None:
            return by_number or by_label, ""
        return None, f"{k} is not a legal choice. {how}"
    if by_label is not None:
        return by_label, ""
    starts = [label for label in labels if label.lower().startswith(lower + " ")]
    if len(starts) == 1:
        return starts[0], ""
    if starts:
        return None, (f"'{text}' fits {len(starts)} choices: {', '.join(starts)}. Type the whole "
                      "label or its number.")
    close = difflib.get_close_matches(text, labels, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return None, f"{text!r} is not a legal choice now.{hint} {how}"


def _echo_result(session: _Session) -> None:
    """The final position as the viewer may see it, the scores, the winners, the end."""
    state, who, paint = session.state, session.who, session.paint
    session.show_picture()
    scores = state.scores()
    winners = state.winners()
    click.echo("")
    click.echo(paint("scores: ", bold=True)
               + ", ".join(f"{who[s]} {scores[s]}" for s in range(state.n)))
    label = "winner" if len(winners) == 1 else "winners (shared)"
    click.echo(paint(f"{label}: " + ", ".join(who[s] for s in winners), fg="green", bold=True))
    click.echo(f"game ended by: {_end_reason(state)} after {state.turn} turns")


def _end_reason(state: Any) -> str:
    """The end condition's name, with its rule from the game file when that says more."""
    reason = state.end_reason
    if reason is None:
        return "the flow running out"
    when = (state.game.spec.get("end") or {}).get("when")
    rule = when.get(reason) if isinstance(when, dict) else when
    rule = " ".join(str(rule).split()) if rule is not None else ""
    return f"{reason} ({rule})" if rule and rule != reason else reason


def _play_levels(game: Any, n: int, seat: int, human: int | None, bots: list[str], seed: int,
                 first: int, paint: _Paint, log: _LogFile) -> None:
    """Play the file's levels in turn, for the person at `seat`.

    A level passes when that seat's score is greater than the level's `min_score`; then
    the next level starts. Failing a level, or passing the last, ends the series with a
    summary. A level's `bots` (a name or a list, one per computer seat in turn) replace
    `--bots`; every level is a new game with its own seed derived from `seed`.
    """
    from rulekit.simulate import derive_seed

    levels = game.levels
    results: list[tuple[int, str, int, int, bool]] = []
    for i in range(first, len(levels) + 1):
        level = levels[i - 1]
        name = str(level.get("name") or f"level {i}")
        minimum = int(level.get("min_score", 0))
        level_bots = level.get("bots") or bots
        if isinstance(level_bots, str):
            level_bots = [level_bots]
        agents, who = _seat_agents(n, human, level_bots)
        level_seed = derive_seed(seed, "level", i)
        click.echo(paint(f"\n=== {game.name}, level {i} of {len(levels)}: {name}; "
                         f"score more than {minimum} to pass ===", fg="cyan", bold=True))
        click.echo(", ".join(who[s] for s in range(n)) + f"; seed {level_seed}")
        if i == first:
            _echo_description(game, human)
        state = game.new_game(players=n, seed=level_seed)
        rng = random.Random(derive_seed(seed, "bots", "play", i))
        title = f"{game.name}, level {i} of {len(levels)} ({name})"
        session = _Session(state, who, paint, human, agents, rng, title)
        if not _run_session(session, log, f"the series stops at level {i},"):
            _echo_series(game, results, stopped=True)
            return
        _echo_result(session)
        log.write(state)
        score = state.scores()[seat]
        passed = score > minimum
        results.append((i, name, score, minimum, passed))
        verdict = paint("passed", fg="green") if passed else paint("failed", fg="red")
        click.echo(f"level {i} ({name}) {verdict}: level score {score}, minimum {minimum}")
        if not passed:
            break
    _echo_series(game, results, stopped=False)


def _echo_series(game: Any, results: list[tuple[int, str, int, int, bool]],
                 stopped: bool) -> None:
    """The summary of a series of levels: each level played, and how far the person got."""
    total = len(game.levels)
    passed = sum(1 for r in results if r[4])
    click.echo("\n=== series summary ===")
    for i, name, score, minimum, ok in results:
        click.echo(f"  level {i} {name}: {score} (minimum {minimum}) "
                   f"{'passed' if ok else 'failed'}")
    if stopped:
        click.echo(f"series stopped after {passed} level(s) passed")
    elif results and all(r[4] for r in results) and results[-1][0] == total:
        click.echo(f"series complete: the last level ({total}) passed")
    else:
        click.echo(f"series over: {passed} level(s) passed of {total}")


# ---- replay ------------------------------------------------------------------------------------
@main.command()
@click.argument("log", type=click.Path())
@click.option("--game", "game_file", type=click.Path(), default=None,
              help="the game file  [default: the log's, found from here or next to the log]")
@_no_color_option
def replay(log: str, game_file: str | None, no_color: bool) -> None:
    """Rebuild a logged game exactly and print its course and result.

    Exit code 1 when the log does not fit the game file; the message names the log's
    first line that does not fit.
    """
    import rulekit
    from rulekit.replay import read_log, rebuild

    paint = _Paint(_colour_wanted(no_color))
    with _user_errors():
        glog = read_log(log)
        path = game_file or _game_of_log(glog.game, log)
        game = rulekit.load_game(path, overrides=glog.overrides or None)
        rebuild(game, glog)  # the whole log must fit before any of it is shown
        state = game.new_game(players=glog.players, seed=glog.seed)
        click.echo(paint(f"{game.name}, {state.n} players; replay of {log}", bold=True))
        steps = iter([e for e in glog.entries if "chance" in e
                      or ("action" in e and not e.get("forced"))])
        session = _Session(state, {s: f"player {s}" for s in range(state.n)}, paint,
                           title=f"{game.name}, replay", pictures=False)
        try:
            session.run(decide=lambda st: _next_step(steps)["action"],
                        chance=lambda st: st.resolve_chance(_next_step(steps).get("outcome")))
        except _EndOfInput:
            pass
        if state.is_over:
            _echo_result(session)
        else:
            session.show_picture()
            click.echo(f"\nthe log stops at turn {state.turn}: the game is not over")
            click.echo("scores so far: " + ", ".join(f"player {s} {x}"
                                                     for s, x in enumerate(state.scores())))


def _next_step(steps: Iterator[dict]) -> dict:
    """The next logged chance outcome or decision; a log that stops early stops the replay."""
    step = next(steps, None)
    if step is None:
        raise _EndOfInput
    return step


def _game_of_log(game: str, log: str) -> str:
    """The log's game file: as written (from the current directory), else next to the log."""
    if os.path.isfile(game):
        return game
    beside = os.path.join(os.path.dirname(log), game)
    if not os.path.isabs(game) and os.path.isfile(beside):
        return beside
    raise RulekitError(f"{log}:1: the log's game file {game!r} is not found here or next to "
                       "the log; name it with --game")


if __name__ == "__main__":
    main()
