"""Small HTML and SVG pieces the building blocks draw themselves with, for the browser.

Every text a game gives (names, labels, values) is escaped here, so a game file cannot put
markup into a page. Colours come from names (a row or die called `red` is red) only when
the name is one of a few colour words; anything else gets the neutral style. A piece a
person may act on carries `data-pick`: its name as the labels of choices write it (the
page's script makes it clickable when a label does), or `data-picks`: the labels of the
choices it stands for, when the drawing found them itself (a grid's cells).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

#: names that colour the piece they name (rows, dice); CSS knows each as a colour keyword
COLOURS = frozenset({"red", "yellow", "green", "blue", "white", "black", "orange", "purple",
                     "grey", "gray", "pink", "brown", "magenta", "cyan"})

#: the colours of pieces and suits whose names are no colour words, by their place in the
#: file's order (the first two as far apart as the seats' pawns)
PALETTE = ("#c33", "#e5b800", "#36c", "#393", "#939", "#399", "#666", "#963")

#: the French suits' symbols, by the names and letters files give them, and their colours
SUITS = {"c": ("\u2663", "black"), "clubs": ("\u2663", "black"),
         "d": ("\u2666", "red"), "diamonds": ("\u2666", "red"),
         "h": ("\u2665", "red"), "hearts": ("\u2665", "red"),
         "s": ("\u2660", "black"), "spades": ("\u2660", "black")}

#: where the pips of a six-sided die's faces sit, on a 3 x 3 grid (0..8, row by row)
_PIPS = {1: (4,), 2: (0, 8), 3: (0, 4, 8), 4: (0, 2, 6, 8), 5: (0, 2, 4, 6, 8),
         6: (0, 2, 3, 5, 6, 8)}


def esc(value: Any) -> str:
    """Any value as text safe inside HTML, attributes included."""
    return escape(str(value), quote=True)


def colour_style(name: str) -> str:
    """A style attribute giving the piece its colour when its name is a colour word."""
    word = str(name).lower()
    return f' style="--c:{word}"' if word in COLOURS else ""


def colour_of(name: str, place: int) -> str:
    """A piece's colour: its name when that is a colour word, else by its place in the file."""
    word = str(name).lower()
    return word if word in COLOURS else PALETTE[place % len(PALETTE)]


def pick(labels: list[str]) -> str:
    """The attribute that makes a piece pick its choices when clicked: `data-pick` with the
    label when one choice fits it, `data-picks` with the list of labels when several do."""
    if not labels:
        return ""
    if len(labels) == 1:
        return f' data-pick="{esc(labels[0])}"'
    return f' data-picks="{esc(json.dumps(labels))}"'


def pre(text: str, cls: str = "text") -> str:
    """Plain text, as the terminal shows it, for parts without a drawing of their own."""
    return f'<pre class="{cls}">{esc(text)}</pre>' if text else ""


def pips(value: Any, x: float, y: float, size: float, cls: str = "pip") -> str:
    """A face of `size` at (x, y): its pips when it is 0 to 6 (0: blank, as a domino's
    half), else its number, large enough to read."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 6:
        step, r = size / 4, size / 10
        return "".join(f'<circle class="{cls}" cx="{x + step * (1 + i % 3):g}" '
                       f'cy="{y + step * (1 + i // 3):g}" r="{r:g}"/>'
                       for i in _PIPS.get(value, ()))
    return (f'<text x="{x + size / 2:g}" y="{y + size * 0.68:g}" text-anchor="middle" '
            f'font-size="{size * 0.5:g}">{esc(value)}</text>')


def die_svg(name: str, face: int | None, sides: int) -> str:
    """One die: its face with pips up to 6, the number above; a gap when it is out. The
    number is in the picture's title and `data-face` too (read aloud, and by tests)."""
    if face is None:
        cls, body = "die out", ""
    else:
        cls, body = "die", pips(face, 0, 0, 40)
    value = "" if face is None else esc(face)
    title = f"{esc(name)}: {value}" if face is not None else f"{esc(name)}: out"
    return (f'<figure class="{cls}" data-die="{esc(name)}" data-face="{value}" '
            f'data-sides="{esc(sides)}"{colour_style(name)}>'
            f'<svg viewBox="0 0 40 40" width="40" height="40" role="img"><title>{title}'
            f'</title><rect x="1" y="1" width="38" height="38" rx="6"/>{body}</svg>'
            f"<figcaption>{esc(name)}</figcaption></figure>")


def tile_svg(a: int, b: int, across: bool = False, label: str | None = None,
             pick: bool = False) -> str:
    """A domino tile: two halves split by a line, each with its pips (0 to 6) or its
    number (higher ones); `across` draws it standing (a crosswise double); with `pick`, a
    piece to click by its name (`3|12`)."""
    name = esc(label if label is not None else f"{a}|{b}")
    picked = f' data-pick="{name}"' if pick else ""
    if across:
        return (f'<svg class="tile across" data-tile="{name}"{picked} viewBox="0 0 40 80" '
                f'width="30" height="60" role="img"><title>{name}</title>'
                f'<rect x="1" y="1" width="38" height="78" rx="5"/>'
                f'<line x1="5" y1="40" x2="35" y2="40"/>'
                f'<g class="half" data-value="{esc(a)}">{pips(a, 2, 2, 36)}</g>'
                f'<g class="half" data-value="{esc(b)}">{pips(b, 2, 42, 36)}</g></svg>')
    return (f'<svg class="tile" data-tile="{name}"{picked} viewBox="0 0 80 40" width="60" '
            f'height="30" role="img"><title>{name}</title>'
            f'<rect x="1" y="1" width="78" height="38" rx="5"/>'
            f'<line x1="40" y1="5" x2="40" y2="35"/>'
            f'<g class="half" data-value="{esc(a)}">{pips(a, 2, 2, 36)}</g>'
            f'<g class="half" data-value="{esc(b)}">{pips(b, 42, 2, 36)}</g></svg>')


def tile_back() -> str:
    """A tile face down: nothing about it but that it is there."""
    return ('<svg class="tile back" viewBox="0 0 80 40" width="30" height="15">'
            '<rect x="1" y="1" width="78" height="38" rx="5"/></svg>')


def pawn(seat: int) -> str:
    """A player's pawn, coloured by seat."""
    return f'<span class="pawn s{seat % 8}" title="player {seat}">{seat}</span>'


def piles(name: str, keys: list[Any], counts: list[int], cls: str = "supply") -> str:
    """A supply's piles: each key as a token with how many are left on it (an empty pile
    faded), under the supply's name."""
    items = "".join(f'<figure class="pile{"" if c else " empty"}" data-key="{esc(k)}" '
                    f'data-count="{c}"><span class="token">{esc(k)}</span>'
                    f"<figcaption>&times;{c}</figcaption></figure>"
                    for k, c in zip(keys, counts))
    total = f'<span class="total">total {sum(counts)}</span>' if items else "none"
    return (f'<div class="{cls}" data-supply="{esc(name)}"><span class="name">{esc(name)}'
            f"</span>{items}{total}</div>")


def awards(name: str, items: list[Any], cls: str, caption: str, top: bool = False) -> str:
    """A stack's items in a row after a caption (none: `none`); with `top`, the first is
    marked (it is taken next)."""
    tiles = "".join(f'<span class="award{" top" if top and i == 0 else ""}" '
                    f'data-item="{esc(v)}">{esc(v)}</span>' for i, v in enumerate(items))
    return (f'<div class="{cls}" data-stack="{esc(name)}" data-count="{len(items)}">'
            f'<span class="name">{esc(caption)}</span>{tiles or "none"}</div>')


def board_svg(name: str, rows: int, columns: int, cells: list[str], pieces: list[str],
              targets: dict[int, list[str]]) -> str:
    """A grid of round cells, row 0 at the bottom as in the terminal, pieces coloured by
    name, column numbers underneath. `targets` gives the choices that fill a cell (index
    row * columns + column): a column where one cell is filled picks as a whole (a piece
    dropped in), else each cell picks its own."""
    colour = {p: colour_of(p, i) for i, p in enumerate(pieces)}
    parts = []
    for c in range(columns):
        here = [i for i in range(c, rows * columns, columns) if i in targets]
        whole = pick(targets[here[0]]) if len(here) == 1 else ""
        items = [f'<rect class="column" x="{c * 40}" y="0" width="40" height="{rows * 40}"/>']
        for r in range(rows):
            i = r * columns + c
            piece = cells[i]
            at = f'data-cell="{r},{c}" cx="{c * 40 + 20}" cy="{(rows - 1 - r) * 40 + 20}" r="15"'
            if piece:
                items.append(f'<circle class="piece" {at} data-piece="{esc(piece)}" '
                             f'style="--c:{colour.get(piece, "#888")}"><title>{esc(piece)}, '
                             f"row {r}, column {c}</title></circle>")
            else:
                own = "" if whole or i not in targets else pick(targets[i])
                items.append(f'<circle class="hole" {at}{own}/>')
        items.append(f'<text x="{c * 40 + 20}" y="{rows * 40 + 15}" text-anchor="middle">{c}'
                     "</text>")
        parts.append(f'<g class="column" data-column="{c}"{whole}>{"".join(items)}</g>')
    width = min(columns * 40, 640)
    height = round(width * (rows * 40 + 20) / (columns * 40))
    legend = "".join(f'<span class="key"><span class="dot" style="--c:{colour[p]}"></span>'
                     f"{esc(p)}</span>" for p in pieces)
    return (f'<figure class="grid" data-grid="{esc(name)}"><svg viewBox="0 0 {columns * 40} '
            f'{rows * 40 + 20}" width="{width}" height="{height}">{"".join(parts)}</svg>'
            f"<figcaption>{esc(name)}: {legend}</figcaption></figure>")


def card(name: str, rank: Any, suit: str, place: int, picks: bool = False) -> str:
    """A card face up: its rank and its suit (the symbol of a French suit, else its name),
    in the suit's colour; with `picks`, a piece to click by its name (`QH`)."""
    symbol, colour = SUITS.get(str(suit).lower(), (suit, colour_of(suit, place)))
    picked = f' data-pick="{esc(name)}"' if picks else ""
    return (f'<span class="card" data-card="{esc(name)}"{picked} style="--c:{colour}" '
            f'title="{esc(name)}"><span class="rank">{esc(rank)}</span>'
            f'<span class="suit">{esc(symbol)}</span></span>')


def card_backs(count: int, most: int = 13) -> str:
    """Cards face down: as many backs as there are cards (at most `most`), nothing more."""
    return '<span class="card back"></span>' * min(count, most)
