"""Grids: a board of rows and columns whose cells hold one piece or nothing.

Pieces are named in the file (`pieces: [x, o]`); a cell holds one of them or is empty.
A piece is placed in a cell, or dropped into a column, where it falls to the lowest
empty cell (row 0 is the bottom row). `has_line(piece, k)` tells whether k of a piece
stand in a row, a column or a diagonal: a scan of the cells charged to the work budget like
any loop, the runs found by shifting the piece's cells as the bits of a number.
"""

from __future__ import annotations

from itertools import compress
from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.fixed import fixed_value
from rulekit.components.markup import board_svg
from rulekit.errors import PieceError, RulekitError
from rulekit.expr import BOOL, INT, STR, ListT, Method, ObjT
from rulekit.expr.budget import charge

#: the most rows and the most columns of a grid
MAX_SIDE = 100
#: how an empty cell is drawn, and what `at` gives for it
EMPTY = ""
#: the most choices the browser's drawing looks ahead through to find the cell each fills
MAX_PREVIEWS = 200


class GridView:
    """The grid as expressions see it: `board.at(r, c)`, `board.open_columns`, ..."""

    __slots__ = ("s", "kind")

    def __init__(self, s: list, kind: Grid) -> None:
        self.s = s  # the cells, row by row from the bottom: index row * columns + column
        self.kind = kind

    def _cell(self, row: int, column: int) -> int:
        k = self.kind
        if not (0 <= row < k.rows and 0 <= column < k.columns):
            raise PieceError(f"{k.name} has no cell at row {row}, column {column}: rows 0 to "
                             f"{k.rows - 1}, columns 0 to {k.columns - 1}")
        return row * k.columns + column

    @property
    def rows(self) -> int:
        return self.kind.rows

    @property
    def columns(self) -> int:
        return self.kind.columns

    @property
    def pieces(self) -> list[str]:
        return self.kind.pieces  # fixed at load, and expressions never change a list

    @property
    def full(self) -> bool:
        return EMPTY not in self.s

    @property
    def empty_count(self) -> int:
        return self.s.count(EMPTY)

    @property
    def open_columns(self) -> list[int]:
        """The columns whose top cell is empty: where a piece may be dropped."""
        top = (self.kind.rows - 1) * self.kind.columns
        s = self.s
        return [c for c in range(self.kind.columns) if s[top + c] == EMPTY]

    def at(self, row: int, column: int) -> str:
        """The piece in the cell, or '' when it is empty."""
        return self.s[self._cell(row, column)]

    def is_empty(self, row: int, column: int) -> bool:
        return self.s[self._cell(row, column)] == EMPTY

    def height(self, column: int) -> int:
        """How many pieces stand in the column, counted from the bottom up to the first gap."""
        self._cell(0, column)
        n, cols = 0, self.kind.columns
        while n < self.kind.rows and self.s[n * cols + column] != EMPTY:
            n += 1
        return n

    def count(self, piece: str) -> int:
        return self.s.count(piece)

    def has_line(self, piece: str, k: int) -> bool:
        """Whether k cells in a row, a column or a diagonal all hold `piece`."""
        charge(len(self.s))
        return self.kind.line_in(self.s, piece, k)

    # ---- effects ------------------------------------------------------------------------
    def _piece(self, piece: str) -> str:
        if piece not in self.kind.piece_set:
            raise PieceError(f"{self.kind.name} has no piece {piece!r}; its pieces are "
                             f"{', '.join(self.kind.pieces)}")
        return piece

    def _place(self, row: int, column: int, piece: str) -> None:
        i = self._cell(row, column)
        if self.s[i] != EMPTY:
            raise PieceError(f"{self.kind.name}: the cell at row {row}, column {column} holds "
                             f"{self.s[i]} already")
        self.s[i] = self._piece(piece)

    def _drop(self, column: int, piece: str) -> None:
        h = self.height(column)
        if h == self.kind.rows:
            raise PieceError(f"{self.kind.name}: column {column} is full")
        self.s[h * self.kind.columns + column] = self._piece(piece)

    def _clear(self, row: int, column: int) -> None:
        self.s[self._cell(row, column)] = EMPTY

    def _rebind(self, st: Any) -> GridView:
        return st.gviews[self.kind.index]


@register
class Grid(Kind):
    kind = "grid"
    schema = {
        "type": "object",
        "required": ["rows", "columns", "pieces"],
        "properties": {
            "rows": {"description": f"rows, from 1 to {MAX_SIDE} (a number or an expression "
                                    "of params); row 0 is the bottom one",
                     "type": ["integer", "string"]},
            "columns": {"description": f"columns, from 1 to {MAX_SIDE}",
                        "type": ["integer", "string"]},
            "pieces": {"description": "the names of the pieces a cell may hold, such as [x, o]",
                       "type": ["array", "string"]},
            "empty": {"description": "how `rulekit play` draws an empty cell (default '.')",
                      "type": "string", "minLength": 1, "maxLength": 3},
        },
    }
    effects = {
        "place": Effect("grid", "Grid", "_place", {"row": INT, "column": INT, "piece": STR},
                        doc="put a piece in an empty cell"),
        "drop": Effect("grid", "Grid", "_drop", {"column": INT, "piece": STR},
                       doc="drop a piece into a column: it falls to the lowest empty cell"),
        "clear_cell": Effect("grid", "Grid", "_clear", {"row": INT, "column": INT},
                             doc="take away the piece in a cell"),
    }

    def declare(self, b: Any) -> None:
        if self.per_player:
            b.error(b.path + ("per",), "a grid is shared by all players",
                    "remove `per: player`; pieces tell whose they are")
        self.rows = self.side(b, "rows")
        self.columns = self.side(b, "columns")
        pieces = fixed_value(b, b.path + ("pieces",), self.config.get("pieces"), ListT(STR))
        if pieces is None:
            pieces = []
        elif not pieces or EMPTY in pieces or len(set(pieces)) != len(pieces):
            b.error(b.path + ("pieces",), f"pieces need distinct, non-empty names, got {pieces!r}",
                    "for example pieces: [x, o]")
        self.pieces = list(pieces)
        self.piece_set = frozenset(pieces)
        self.blank = str(self.config.get("empty", "."))
        # each cell's bit for `line_in`, rows apart by one empty bit, and the steps
        # between a line's cells: along a row, up a column, up each diagonal
        width = self.columns + 1
        self.bits = [1 << (r * width + c) for r in range(self.rows) for c in range(self.columns)]
        self.steps = (1, width, width + 1, width - 1)
        #: each cell's index by (row, column), and each column's cells from the bottom up
        #: (where a dropped piece falls): the flat play's tables, where a cell off the board
        #: is a KeyError
        self.cell_at = {(r, c): r * self.columns + c
                        for r in range(self.rows) for c in range(self.columns)}
        self.column_cells = {c: tuple(r * self.columns + c for r in range(self.rows))
                             for c in range(self.columns)}
        self.type = ObjT("Grid", {
            "rows": INT, "columns": INT, "pieces": ListT(STR), "full": BOOL,
            "empty_count": INT, "open_columns": ListT(INT),
        }, {
            "at": Method([INT, INT], STR), "is_empty": Method([INT, INT], BOOL),
            "height": Method([INT], INT), "count": Method([STR], INT),
            "has_line": Method([STR, INT], BOOL),
        })

    def side(self, b: Any, key: str) -> int:
        path = b.path + (key,)
        n = fixed_value(b, path, self.config.get(key), INT)
        if n is None:
            return 1
        if not 1 <= n <= MAX_SIDE:
            b.error(path, f"{key} must be from 1 to {MAX_SIDE}, got {n}")
            return 1
        return n

    def line_in(self, s: list, piece: str, k: int) -> bool:
        """`has_line` of the cells `s`, uncharged (the view charges; the flat play bounds
        its work from the game's shape). The piece's cells as the bits of one number,
        each row followed by an empty bit so that no run wraps to the next: k in a line
        one way are a bit that stays set when the number is shifted by that way's step
        k - 1 times and the shifts are and-ed."""
        if piece == EMPTY or k < 1 or s.count(piece) < k:
            return False
        if k == 1:
            return True
        return self.mask_line(sum(compress(self.bits, map(piece.__eq__, s))), k)

    def mask_line(self, mask: int, k: int) -> bool:
        """Whether the cells of `mask` (a piece's, as `line_in` makes it) hold k in a line."""
        if k < 1 or mask.bit_count() < k:
            return False
        if k == 1:
            return True
        for step in self.steps:
            m = mask
            for j in range(1, k):
                m &= mask >> (j * step)
                if not m:
                    break
            else:
                return True
        return False

    def global_type(self) -> ObjT:
        return self.type

    def new_state(self, st: Any) -> list:
        return [EMPTY] * (self.rows * self.columns)

    def copy_state(self, s: list) -> list:
        return list(s)

    def global_view(self, st: Any) -> GridView:
        return GridView(st.comps[self.index], self)

    def state_size(self, st: Any) -> dict[str, int]:
        return {"cells": len(st.comps[self.index])}

    def snapshot(self, st: Any, seat: int | None) -> dict:
        s, cols = st.comps[self.index], self.columns
        return {"rows": [s[r * cols:(r + 1) * cols] for r in range(self.rows)]}

    def render(self, st: Any, seat: int | None) -> str:
        """The top row first, as the board stands; column numbers underneath."""
        s, cols = st.comps[self.index], self.columns
        width = max([len(self.blank), len(str(cols - 1))] + [len(p) for p in self.pieces])
        lines = [f"{self.name}:"]
        for r in range(self.rows - 1, -1, -1):
            cells = [s[r * cols + c] or self.blank for c in range(cols)]
            lines.append("  " + " ".join(f"{x:>{width}}" for x in cells))
        lines.append("  " + " ".join(f"{c:>{width}}" for c in range(cols)))
        return "\n".join(lines)

    def html(self, st: Any, seat: int | None) -> str:
        """The board as it stands, row 0 at the bottom; for the seat that decides, a click
        on a cell (or a column, when a choice fills one cell of it) picks the choice."""
        return board_svg(self.name, self.rows, self.columns, st.comps[self.index], self.pieces,
                         self.targets(st, seat))

    def targets(self, st: Any, seat: int | None) -> dict[int, list[str]]:
        """The labels of `seat`'s choices by the one cell each would fill: found by trying
        each choice on a copy (`preview`, which deals anew what the seat cannot see), so a
        click works whatever the labels' words are (`x3`, `drop 3`, `c3`)."""
        if seat is None or st.is_over or st.current_player != seat:
            return {}
        if len(st.legal_actions()) > MAX_PREVIEWS:
            return {}  # left to the buttons: the drawing stays quick
        before = st.comps[self.index]
        # the copy's work is counted on a copy: looking at the page costs the game nothing
        trial = st.clone()
        out: dict[int, list[str]] = {}
        for a in trial.legal_actions():
            try:
                after = trial.preview(a).comps[self.index]
            except RulekitError:
                continue  # a choice that fails on the copy is not drawn as a cell
            changed = [i for i, (x, y) in enumerate(zip(before, after)) if x != y]
            if len(changed) == 1 and before[changed[0]] == EMPTY:
                out.setdefault(changed[0], []).append(a.label)
        return out

    # ---- the flat backend's form: the cells as the state's own list (gr{index}), a cell
    # looked up in `cell_at`, so that one off the board is a KeyError and the machine plays
    # the game (its PieceError) -------------------------------------------------------------
    #: its effects run no steps of their own (the flat backend checks the end by what they write)
    flat_runs_steps = False

    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        """The cells, and each piece's cells as the bits of a number (`gm{index}`, kept by
        the effects), so that `has_line` scans nothing."""
        i = int(self.index)
        return [f"gr{i} = comps[{i}]", f"gm{i} = {gen.w.c(self.masks)}(gr{i})"]

    def flat_held(self) -> list[str]:
        """The flat form's own values besides the state's list: what a preview keeps."""
        return [f"gm{int(self.index)}"]

    def masks(self, s: list) -> dict[str, int]:
        """Each piece's cells in `s`, as the bits `line_in` reads."""
        return {p: sum(compress(self.bits, map(p.__eq__, s))) for p in self.pieces}

    def flat_restore(self, s: list, old: list) -> None:
        s[:] = old

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        i = int(self.index)
        c = gen.w.c
        if name == "rows":
            return gen.value(f"({self.rows})", type_)
        if name == "columns":
            return gen.value(f"({self.columns})", type_)
        if name == "pieces":  # the file's list (expressions never change a list)
            return gen.value(c(self.pieces), type_, size=len(self.pieces))
        if name == "full":
            return gen.value(f"({c(EMPTY)} not in gr{i})", type_)
        if name == "empty_count":
            return gen.value(f"gr{i}.count({c(EMPTY)})", type_)
        if name == "open_columns":
            v = gen.w.t("v")
            top = (self.rows - 1) * self.columns
            return gen.value(f"[{v} for {v} in range({self.columns}) if gr{i}[{top} + {v}] == "
                             f"{c(EMPTY)}]", type_, size=self.columns)
        raise gen.uncovered(f"{self.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{self.name}[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """The grid's methods, as GridView's (`has_line` by `line_in`, its work bounded as a
        loop over every cell, which is what the machine charges)."""
        i = int(self.index)
        c = gen.w.c
        a = [x.need() for x in args]
        if name == "at":
            return gen.value(f"gr{i}[{c(self.cell_at)}[{a[0]}, {a[1]}]]", type_)
        if name == "is_empty":
            return gen.value(f"(gr{i}[{c(self.cell_at)}[{a[0]}, {a[1]}]] == {c(EMPTY)})",
                             type_)
        if name == "count":
            return gen.value(f"gr{i}.count({a[0]})", type_)
        if name == "height":
            return gen.value(f"{c(self.flat_height)}(gr{i}, {a[0]})", type_)
        if name == "has_line":
            gen.longest = max(gen.longest, self.rows * self.columns)
            return gen.value(f"{c(self.mask_line)}(gm{i}.get({a[0]}, 0), {a[1]})", type_)
        raise gen.uncovered(f"{self.name}.{name}()")

    def flat_height(self, s: list, column: int) -> int:
        """GridView.height of the cells `s`; a column off the board is a KeyError."""
        n = 0
        for x in self.column_cells[column]:
            if s[x] == EMPTY:
                break
            n += 1
        return n

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """`place`, `drop` and `clear_cell`, as GridView's: what it would refuse (a cell off
        the board or taken, a full column, a piece the grid has not) gives the game back."""
        i = int(self.index)
        w = gen.w
        c = w.c
        a = [x.need() for x in args]
        bits = c(self.bits)
        if method == "_clear":
            x, pc = w.t("x"), w.t("t")
            w.add(d, f"{x} = {c(self.cell_at)}[{a[0]}, {a[1]}]")
            w.add(d, f"{pc} = gr{i}[{x}]")
            w.add(d, f"if {pc} != {c(EMPTY)}: gm{i}[{pc}] &= ~{bits}[{x}]")
            w.add(d, f"gr{i}[{x}] = {c(EMPTY)}")
            return
        if method not in ("_place", "_drop"):
            raise gen.uncovered(f"the grid's effect {method.lstrip('_')}")
        x, pc = w.t("x"), w.t("t")
        if method == "_place":
            w.add(d, f"{x} = {c(self.cell_at)}[{a[0]}, {a[1]}]")
        w.add(d, f"{pc} = {a[-1]}")
        w.add(d, f"if {pc} not in {c(self.piece_set)}: raise GiveBack")
        if method == "_place":
            w.add(d, f"if gr{i}[{x}] != {c(EMPTY)}: raise GiveBack")
            w.add(d, f"gr{i}[{x}] = {pc}")
            w.add(d, f"gm{i}[{pc}] |= {bits}[{x}]")
            return
        w.add(d, f"for {x} in {c(self.column_cells)}[{a[0]}]:")
        w.add(d + 1, f"if gr{i}[{x}] == {c(EMPTY)}:")
        w.add(d + 2, f"gr{i}[{x}] = {pc}")
        w.add(d + 2, f"gm{i}[{pc}] |= {bits}[{x}]")
        w.add(d + 2, "break")
        w.add(d, "else:")
        w.add(d + 1, "raise GiveBack")
