"""The errors rulekit raises: one family, so callers catch `RulekitError` alone."""

from __future__ import annotations

from dataclasses import dataclass, field

from rulekit.text import printable


class RulekitError(Exception):
    """Base of every error a user can cause; the CLI prints it without a traceback."""


@dataclass
class Diagnostic:
    """One problem in a game file, located as `file:line:col` (line 0: the file as a whole,
    one that is missing or cannot be read)."""

    file: str
    line: int
    col: int
    message: str
    path: str = ""
    hint: str | None = None
    severity: str = "error"

    def format(self) -> str:
        """The diagnostic as lines for a terminal; text quoted from a file (a key, a name,
        a path) has its control characters escaped, so it cannot repaint the terminal."""
        file = printable(self.file)
        where = f"{file}:{self.line}:{self.col}" if self.line else file
        text = f"{where}: {printable(self.severity)}: {printable(self.message)}"
        if self.path:
            text += f"\n  at {printable(self.path)}"
        if self.hint:
            text += f"\n  hint: {printable(self.hint)}"
        return text

    def as_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "hint": self.hint,
        }


@dataclass
class GameFileError(RulekitError):
    """A game file (or an override of it) is invalid; carries every diagnostic found."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)


class IllegalActionError(RulekitError):
    """An action that is not legal now; the state is left unchanged."""


class ChanceError(RulekitError):
    """A chance outcome that is impossible now, or a chance step asked for when none is due."""


class FlowError(RulekitError):
    """The game's flow went wrong at run time (no legal option, a loop that never ends, ...)."""


class PieceError(FlowError):
    """A building block cannot do what a step asked (a lane it does not have, a tile that
    does not fit): the engine names the step that asked, as for any failure of a step."""


class EndlessFlowError(FlowError):
    """The flow does not end: the step budget ran out, blocks nest without end, a trigger
    never stops firing. The message names the step it was at."""


class NoOptionError(FlowError):
    """A decision has no legal option and no `none:` steps; the message names the step."""
