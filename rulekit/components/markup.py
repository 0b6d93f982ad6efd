"""Small HTML and SVG pieces the building blocks draw themselves with, for the browser.

Every text a game gives (names, labels, values) is escaped here, so a game file cannot put
markup into a page. Colours come from names (a row or die called `red` is red) only when
the name is one of a few colour words; anything else gets the neutral style. A piece a
person may act on carries `data-pick`: its name as the labels of choices write it (the
page's script makes it clickable when a label does).
"""

from __future__ import annotations

from html import escape
from typing import Any

#: names that colour the piece they name (rows, dice); CSS knows each as a colour keyword
COLOURS = frozenset({"red", "yellow", "green", "blue", "white", "black", "orange", "purple",
                     "grey", "gray", "pink", "brown", "magenta", "cyan"})

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


def pre(text: str, cls: str = "text") -> str:
    """Plain text, as the terminal shows it, for parts without a drawing of their own."""
    return f'<pre class="{cls}">{esc(text)}</pre>' if text else ""


def die_svg(name: str, face: int | None, sides: int) -> str:
    """One die: pips for a six-sided die, the number for others, a gap when it is out."""
    body = ""
    if face is None:
        cls = "die out"
    elif sides == 6 and face in _PIPS:
        cls = "die"
        body = "".join(f'<circle cx="{10 + 10 * (i % 3)}" cy="{10 + 10 * (i // 3)}" r="3"/>'
                       for i in _PIPS[face])
    else:
        cls = "die"
        body = f'<text x="20" y="25" text-anchor="middle">{esc(face)}</text>'
    value = "" if face is None else esc(face)
    return (f'<figure class="{cls}" data-die="{esc(name)}" data-face="{value}"'
            f'{colour_style(name)}><svg viewBox="0 0 40 40" width="40" height="40">'
            f'<rect x="1" y="1" width="38" height="38" rx="6"/>{body}</svg>'
            f"<figcaption>{esc(name)}</figcaption></figure>")


def tile_svg(a: int, b: int, across: bool = False, label: str | None = None,
             pick: bool = False) -> str:
    """A domino tile with its two numbers; `across` draws it standing (a crosswise double);
    with `pick`, a piece to click by its name (`3|12`)."""
    name = esc(label if label is not None else f"{a}|{b}")
    if across:
        return (f'<svg class="tile across" data-tile="{name}" viewBox="0 0 30 60" width="24" '
                f'height="48"><title>{name}</title><rect x="1" y="1" width="28" height="58" '
                f'rx="4"/><line x1="4" y1="30" x2="26" y2="30"/>'
                f'<text x="15" y="21" text-anchor="middle">{esc(a)}</text>'
                f'<text x="15" y="51" text-anchor="middle">{esc(b)}</text></svg>')
    picked = f' data-pick="{name}"' if pick else ""
    return (f'<svg class="tile" data-tile="{name}"{picked} viewBox="0 0 60 30" width="48" '
            'height="24">'
            f'<title>{name}</title><rect x="1" y="1" width="58" height="28" rx="4"/>'
            f'<line x1="30" y1="4" x2="30" y2="26"/>'
            f'<text x="15" y="20" text-anchor="middle">{esc(a)}</text>'
            f'<text x="45" y="20" text-anchor="middle">{esc(b)}</text></svg>')


def tile_back() -> str:
    """A tile face down: nothing about it but that it is there."""
    return ('<svg class="tile back" viewBox="0 0 60 30" width="24" height="12">'
            '<rect x="1" y="1" width="58" height="28" rx="4"/></svg>')


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
