"""The errors rulekit raises: one family, so callers catch `RulekitError` alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rulekit.text import printable

#: characters of a value a message quotes: a name or a text longer than this is cut
QUOTE = 60
#: the most characters a diagnostic's message, hint and path hold: whatever a file holds,
#: and whichever check quotes it, no message can grow to megabytes
MAX_MESSAGE = 400
MAX_HINT = 600
MAX_PATH = 200
#: the most diagnostics one error reports: a file of 100,000 unknown keys gets a page, not
#: 20 MB of messages
MAX_DIAGNOSTICS = 100


def clip(text: str, limit: int) -> str:
    """`text` whole when it has at most `limit` characters; else its start and its end
    (where a message often says where or why) around a note of how much is left out."""
    if len(text) <= limit:
        return text
    keep = max(limit - len(f" [... {len(text)} characters left out ...] "), 2)
    note = f" [... {len(text) - keep} characters left out ...] "
    tail = keep // 4
    return text[:keep - tail] + note + (text[-tail:] if tail else "")


def cut(text: str, limit: int = QUOTE) -> str:
    """A name or text to quote in a message: its first `limit` characters, then `...`."""
    return text if len(text) <= limit else text[:limit] + "..."


def shown(value: Any, limit: int = QUOTE) -> str:
    """`repr(value)` in about `limit` characters, for a message that quotes a value.

    The whole repr is never built: a text is cut first (its length said), a list or a
    mapping shows its first items only, a huge number its digit count. A value from a
    file can hold megabytes (an alias repeats it), its message a line.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    if value is None or isinstance(value, (bool, float)):
        return repr(value)
    if isinstance(value, int):
        digits = len(str(abs(value))) if value.bit_length() < 4 * limit else None
        return repr(value) if digits is not None and digits <= limit else \
            f"<a number of more than {limit} digits>"
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        opening, closing = ("{", "}") if isinstance(value, (dict, set, frozenset)) else \
            ("(", ")") if isinstance(value, tuple) else ("[", "]")
        parts: list[str] = []
        used, whole = 0, True
        for item in (value.items() if isinstance(value, dict) else value):
            if used >= limit:
                whole = False
                break
            room = max(limit - used, 8)
            part = (f"{shown(item[0], room)}: {shown(item[1], room)}"
                    if isinstance(value, dict) else shown(item, room))
            parts.append(part)
            used += len(part) + 2
        text = opening + ", ".join(parts + ([] if whole else ["..."])) + closing
        return text if whole else f"{text} ({len(value)} items)"
    return f"<{type(value).__name__}>"


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

    def __setattr__(self, name: str, value: Any) -> None:
        # every diagnostic is bounded, whoever made it and whatever it quotes; the location
        # (file, line, col) is kept whole
        limit = _LIMITS.get(name)
        if limit is not None and isinstance(value, str) and len(value) > limit:
            value = clip(value, limit)
        object.__setattr__(self, name, value)

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


_LIMITS = {"message": MAX_MESSAGE, "hint": MAX_HINT, "path": MAX_PATH}


@dataclass
class GameFileError(RulekitError):
    """A game file (or an override of it) is invalid; carries the diagnostics found (the
    first MAX_DIAGNOSTICS of them, and a note when there were more)."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.diagnostics = capped(self.diagnostics)

    def __str__(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)


def capped(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The first MAX_DIAGNOSTICS diagnostics, and a note where more were found (the check
    that found them may have stopped looking, so their number is not said)."""
    if len(diagnostics) <= MAX_DIAGNOSTICS:
        return diagnostics
    first = diagnostics[MAX_DIAGNOSTICS]
    return diagnostics[:MAX_DIAGNOSTICS] + [Diagnostic(
        first.file, first.line, first.col,
        f"more problems follow: only the first {MAX_DIAGNOSTICS} found are reported",
        hint="mend these, then check the file again", severity=first.severity)]


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
