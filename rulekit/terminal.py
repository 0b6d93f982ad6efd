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

import rulekit.bots
from rulekit.bots import Bot
from rulekit.errors import RulekitError
from rulekit.layout import (
    columns,
    compact_picture,
    cut_line,
    fit,
    height,
    letters,
    rows,
    shortened,
    width,
    wrap,
)
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
        click.echo(wrap("Type the number (or letter) of a choice or its label; '?' explains "
                        "the choices, 'log' shows what happened, 'show' shows every player in "
                        "full, 'quit' stops."))


def seat_agents(n: int, human: int | None, bots: Sequence[str],
                 ) -> tuple[dict[int, Bot], dict[int, str]]:
    """A bot for every seat but the person's (bots assigned in turn), and each seat's name."""
    from rulekit.levels import bots_in_turn

    bot_names = bots_in_turn(n, human, bots)
    agents: dict[int, Bot] = {s: rulekit.bots.make(name) for s, name in bot_names.items()}
    who = {s: (f"player {s} ({bot_names[s]})" if s in bot_names else f"player {s} (you)")
           for s in range(n)}
    return agents, who


class Session:
    """One game in the terminal: each event as it happens, pictures, the person's choices.

    Bots and chance move by themselves, and each move is shown with the score it made;
    a person is asked through stdin. `decide` and `chance`, when given, replace both
    (a replay feeds the logged steps).

    While a person plays, each prompt is one screen, read top-down: the picture (the
    others a line each), what happened since the person's last decision (the latest
    events when not all fit; `log` shows them all), then the decision's title, the
    choices and the prompt; all within LINES x COLUMNS, so that nothing the person needs
    has scrolled away when they decide. When nobody plays in person, events are printed
    as they happen and the picture after every turn.
    """

    def __init__(self, state: Any, who: dict[int, str], paint: Paint, human: int | None = None,
                 agents: dict[int, Bot] | None = None, rng: random.Random | None = None,
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
        self.framed = human is not None  # a screen per prompt (not for a replay)
        self.since: list[str] = []  # the events since the person's last decision
        self.heading = ""  # a turn's heading, told with its first event
        self.move_at: dict[int | None, int] = {}  # each seat's last move among the events
        # the intro stays on a terminal's screen until Enter (see `pause`)
        self.pause_first = human is not None
        # outcomes of secret chance steps (a deal into hidden hands) are never shown
        self.secret = state.secret_chances()

    def run(self, decide: Any = None, chance: Any = None) -> None:
        st = self.state
        self.framed = self.human is not None and decide is None
        self._report(None)
        while not st.is_over:
            if st.turn != self.turn:
                if self.pictures and self.human is None and self.turn:
                    self.show_picture(f"after turn {self.turn}")
                self.turn = st.turn
                self.moves = {}
                head = f"turn {st.turn}: {self._name(st.active)}" if st.turn else "setup"
                if self.framed:
                    self.heading = f"--- {head} ---"
                else:
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
        if self.framed and self.since:  # the last moves and the end: all of them, in order
            self._echo("")
            self._echo(self.paint("since your last move:", bold=True))
            for line in self.since:
                self._echo(line)
            self.since = []

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
        lines: list[str] = []
        told: dict[int | None, int] = {}  # each seat's last move told now: where its line is
        for i, entry in enumerate(entries):
            if entry.get("to", self.viewer) != self.viewer and self.viewer is not None:
                continue  # a private line to another seat
            line = self._describe(entry)
            if "action" in entry:
                self.moves[entry.get("seat")] = printable(str(entry["action"]))
                told[entry.get("seat")] = len(lines)
            if i == at and mover in delta:
                line += "  (" + self._delta(delta.pop(mover), new[mover]) + ")"
            lines.append(line)
        later = []
        for s, d in delta.items():  # effects that resolved now, or that hit other players
            if self.framed and s in told:  # on the screen: with the move told just now
                lines[told[s]] += "  (" + self._delta(d, new[s]) + ")"
            elif self.framed and s in self.move_at and self.move_at[s] < len(self.since):
                self.since[self.move_at[s]] += "  (" + self._delta(d, new[s]) + ")"
            else:
                later.append(f"  {self._name(s)}: {self._delta(d, new[s], self.moves.get(s))}")
        at_line = {k: seat for seat, k in told.items()}
        for k, line in enumerate(lines + later):
            self._event(line)
            if k in at_line and self.framed:  # where the move stands, for points told later
                self.move_at[at_line[k]] = len(self.since) - 1
        if any(v for p in parts for v in p.values()):  # the scoring at the end: apart
            if not self.framed:
                self._echo("")
            self._event(self.paint("--- scoring at the end of the game ---", bold=True))
            for s, d in enumerate(end):
                made = [f"{signed(v)} {name}" for name, v in parts[s].items() if v]
                if made:
                    total = f" (in all {signed(d)})" if len(made) > 1 else ""
                    text = (f"{self._name(s)}: {', '.join(made)}{total}, "
                            f"score {number(new[s] + d)}")
                    for line in wrap(text, "  ", "    ").split("\n"):
                        self._event(self.paint(line, fg="green" if d > 0 else "red"))

    def _event(self, line: str) -> None:
        """An event: printed now, or kept for the person's next screen (a turn's heading
        on the line of its first event when both fit the width)."""
        if not self.framed:
            self._echo(line)
            return
        if self.heading:
            text, self.heading = self.heading, ""
            plain = click.unstyle(line)
            head = self.paint(text, bold=True)
            if plain.startswith(" ") or len(text) + 1 + len(plain) > width():
                self.since.append(head)
            else:
                line = head + " " + line
        self.since.append(line)

    def _delta(self, d: int, now: int, move: str | None = None) -> str:
        """A score change, with the move that made it when that is not on the same line."""
        made = f" for {move}" if move is not None else ""
        return self.paint(f"{signed(d)}{made}, score {number(now)}",
                          fg="green" if d > 0 else "red")

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
        """The label the person picks; asks again, saying why, until it is a legal one.

        A lone choice is not asked: it is shown among the events and taken."""
        st = self.state
        labels = [a.label for a in st.legal_actions()]
        if len(labels) == 1 and self.framed:
            self._event(self.paint(f"only choice: {printable(labels[0])}", fg="cyan"))
            return labels[0]
        if self.pause_first:
            self.pause_first = False
            pause("press Enter to start")
        self._screen(seat, labels)
        lettered = use_letters(labels)
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
                self._help(seat, labels)
                continue
            if text.lower() == "show" and text not in labels:
                self.show_picture(full=True)
                self._choices(seat, labels)
                continue
            if text.lower() == "log" and text not in labels:
                self._echo(self.paint("since your last move:", bold=True))
                for event in self.since or ["nothing"]:
                    self._echo(event)
                self._choices(seat, labels)
                continue
            if text.lower() in ("quit", "exit") and text not in labels:
                raise EndOfInput("quit")
            label, why = match_label(text, labels, lettered)
            if label is not None:
                if label != text:
                    note = f"  ({why})" if why else ""
                    self._echo(printable(f"  = {label}{note}"))
                self.since = []
                self.move_at = {}
                return label
            self._echo(self.paint(why, fg="yellow"))

    def _head(self, seat: int) -> list[str]:
        """The decision's title (wrapped), or a line that says whose choice it is."""
        title = " ".join(self.state.decision_title().split())
        return (wrap(printable(title)).split("\n") if title
                else [f"{self._name(seat)}, your choice ('?' explains):"])

    def _choices(self, seat: int, labels: list[str]) -> None:
        """The decision's title and the choices."""
        for line in self._head(seat):
            self._echo(self.paint(line, fg="cyan", bold=True))
        self._list(labels)

    def _screen(self, seat: int, labels: list[str]) -> None:
        """One screen for the prompt: the picture, the events since the person's last
        decision, the title and the choices, fitted to LINES x COLUMNS.

        What gives way when they do not fit, in turn: the earlier events (a line says how
        many, and that `log` shows them), the other players' lines (one row each, short
        ones side by side), the picture's heading, then the other players' lines and at
        last the top of the picture (a line says so; `show` draws it all). The latest
        event and the person's own part are always there."""
        st = self.state
        w, h = width(), height()
        heading = wrap(f"== {self.title}, turn {st.turn} ==", later="   ").split("\n")
        head = self._head(seat)
        choices = len(choice_rows(labels))
        events = [self._fitted(e, w) for e in self.since]
        need = len(head) + choices + 1 + (1 + rows_of(events[-1], w) if events else 0)
        raw = st.render(self.viewer, compact=True)
        picture = fit(compact_picture(raw, self.viewer)).split("\n")
        if len(heading) + len(picture) + need > h:
            picture = fit(compact_picture(raw, self.viewer, cut=True)).split("\n")
        if len(heading) + len(picture) + need > h:
            heading = []
        picture = shortened(picture, self.viewer, len(heading) + len(picture) + need - h)
        room = h - len(heading) - len(picture) - len(head) - choices - 1
        shown: list[str] = []
        used = 1
        for event in reversed(events):
            if used + rows_of(event, w) > room:
                break
            shown.insert(0, event)
            used += rows_of(event, w)
        hidden = len(events) - len(shown)
        spare = room - used if events else room
        if heading and spare >= 2:  # a blank line between the last screen and this one
            self._echo("")
            spare -= 1
        for line in heading:
            self._echo(self.paint(line, fg="cyan", bold=True))
        self.picture = "\n".join(picture)
        for line in picture:
            line = printable(line)
            self._echo(self.paint(line, bold=True) if line.startswith("player ")
                       else self.paint.tint(line))
        if events:
            more = (f" ({hidden} earlier not shown; 'log' shows all)" if hidden else "")
            self._echo(self.paint(cut_line("since your last move" + more + ":", w), bold=True))
            for event in shown:
                self._echo(event)
        if spare >= 1:
            self._echo("")  # a blank line above the title where the screen has room
        self._choices(seat, labels)

    @staticmethod
    def _fitted(event: str, w: int) -> str:
        """An event within the width: a longer one wrapped (plain, its colours dropped)."""
        plain = click.unstyle(event)
        return event if len(plain) <= w else wrap(plain, later="    ")

    def _list(self, labels: list[str]) -> None:
        """The choices, numbered (or lettered), in as many columns as fit (colour added
        after the layout); a run of labels that share a head (`Reroll dice: `) under
        that head, each listed by the rest."""
        for row in choice_rows(labels):
            if isinstance(row, str):
                self._echo("  " + self.paint(row, bold=True))
                continue
            self._echo("  " + "".join(self.paint(c[:c.index(".") + 1], fg="cyan")
                                      + self.paint.tint(c[c.index(".") + 1:]) for c in row))

    @staticmethod
    def _cells(labels: list[str]) -> list[str]:
        return [f"{key}. {printable(label)}" for key, label in zip(choice_keys(labels), labels)]

    def _help(self, seat: int, labels: list[str]) -> None:
        text = self.state.decision_help()
        if text:
            self._echo(wrap(printable(" ".join(text.split()))))
        if use_letters(labels):
            how = (f"Type a letter from a to {letters(len(labels))} or a label as listed. "
                   "The choices have letters because a label is (or starts with) a number: "
                   "a number typed is always a label, never a place in the list.")
        else:
            how = f"Type a number from 1 to {len(labels)} or a label as listed."
        self._echo(wrap(
            how + " Labels match in any case and spacing; the first words of a label do "
            "when they fit one choice only; '=TEXT' is the label TEXT. 'log' shows every "
            "event since your last move; 'show' shows every player's part in full; 'quit' "
            "stops the game."))
        self._choices(seat, labels)


def choice_keys(labels: list[str]) -> list[str]:
    """What each choice is typed by: its letter when the labels could read as numbers,
    else its number (right-aligned)."""
    if use_letters(labels):
        return [letters(i) for i in range(1, len(labels) + 1)]
    return [f"{i:>2}" for i in range(1, len(labels) + 1)]


#: this many labels in a row sharing a head (`Reroll dice: `) are listed under it
GROUP = 4


def choice_rows(labels: list[str]) -> list[str | list[str]]:
    """The list of choices as rows of cells in columns (each row a list), and a head
    (a string) above each run of at least GROUP labels that begin the same up to `: `,
    listed by the rest of their labels, so that many long ones take few rows."""
    keys = choice_keys(labels)
    runs: list[tuple[str | None, list[str]]] = []
    for key, label in zip(keys, labels):
        label = printable(label)
        at = label.find(": ")
        head = label[:at + 1] if at > 0 and label[at + 2:] else None
        if runs and runs[-1][0] == head:
            runs[-1][1].append(f"{key}. {label}")
        else:
            runs.append((head, [f"{key}. {label}"]))
    out: list[str | list[str]] = []
    loose: list[str] = []
    for head, cells in runs:
        if head is None or len(cells) < GROUP:
            loose += cells
            continue
        out += columns(loose)
        loose = []
        out.append(head)
        cut = len(head) + 1
        out += columns([c[:c.index(". ") + 2] + c[c.index(". ") + 2 + cut:] for c in cells])
    return out + columns(loose)


def number(x: float) -> str:
    """A score as text: a whole number without a fraction (a game's score may be a
    fraction, such as a share of a win)."""
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def signed(x: float) -> str:
    """A score change as text, with its sign."""
    return ("+" if x >= 0 else "-") + number(abs(x))


def rows_of(line: str, w: int) -> int:
    """The rows a printed line takes (its colours not counted)."""
    return sum(rows(part, w) for part in click.unstyle(line).split("\n"))


def use_letters(labels: list[str]) -> bool:
    """Whether the choices are listed by letter: when a label is, or starts with, a
    number, a typed number could mean that label or a place in the list; with letters
    for places, a number is only ever a label."""
    return any(label[:1].isdigit() for label in labels)


def pause(text: str) -> None:
    """Wait for Enter, so that what was just printed stays on the screen until the
    person has read it (the end of a level, the start of a game).

    Only when stdin is a terminal: piped input holds the choices made in
    advance and nobody reads the screen meanwhile, so a pipe sends no extra lines and a
    transcript reads the same; end of input still stops the game."""
    if not is_tty(sys.stdin):
        return
    click.echo(f"({text}) ", nl=False)
    if not sys.stdin.readline():
        raise EndOfInput


def describe_entry(entry: dict, name: Any, secret: frozenset[str],
                   observer: bool = False) -> str:
    """A log entry as one line of text: a chance outcome (a secret one only as done), a
    decision with the name `name(seat)` gives its seat (one `log_for` masks as not told
    yet), a `say` line (one to a single player marked so for an `observer`, who sees every
    seat's lines)."""
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
    if entry.get("hidden"):  # another seat's choice in a window not resolved (`log_for`)
        return printable(f"{name(entry.get('seat'))}: has chosen (shown when everyone has)")
    if "action" in entry:
        forced = " (forced)" if entry.get("forced") else ""
        return printable(f"{name(entry.get('seat'))}: {entry['action']}{forced}")
    if "say" in entry:
        if "to" in entry and observer:
            return printable(f"(to player {entry['to']} only) {entry['say']}")
        return printable(entry["say"])
    return json.dumps(entry)


def match_label(text: str, labels: list[str],
                lettered: bool | None = None) -> tuple[str | None, str]:
    """The label a person means by `text`, and a note; or None and why it is not a choice.

    What is listed in front of a choice picks it: its number, or its letter when the
    choices are lettered (`use_letters`: a label is or starts with a number), and then a
    typed number is only ever a label. `#K` is the K-th choice and `=TEXT` the label
    TEXT either way; labels match without regard to spacing or case (`5+5+6` is
    `5 + 5 + 6`), or by their first words when those fit one choice only.
    """
    n = len(labels)
    if lettered is None:
        lettered = use_letters(labels)
    how = (f"Type a letter from a to {letters(n)} or a label as listed; '?' explains."
           if lettered else f"Type a number from 1 to {n} or a label as listed; '?' explains.")
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
    if lettered:
        by_letter = {letters(k): label for k, label in enumerate(labels, 1)}
        if text.lower() in by_letter:
            return by_letter[text.lower()], ""
    elif text.isdigit() and 1 <= int(text) <= n:
        return labels[int(text) - 1], ""
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
                      "label or its " + ("letter." if lettered else "number."))
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


def play_levels(game: Any, n: int, seat: int, human: int | None, bots: list[str] | None,
                 seed: int, first: int, paint: Paint, log: LogFile) -> None:
    """Play the file's levels in turn, for the person at `seat`.

    A level passes when that seat's score is greater than the level's `min_score`; then
    the next level starts. Failing a level, or passing the last, ends the series with a
    summary. `bots` (the person's `--bots`) replace every level's bots, so that a person
    picks the opponents whatever the file says; else a level's `bots` (a name or a list, one
    per computer seat in turn) play, or `random` for a level without; every level is a new
    game with its own seed derived from `seed`.
    """
    from rulekit.levels import levels
    from rulekit.studies.play import derive_seed

    series = levels(game)
    results: list[tuple[Any, int]] = []
    for level in series[first - 1:]:
        i, name = level.number, printable(level.name)
        agents, who = seat_agents(n, human, bots or level.bots or ["random"])
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
        title = (f"{game.name}, level {i} of {level.of} ({name}), pass with more than "
                 f"{level.min_score}")
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
