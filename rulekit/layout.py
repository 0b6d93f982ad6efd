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


def compact_picture(text: str, viewer: int, cut: bool = False) -> str:
    """The picture with every other player's block as one line (wrapped): the header and
    the block's one-line items, without the parts drawn over several lines (a sheet);
    the shared parts and the viewer's own block stay whole. A file's `display.summary`
    makes that line itself (`render(seat, compact=True)`); this is the fallback.

    `cut`: for a screen that is short of rows, each other player in one row at most (cut
    with `...`, `show` draws them whole), and short ones side by side."""
    out: list[str] = []
    others: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _PLAYER.match(line)
        if not m or int(m[1]) == viewer:
            out += _packed(others) if cut else others
            others = []
            out.append(line)
            i += 1
            continue
        block = [line]
        i += 1
        while i < len(lines) and lines[i].startswith(" "):
            block.append(lines[i])
            i += 1
        others.append(_one_line(block, cut))
    out += _packed(others) if cut else others
    return "\n".join(out)


def _one_line(block: list[str], cut: bool = False) -> str:
    """A player's block as one line: the items at the first indent that have nothing
    drawn under them (`cut`: one row at most)."""
    items = []
    for k, line in enumerate(block[1:], 1):
        depth = len(line) - len(line.lstrip())
        below = block[k + 1] if k + 1 < len(block) else ""
        has_more = len(below) - len(below.lstrip()) > depth
        if depth == 2 and not has_more and not line.rstrip().endswith(":"):
            items.append(line.strip())
    text = " | ".join([block[0].rstrip()] + items)
    if cut:
        return cut_line(text, width())
    return textwrap.fill(text, width(), subsequent_indent="    ")


def cut_line(text: str, w: int) -> str:
    """A line within `w` characters: cut, with `...` saying that more was there."""
    return text if len(text) <= w else text[:w - 3].rstrip() + "..."


def _packed(lines: list[str], gap: int = 3) -> list[str]:
    """One-row lines two (or more) to a row, in columns, when they are short enough."""
    if len(lines) < 2:
        return lines
    return ["".join(row).rstrip() for row in columns(lines, gap, indent=0)]


def rows(line: str, w: int | None = None) -> int:
    """The rows a line of plain text takes on the screen (a longer one wraps)."""
    w = w or width()
    return max(1, -(-len(line) // w))


def letters(k: int) -> str:
    """The k-th letter name (1: a, 26: z, 27: aa): what a choice is typed by when its
    label could read as a number."""
    name = ""
    while k > 0:
        k, r = divmod(k - 1, 26)
        name = chr(ord("a") + r) + name
    return name


def columns(cells: list[str], gap: int = 3, indent: int = 2) -> list[list[str]]:
    """Cells (the numbered choices) in as many columns as the width holds, read down each
    column; each row a list of its cells, padded but the last. Each column is as wide as
    its own widest cell, so that short choices take few rows; one column when a cell is
    too wide for two."""
    if not cells:
        return []
    room = width() - indent
    for n in range(len(cells), 0, -1):
        nrows = -(-len(cells) // n)
        n = -(-len(cells) // nrows)  # no empty column at the right
        cols = [cells[c * nrows:(c + 1) * nrows] for c in range(n)]
        widths = [max(len(x) for x in col) for col in cols]
        if sum(widths) + gap * (n - 1) <= room or n == 1:
            break
    out = []
    for r in range(nrows):
        row = [(cols[c][r], widths[c]) for c in range(n) if r < len(cols[c])]
        out.append([cell.ljust(w + gap) for cell, w in row[:-1]] + [row[-1][0]])
    return out


def shortened(lines: list[str], viewer: int, excess: int) -> list[str]:
    """A picture `excess` lines shorter, for a screen too short for it, the viewer's own
    block kept whole: the other players' lines give way first (a line says how many),
    then the top of the shared parts (a line says so); `show` draws it all."""
    if excess <= 0:
        return lines
    own = [i for i, line in enumerate(lines) if _PLAYER.match(line)
           and int(_PLAYER.match(line)[1]) == viewer]
    start = own[0] if own else len(lines)
    end = start + 1
    while end < len(lines) and lines[end].startswith(" "):
        end += 1
    others = [i for i in range(len(lines)) if not start <= i < end
              and i >= min([k for k, line in enumerate(lines) if _PLAYER.match(line)],
                           default=len(lines))]
    out = list(lines)
    if others:  # the others' lines, from the last, and a line in their place
        drop = others[-min(len(others), excess + 1):]
        players = sum(1 for i in drop if _PLAYER.match(lines[i]))
        keep = [line for i, line in enumerate(lines) if i not in set(drop)]
        note = f"({players} other player{'s' if players != 1 else ''} not shown; 'show' " \
               "draws them)"
        at = min(drop)
        at = sum(1 for i in range(at) if i not in set(drop))
        out = keep[:at] + [note] + keep[at:]
        excess -= len(drop) - 1
    if excess > 0:  # then the top of the shared parts
        cut = excess + 1
        out = [f"({cut} lines of the picture above; 'show' draws it all)"] + out[cut:]
    return out
