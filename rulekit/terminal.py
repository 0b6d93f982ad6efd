"""A person at the terminal: the pictures, the prompts, and the loop of a session.

`rulekit play` and `rulekit replay` drive games through this module; it uses the
public State API only, and shows each seat only what that seat may see.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import secrets
import sys
import threading
from collections.abc import Sequence
from typing import Any

import click

from rulekit.agents import Agent, make_agent
from rulekit.errors import RulekitError
from rulekit.layout import columns, compact_picture, fit, height, wrap
from rulekit.text import printable

#: seconds a bot may think before a person playing is told that it is thinking
THINKING_NOTE_AFTER = 0.3


def is_tty(stream: Any) -> bool:
    """Whether a stream is a terminal (a closed or odd stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class EndOfInput(Exception):
    """stdin is exhausted, or the person typed `quit`: the game stops."""


class Paint:
    """Colours for the terminal, or plain text: styles are added only when `on`.

    The text is one line; its control characters are escaped before the colours are
    added, so a game's text never carries its own escape sequences to the terminal.
    """

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, **style: Any) -> str:
        text = printable(text)
        return click.style(text, **style) if self.on else text

    def tint(self, line: str) -> str:
        """A line whose first word names a colour (a row, a die, a choice `red 7`) with that
        word in its colour; any other line as it is."""
        line = printable(line)
        word = line.split(" ", 1)[0] if not line.startswith(" ") else line.split()[0]
        if not self.on or word not in _COLOURS:
            return line
        at = line.index(word)
        return line[:at] + click.style(word, fg=word, bold=True) + line[at + len(word):]


#: the colours a terminal shows, by the names a game may give its rows or dice
_COLOURS = frozenset({"red", "green", "yellow", "blue", "magenta", "cyan", "white"})


def echo_headed(paint: Paint, head: str, rest: str) -> None:
    """A line that starts with a bold head, wrapped to the terminal's width."""
    text = wrap(printable(head + rest), later="  ")
    click.echo(paint(text[:len(head)], bold=True) + text[len(head):] if text.startswith(head)
               else text)


def colour_wanted(no_color: bool) -> bool:
    """Colour when stdout is a terminal that shows it, unless `--no-color` or NO_COLOR says no."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return not click.utils.should_strip_ansi(sys.stdout)


class LogFile:
    """Where `--log` writes the game's log: at its end, and when it stops early.

    The log names the game file relative to itself, so that `rulekit replay` finds it
    from anywhere as long as the two stay together (it reads a game file the log names
    only in the log's folder or below).
    """

    def __init__(self, path: str | None, game_file: str, overrides: dict[str, Any]) -> None:
        self.path = path
        self.game_file = game_file
        self.overrides = overrides
        if path is None:
            return
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
        click.echo(f"log written to {printable(self.path)}")


def run_session(session: Session, log: LogFile, stops: str) -> bool:
    """Play the session to its end (True), or stop it cleanly on end of input (False) or
    Ctrl-C (exit code 130), and write the log so far."""
    state = session.state
    try:
        session.run()
    except (EndOfInput, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            why = "interrupted"
        else:
            why = "you quit" if str(exc) == "quit" else "end of input"
        click.echo(f"\n{why}: {stops} turn {state.turn}.")
        log.write(state)
        if isinstance(exc, KeyboardInterrupt):
            raise click.exceptions.Exit(130) from None
        return False
    return True


def echo_description(game: Any, human: int | None) -> None:
    """The game's description and, for a person, how to answer."""
    text = " ".join(str(game.spec.get("description") or "").split())
    if text:
        click.echo(wrap(printable(text)))
    if human is not None:
        click.echo(wrap("Type the number of a choice or its label; '?' explains the choices, "
                        "'show' shows every player in full, 'quit' stops."))


def seat_agents(n: int, human: int | None, bots: Sequence[str],
                 ) -> tuple[dict[int, Agent], dict[int, str]]:
    """A bot for every seat but the person's (bots assigned in turn), and each seat's name."""
    from rulekit.levels import bots_in_turn

    bot_names = bots_in_turn(n, human, bots)
    agents: dict[int, Agent] = {s: make_agent(name) for s, name in bot_names.items()}
    who = {s: (f"player {s} ({bot_names[s]})" if s in bot_names else f"player {s} (you)")
           for s in range(n)}
    return agents, who


class Session:
    """One game in the terminal: each event as it happens, pictures, the person's choices.

    Bots and chance move by themselves, and each move is shown with the score it made;
    a person is asked through stdin. `decide` and `chance`, when given, replace both
    (a replay feeds the logged steps). The picture is shown before each of the
    person's decisions, or after every turn when nobody plays in person.
    """

    def __init__(self, state: Any, who: dict[int, str], paint: Paint, human: int | None = None,
                 agents: dict[int, Agent] | None = None, rng: random.Random | None = None,
                 title: str = "", pictures: bool = True) -> None:
        self.state = state
        self.who = who
        self.paint = paint
        self.human = human
        self.agents = agents or {}
        self.rng = rng or random.Random(0)
        self.title = printable(title)
        self.pictures = pictures
        self.viewer = human
        self.shown = 0
        self.scores = state.scores()
        self.picture = ""
        self.lines = 0  # printed since the picture
        self.turn: int | None = None
        self.moves: dict[int | None, str] = {}  # each seat's last move this turn
        # outcomes of secret chance steps (a deal into hidden hands) are never shown
        self.secret = state.secret_chances()

    def run(self, decide: Any = None, chance: Any = None) -> None:
        st = self.state
        self._report(None)
        while not st.is_over:
            if st.turn != self.turn:
                if self.pictures and self.human is None and self.turn:
                    self.show_picture(f"after turn {self.turn}")
                self.turn = st.turn
                self.moves = {}
                head = f"turn {st.turn}: {self._name(st.active)}" if st.turn else "setup"
                self._echo("\n" + self.paint(f"--- {head} ---", bold=True))
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
                label = self._bot_choice(seat)
            st.apply(label)
            self._report(seat)

    def _bot_choice(self, seat: int) -> str:
        """The bot's move; a person waiting for it is told when it takes more than a moment."""
        choose = self.agents[seat].choose
        if self.human is None:
            return choose(self.state, self.rng).label
        note = threading.Timer(THINKING_NOTE_AFTER, click.echo,
                               [f"{self._name(seat)} is thinking..."])
        note.daemon = True
        note.start()
        try:
            return choose(self.state, self.rng).label
        finally:
            note.cancel()
            note.join()

    def _echo(self, text: str = "", nl: bool = True) -> None:
        """Print, counting the lines printed since the picture (`_ask` draws it again when
        they would push it off the screen)."""
        click.echo(text, nl=nl)
        self.lines += text.count("\n") + 1

    # ---- what happened -------------------------------------------------------------------
    def _name(self, seat: int | None) -> str:
        return self.who.get(seat, f"player {seat}") if seat is not None else "nobody"

    def _report(self, mover: int | None) -> None:
        """The log entries added since the last report, each score change with the move of
        that seat that made it, and the scoring at the end in a section of its own."""
        st = self.state
        # others' choices in a window of simultaneous decisions are told once it resolves
        hidden = st.hidden_choices(self.viewer)
        upto = max(self.shown, hidden[0]) if hidden else len(st.log)
        entries = st.log[self.shown:upto]
        self.shown = upto
        parts = st.end_scores()  # what the end added, by part (nothing while the game goes on)
        end = [sum(p.values()) for p in parts]
        new = [score - added for score, added in zip(st.scores(), end)]
        delta = {s: new[s] - old for s, old in enumerate(self.scores) if new[s] != old}
        self.scores = new
        # the mover's points go with the mover's move: the last of its choices told now
        # (others' choices told with it were held back until a window resolved)
        own = [i for i, e in enumerate(entries) if "action" in e and e.get("seat") == mover]
        at = own[-1] if own and mover is not None else None
        for i, entry in enumerate(entries):
            if entry.get("to", self.viewer) != self.viewer and self.viewer is not None:
                continue  # a private line to another seat
            line = self._describe(entry)
            if "action" in entry:
                self.moves[entry.get("seat")] = printable(str(entry["action"]))
            if i == at and mover in delta:
                line += "  (" + self._delta(delta.pop(mover), new[mover]) + ")"
            self._echo(line)
        for s, d in delta.items():  # effects that resolved now, or that hit other players
            move = self.moves.get(s)
            self._echo(f"  {self._name(s)}: {self._delta(d, new[s], move)}")
        if any(v for p in parts for v in p.values()):  # the scoring at the end: apart
            self._echo("\n" + self.paint("--- scoring at the end of the game ---", bold=True))
            for s, d in enumerate(end):
                made = [f"{v:+d} {name}" for name, v in parts[s].items() if v]
                if made:
                    total = f" (in all {d:+d})" if len(made) > 1 else ""
                    text = f"{self._name(s)}: {', '.join(made)}{total}, score {new[s] + d}"
                    for line in wrap(text, "  ", "    ").split("\n"):
                        self._echo(self.paint(line, fg="green" if d > 0 else "red"))

    def _delta(self, d: int, now: int, move: str | None = None) -> str:
        """A score change, with the move that made it when that is not on the same line."""
        made = f" for {move}" if move is not None else ""
        return self.paint(f"{d:+d}{made}, score {now}", fg="green" if d > 0 else "red")

    def _describe(self, entry: dict) -> str:
        line = describe_entry(entry, self._name, self.secret, observer=self.viewer is None)
        if entry.get("chance") in self.secret:
            return self.paint(line, dim=True)
        if "action" in entry and entry.get("seat") == self.human:
            return self.paint(line, bold=True)
        return line

    # ---- the picture ---------------------------------------------------------------------
    def show_picture(self, when: str = "", full: bool = False, again: bool = False) -> None:
        """The game as the viewer may see it; not again when nothing changed since (unless
        `again`). While a person plays, the others' blocks are one line each (unless
        `full`), so that the picture and the choices fit one screen."""
        st = self.state
        compact = self.viewer is not None and not st.is_over and not full
        text = st.render(self.viewer, compact=compact)
        text = fit(compact_picture(text, self.viewer) if compact else text)
        if text == self.picture and not full and not again:
            return
        self.picture = text
        when = when or (f"the end, after turn {st.turn}" if st.is_over else f"turn {st.turn}")
        self._echo("")
        for line in wrap(f"== {self.title}, {when} ==", later="   ").split("\n"):
            self._echo(self.paint(line, fg="cyan", bold=True))
        for line in text.split("\n"):
            line = printable(line)
            self._echo(self.paint(line, bold=True) if line.startswith("player ")
                       else self.paint.tint(line))
        self.lines = 0

    # ---- the person's choice -------------------------------------------------------------
    def _ask(self, seat: int) -> str:
        """The label the person picks; asks again, saying why, until it is a legal one."""
        st = self.state
        labels = [a.label for a in st.legal_actions()]
        title = " ".join(st.decision_title().split())
        head = wrap(title).split("\n") if title else []
        # the picture again if what was printed since would push its top off the screen;
        # below it a blank line, the title, the choices and the prompt
        below = 1 + max(len(head), 1) + len(columns(self._cells(labels))) + 1
        self.show_picture(again=self.picture.count("\n") + 2 + self.lines + below > height())
        if self.picture.count("\n") + 2 + self.lines + below <= height():
            self._echo("")  # the blank line only where the screen has room for it
        if title:  # what the decision is, right above the choices
            for line in head:
                self._echo(self.paint(line, fg="cyan", bold=True))
        else:
            self._echo(self.paint(f"{self._name(seat)}, your choice ('?' explains):", bold=True))
        self._list(labels)
        while True:
            self._echo("> ", nl=False)
            line = sys.stdin.readline()
            if not line:
                raise EndOfInput
            text = " ".join(line.split())
            if not is_tty(sys.stdin):
                self._echo(printable(text))  # a pipe is not echoed: keep the transcript legible
            if not text:
                continue
            if text.lower() in ("?", "help") and text not in labels:
                self._help(labels)
                continue
            if text.lower() == "show" and text not in labels:
                self.show_picture(full=True)
                self._list(labels)
                continue
            if text.lower() in ("quit", "exit") and text not in labels:
                raise EndOfInput("quit")
            label, why = match_label(text, labels)
            if label is not None:
                if label != text:
                    note = f"  ({why})" if why else ""
                    self._echo(printable(f"  = {label}{note}"))
                return label
            self._echo(self.paint(why, fg="yellow"))

    def _list(self, labels: list[str]) -> None:
        """The choices, numbered, in as many columns as fit (colour added after the layout)."""
        for row in columns(self._cells(labels)):
            self._echo("  " + "".join(self.paint(c[:c.index(".") + 1], fg="cyan")
                                      + self.paint.tint(c[c.index(".") + 1:]) for c in row))

    @staticmethod
    def _cells(labels: list[str]) -> list[str]:
        return [f"{i:>2}. {printable(label)}" for i, label in enumerate(labels, 1)]

    def _help(self, labels: list[str]) -> None:
        text = self.state.decision_help()
        if text:
            self._echo(wrap(printable(" ".join(text.split()))))
        self._echo(wrap(
            f"Type a number from 1 to {len(labels)} or a label as listed (in any case and "
            "spacing; the first words of a label do when they fit one choice only). A number "
            "is the choice listed with it; '=TEXT' is the label TEXT; 'show' shows every "
            "player's part in full; 'quit' stops the game."))
        self._list(labels)


def describe_entry(entry: dict, name: Any, secret: frozenset[str],
                   observer: bool = False) -> str:
    """A log entry as one line of text: a chance outcome (a secret one only as done), a
    decision with the name `name(seat)` gives its seat, a `say` line (one to a single
    player marked so for an `observer`, who sees every seat's lines)."""
    if "chance" in entry:
        chance = entry["chance"]
        if chance in secret:
            return printable(f"{chance}: done (hidden)")
        outcome = entry.get("outcome")
        if isinstance(outcome, dict):
            text = ", ".join(f"{k} {v}" for k, v in outcome.items())
        else:
            text = json.dumps(outcome)
            if len(text) > 80 and isinstance(outcome, list):
                text = f"{len(outcome)} items"
        return printable(f"{chance}: {text}")
    if "action" in entry:
        forced = " (forced)" if entry.get("forced") else ""
        return printable(f"{name(entry.get('seat'))}: {entry['action']}{forced}")
    if "say" in entry:
        if "to" in entry and observer:
            return printable(f"(to player {entry['to']} only) {entry['say']}")
        return printable(entry["say"])
    return json.dumps(entry)


def match_label(text: str, labels: list[str]) -> tuple[str | None, str]:
    """The label a person means by `text`, and a note; or None and why it is not a choice.

    A number from the list is that choice, even where a label is that number too (then the
    note says how to pick the label: `=TEXT`); labels match without regard to spacing or
    case (`5+5+6` is `5 + 5 + 6`), or by their first words when those fit one choice only.
    """
    n = len(labels)
    how = f"Type a number from 1 to {n} or a label as listed; '?' explains."
    if text.startswith("#") and text[1:].isdigit():
        k = int(text[1:])
        return (labels[k - 1], "") if 1 <= k <= n else (None, f"{k} is not a legal choice. {how}")
    if text.startswith("=") and len(text) > 1:
        wanted = _fold(text[1:])
        exact = [label for label in labels if _fold(label) == wanted]
        return ((exact[0], "") if exact
                else (None, f"{text[1:].strip()!r} is not a legal choice. {how}"))
    folded = [label for label in labels if _fold(label) == _fold(text)]
    by_label = text if text in labels else (folded[0] if len(folded) == 1 else None)
    if text.isdigit() and 1 <= int(text) <= n:
        k = int(text)
        note = ""
        if by_label is not None and by_label != labels[k - 1]:
            note = (f"choice {k}; the label '{by_label}' is choice "
                    f"{labels.index(by_label) + 1} (or type ={by_label})")
        return labels[k - 1], note
    if by_label is not None:
        return by_label, ""
    if text.isdigit():
        return None, f"{int(text)} is not a legal choice. {how}"
    lower = text.lower()
    starts = [label for label in labels if label.lower().startswith(lower + " ")]
    if len(starts) == 1:
        return starts[0], ""
    if starts:
        return None, (f"'{text}' fits {len(starts)} choices: {', '.join(starts)}. Type the whole "
                      "label or its number.")
    close = difflib.get_close_matches(text, labels, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return None, f"{text!r} is not a legal choice now.{hint} {how}"


def _fold(text: str) -> str:
    """A label as compared with what a person typed: no spaces, lower case."""
    return "".join(text.split()).lower()


def fresh_seed() -> int:
    """A seed nobody chose, so that every game deals anew unless `--seed` says otherwise."""
    return secrets.randbelow(2**31)


def echo_result(session: Session, seed_line: str | None = None) -> None:
    """The final position as the viewer may see it, the scores, the winners, the end, and
    the seed (kept back until now in a game with hidden parts, which it deals)."""
    state, who, paint = session.state, session.who, session.paint
    session.show_picture()
    scores = state.scores()
    winners = state.winners()
    click.echo("")
    echo_headed(paint, "scores: ", ", ".join(f"{who[s]} {scores[s]}" for s in range(state.n)))
    label = "winner" if len(winners) == 1 else "winners (shared)"
    click.echo(paint(f"{label}: " + ", ".join(who[s] for s in winners), fg="green", bold=True))
    click.echo(wrap(f"game over after {state.turn} turns: {printable(end_reason_text(state))}",
                    later="  "))
    click.echo(seed_line or f"seed {state.seed}")


def end_reason_text(state: Any) -> str:
    """The game file's sentence for the end (`end.text`), or else the end condition's name
    with its rule when that says more."""
    text = " ".join(state.end_text().split())
    if text:
        return text
    reason = state.end_reason
    if reason is None:
        return "the flow running out"
    when = (state.game.spec.get("end") or {}).get("when")
    rule = when.get(reason) if isinstance(when, dict) else when
    rule = " ".join(str(rule).split()) if rule is not None else ""
    return f"{reason} ({rule})" if rule and rule != reason else reason


def play_levels(game: Any, n: int, seat: int, human: int | None, bots: list[str], seed: int,
                 first: int, paint: Paint, log: LogFile) -> None:
    """Play the file's levels in turn, for the person at `seat`.

    A level passes when that seat's score is greater than the level's `min_score`; then
    the next level starts. Failing a level, or passing the last, ends the series with a
    summary. A level's `bots` (a name or a list, one per computer seat in turn) replace
    `--bots`; every level is a new game with its own seed derived from `seed`.
    """
    from rulekit.levels import levels
    from rulekit.simulate import derive_seed

    series = levels(game)
    results: list[tuple[Any, int]] = []
    for level in series[first - 1:]:
        i, name = level.number, printable(level.name)
        agents, who = seat_agents(n, human, level.bots or bots)
        level_seed = level.seed(seed)
        click.echo("")
        for line in wrap(f"=== {game.name}, level {i} of {level.of}: {name}; score more "
                         f"than {level.min_score} to pass ===", later="    ").split("\n"):
            click.echo(paint(line, fg="cyan", bold=True))
        # the seed deals every hidden part: a game with any is told its seed at the end
        seed_note = "" if game.hides_information else f"; seed {level_seed}"
        click.echo(wrap(", ".join(who[s] for s in range(n)) + seed_note, later="  "))
        if i == first:
            echo_description(game, human)
        state = game.new_game(players=n, seed=level_seed)
        rng = random.Random(derive_seed(seed, "bots", "play", i))
        title = f"{game.name}, level {i} of {level.of} ({name})"
        session = Session(state, who, paint, human, agents, rng, title)
        try:
            finished = run_session(session, log, f"the series stops at level {i},")
        except click.exceptions.Exit:  # Ctrl-C: the summary, then the exit code
            _echo_series(len(series), results, stopped=True)
            raise
        if not finished:
            _echo_series(len(series), results, stopped=True)
            return
        echo_result(session)  # the level's own seed: the series' would deal the next levels
        log.write(state)
        score = state.scores()[seat]
        results.append((level, score))
        verdict = level.verdict(score).split(":", 1)
        click.echo(f"level {i} ({name}) "
                   + paint(verdict[0], fg="green" if level.passed(score) else "red")
                   + ":" + verdict[1])
        if not level.passed(score):
            break
    _echo_series(len(series), results, stopped=False)
    click.echo(f"series seed {seed}: --seed {seed} deals this series again")


def _echo_series(total: int, results: list[tuple[Any, int]], stopped: bool) -> None:
    """The summary of a series of levels: each level played, and how far the person got."""
    from rulekit.levels import series_summary

    click.echo("\n=== series summary ===")
    lines = series_summary(total, results, stopped)
    for line in lines[:-1]:
        click.echo("  " + printable(line))
    click.echo(lines[-1])
