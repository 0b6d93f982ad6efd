"""Fitting the game to the terminal: its width, wrapped text, the other players' blocks
as one line each, choices in columns; so that at a prompt the player sees the shared
parts, their own sheet or hand, every opponent and the choices on one screen."""

from __future__ import annotations

import re
import shutil
import textwrap

#: narrower than this, lines are cut anyway; wider, text is hard to read
MIN_WIDTH, MAX_WIDTH = 40, 100

_PLAYER = re.compile(r"^player (\d+)\b")


def width() -> int:
    """The terminal's width (COLUMNS when set), within reason; 80 when it is unknown."""
    return max(MIN_WIDTH, min(MAX_WIDTH, shutil.get_terminal_size((80, 24)).columns))


def height() -> int:
    """The terminal's height in lines (LINES when set); 24 when it is unknown."""
    return max(10, shutil.get_terminal_size((80, 24)).lines)


def wrap(text: str, indent: str = "", later: str | None = None) -> str:
    """A paragraph wrapped to the terminal's width (spacing in the text is not kept)."""
    return textwrap.fill(" ".join(text.split()), width(), initial_indent=indent,
                         subsequent_indent=indent if later is None else later)


def fit(text: str) -> str:
    """Every line of a picture within the width: a longer one wrapped at its spaces, the
    rest indented two more than the line (a row of tiles, a long summary)."""
    w = width()
    out = []
    for line in text.split("\n"):
        if len(line) <= w:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out.append(textwrap.fill(line.strip(), w, initial_indent=indent,
                                 subsequent_indent=indent + "  ", break_on_hyphens=False))
    return "\n".join(out)


def compact_picture(text: str, viewer: int) -> str:
    """The picture with every other player's block as one line (wrapped): the header and
    the block's one-line items, without the parts drawn over several lines (a sheet);
    the shared parts and the viewer's own block stay whole. A file's `display.summary`
    makes that line itself (`render(seat, compact=True)`); this is the fallback."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _PLAYER.match(line)
        if not m or int(m[1]) == viewer:
            out.append(line)
            i += 1
            continue
        block = [line]
        i += 1
        while i < len(lines) and lines[i].startswith(" "):
            block.append(lines[i])
            i += 1
        out.append(_one_line(block))
    return "\n".join(out)


def _one_line(block: list[str]) -> str:
    """A player's block as one line: the items at the first indent that have nothing
    drawn under them."""
    items = []
    for k, line in enumerate(block[1:], 1):
        depth = len(line) - len(line.lstrip())
        below = block[k + 1] if k + 1 < len(block) else ""
        has_more = len(below) - len(below.lstrip()) > depth
        if depth == 2 and not has_more and not line.rstrip().endswith(":"):
            items.append(line.strip())
    return textwrap.fill(" | ".join([block[0]] + items), width(), subsequent_indent="    ")


def columns(cells: list[str], gap: int = 3) -> list[list[str]]:
    """Cells (the numbered choices) in as many columns as the width holds, read down each
    column; each row a list of its cells, padded but the last. One column when a cell is
    too wide for two."""
    if not cells:
        return []
    cell = max(len(c) for c in cells) + gap
    n = max(1, min(len(cells), (width() - 2 + gap) // cell))
    rows = -(-len(cells) // n)
    n = -(-len(cells) // rows)  # no empty column at the right
    out = []
    for r in range(rows):
        row = [cells[c * rows + r] for c in range(n) if c * rows + r < len(cells)]
        out.append([c.ljust(cell) for c in row[:-1]] + row[-1:])
    return out
