"""Score sheets of rows crossed left to right, one per player, with optional row locks.

A cross may skip cells, but nothing left of the rightmost cross can be crossed
later. The last cell of a row may need a condition; crossing it can lock the row
(for everyone, with `lock: shared`), and the lock may count as one more cross.
"""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.fixed import fixed_value
from rulekit.components.markup import colour_style, esc
from rulekit.expr import BOOL, INT, STR, ListT, Method, ObjT


class RowView:
    """One row of one player's sheet."""

    __slots__ = ("st", "s", "kind", "seat", "r", "name", "cells", "_index_of", "_lasts",
                 "_locks", "_last_cell")

    def __init__(self, st: Any, kind: CrossSheet, seat: int, r: int) -> None:
        self.st = st
        self.s = st.comps[kind.index]
        self.kind = kind
        self.seat = seat
        self.r = r
        self.name = kind.row_names[r]
        self.cells = kind.cells[r]
        # what can_cross reads, looked up once: it runs for every row of every decision
        self._index_of = kind.index_of[r]
        self._lasts = self.s[0][seat]
        self._locks = self.s[2]
        self._last_cell = kind.last_index[r] if kind.last_needs is not None else -1

    @property
    def crosses(self) -> int:
        return self.s[1][self.seat][self.r]

    @property
    def locked(self) -> bool:
        return self.s[2][self.r]

    @property
    def last(self) -> int | None:
        i = self.s[0][self.seat][self.r]
        return self.cells[i] if i >= 0 else None

    @property
    def free(self) -> list[int]:
        """The cells that may still be crossed, ignoring the last cell's condition."""
        if self.s[2][self.r]:
            return []
        return self.cells[self.s[0][self.seat][self.r] + 1:]

    def can_cross(self, value: int) -> bool:
        r = self.r
        if self._locks[r]:
            return False
        i = self._index_of.get(value)
        if i is None or i <= self._lasts[r]:
            return False
        if i == self._last_cell:
            return bool(self.kind.last_needs(self.st, {"row": self,
                                                       "player": self.st.players[self.seat]}))
        return True

    def _cross(self, value: int) -> None:
        kind, s, r, seat = self.kind, self.s, self.r, self.seat
        i = kind.index_of[r].get(value)
        if i is None:
            return
        s[0][seat][r] = i
        s[1][seat][r] += 1
        s[3][seat][r] |= 1 << i
        if i == kind.last_index[r] and kind.lock:
            s[1][seat][r] += kind.lock_crosses
            if not s[2][r]:
                s[2][r] = True
                if kind.on_lock:
                    env = {"row": self, "player": self.st.players[seat]}
                    for step in kind.on_lock:  # effects only (checked when the game loads)
                        step.run(self.st, env)

    def _rebind(self, st: Any) -> RowView:
        return st.players[self.seat].view_of(self.kind).rows[self.r]

    def __str__(self) -> str:
        return self.name


class SheetView:
    """One player's sheet: `player.sheet.rows`, `player.sheet.row('red')`."""

    __slots__ = ("rows", "by_name", "kind", "seat")

    def __init__(self, st: Any, kind: CrossSheet, seat: int) -> None:
        self.kind = kind
        self.seat = seat
        self.rows = [RowView(st, kind, seat, r) for r in range(len(kind.row_names))]
        self.by_name = {row.name: row for row in self.rows}

    def _rebind(self, st: Any) -> SheetView:
        return st.players[self.seat].view_of(self.kind)

    def row(self, name: str) -> RowView:
        return self.by_name[name]

    @property
    def crosses(self) -> int:
        return sum(r.crosses for r in self.rows)


class SheetsView:
    """What is shared by all the sheets: which rows are locked."""

    __slots__ = ("s", "kind")

    def __init__(self, s: list, kind: CrossSheet) -> None:
        self.s = s
        self.kind = kind

    def _rebind(self, st: Any) -> SheetsView:
        return st.gviews[self.kind.index]

    @property
    def locked(self) -> list[str]:
        locks = self.s[2]
        if True not in locks:  # most of a game: an end condition reads it after each cross
            return []
        return [n for n, lk in zip(self.kind.row_names, locks) if lk]

    @property
    def rows(self) -> list[str]:
        return list(self.kind.row_names)


@register
class CrossSheet(Kind):
    kind = "cross_sheet"
    schema = {
        "type": "object",
        "required": ["rows"],
        "properties": {
            "rows": {
                "description": "name: {cells: expression giving the row's values left to right}",
                "type": "object",
                "minProperties": 1,
                "maxProperties": 100,
                "additionalProperties": {
                    "type": "object",
                    "required": ["cells"],
                    "additionalProperties": False,
                    "properties": {"cells": {"type": ["string", "array"]}},
                },
            },
            "last_needs": {
                "description": "condition for crossing a row's last cell (names: row, player)",
                "type": "string",
            },
            "lock": {
                "description": "crossing the last cell locks the row: for everyone (shared, "
                               "the default) or not at all (none)",
                "enum": ["shared", "none"],
            },
            "lock_crosses": {
                "description": "how many extra crosses the lock itself counts for",
                "type": "integer", "minimum": 0,
            },
            "on_lock": {"description": "effects when a row becomes locked (names: row, player)",
                        "type": "array", "items": {"$ref": "#/$defs/step"}},
        },
    }
    effects = {
        "cross": Effect("row", "Row", "_cross", {"value": INT},
                        doc="cross `value` in the row (the legality check is `row.can_cross`)"),
    }

    def declare(self, b: Any) -> None:
        self.row_names = [str(n) for n in (self.config.get("rows") or {})]
        self.lock = self.config.get("lock", "shared") == "shared"
        self.lock_crosses = int(self.config.get("lock_crosses", 1))
        row_t = ObjT("Row", {"name": STR, "cells": ListT(INT), "crosses": INT,
                             "locked": BOOL, "last": INT, "free": ListT(INT)},
                     {"can_cross": Method([INT], BOOL)})
        self.row_t = row_t
        row_t.printable = True  # its name
        row_t.text = ("name", "")  # a row writes its name, which no other row of it has
        self.sheet_t = ObjT("Sheet", {"rows": ListT(row_t), "crosses": INT},
                            {"row": Method([STR], row_t)})
        self.sheet_t.distinct = frozenset({"rows"})
        self.sheets_t = ObjT("Sheets", {"locked": ListT(STR), "rows": ListT(STR)})

    def compile(self, b: Any, scope: Any) -> None:
        self.cells: list[list[int]] = []
        self.index_of: list[dict[int, int]] = []
        self.last_index: list[int] = []
        named: set[str] = set()
        for key in self.config.get("rows") or {}:  # 1 and '1': two keys, one name
            if str(key) in named:
                b.error(b.path + ("rows", key), f"two rows are named '{key}'")
            named.add(str(key))
        for name, row in (self.config.get("rows") or {}).items():
            path = b.path + ("rows", name, "cells")
            cells = list(fixed_value(b, path, row.get("cells"), ListT(INT)) or [])
            if len(set(cells)) != len(cells):
                b.error(path, "a row's cells must all be different")
            if not cells:
                b.error(path, "a row needs at least one cell")
            self.cells.append(list(cells))
            self.index_of.append({v: i for i, v in enumerate(cells)})
            self.last_index.append(len(cells) - 1)
        inner = scope.with_locals(row=self.row_t, player=b.player_t)
        self.last_needs = self.last_needs_c = None
        if "last_needs" in self.config:
            c = b.expr(b.path + ("last_needs",), self.config["last_needs"], inner, BOOL)
            self.last_needs_c = c  # the checked tree, for the flat backend
            self.last_needs = c.fn if c is not None else (lambda st, env: False)
        self.on_lock = b.compile_steps(b.path + ("on_lock",), self.config.get("on_lock") or [],
                                       inner)
        if any(not s.pure for s in self.on_lock):
            b.error(b.path + ("on_lock",), "on_lock may only have effects",
                    "a decision or a chance step belongs in the flow")

    def global_type(self) -> ObjT:
        return self.sheets_t

    def player_type(self) -> ObjT:
        return self.sheet_t

    def new_state(self, st: Any) -> list:
        rows = len(self.row_names)
        # the rightmost crossed cell, the crosses (lock included), the shared locks, and a
        # bit mask of the crossed cells, for showing the sheet
        return [[[-1] * rows for _ in range(st.n)], [[0] * rows for _ in range(st.n)],
                [False] * rows, [[0] * rows for _ in range(st.n)]]

    def copy_state(self, s: list) -> list:
        return [[list(x) for x in s[0]], [list(x) for x in s[1]], list(s[2]),
                [list(x) for x in s[3]]]

    def global_view(self, st: Any) -> SheetsView:
        return SheetsView(st.comps[self.index], self)

    def player_view(self, st: Any, seat: int) -> SheetView:
        return SheetView(st, self, seat)

    def snapshot(self, st: Any, seat: int | None) -> dict:
        last, count, locked, mask = st.comps[self.index]
        return {
            "locked": [n for n, lk in zip(self.row_names, locked) if lk],
            "sheets": [{n: {"crossed": [v for i, v in enumerate(self.cells[r])
                                        if mask[p][r] >> i & 1],
                            "crosses": count[p][r]}
                        for r, n in enumerate(self.row_names)} for p in range(st.n)],
        }

    def render(self, st: Any, seat: int | None) -> str:
        if not self.lock:
            return ""
        locked = [n for n, lk in zip(self.row_names, st.comps[self.index][2]) if lk]
        return f"{self.name} rows locked: {', '.join(locked) or 'none'}"

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        """Each row with its cells: `[7]` crossed, `--` passed over or locked, the number free."""
        last, count, locked, mask = st.comps[self.index]
        width = max(len(n) for n in self.row_names)
        w = max((len(str(v)) for cells in self.cells for v in cells), default=1)
        lines = [f"{self.name}:"]
        for r, name in enumerate(self.row_names):
            cells = []
            for i, v in enumerate(self.cells[r]):
                if mask[player][r] >> i & 1:
                    cells.append(f"[{v:>{w}}]")
                elif i < last[player][r] or locked[r]:
                    cells.append(f" {'-' * w} ")
                else:
                    cells.append(f" {v:>{w}} ")
            lock = ", locked" if locked[r] else ""
            lines.append(f"  {name:<{width}} {''.join(cells)}  crosses {count[player][r]}{lock}")
        return "\n".join(lines)

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """A table: a row per sheet row in its colour, each cell crossed, passed over or free;
        on one's own sheet a cell is a piece to click as `ROW VALUE` (`red 7`)."""
        last, count, locked, mask = st.comps[self.index]
        rows = []
        for r, name in enumerate(self.row_names):
            cells = []
            for i, v in enumerate(self.cells[r]):
                if mask[player][r] >> i & 1:
                    state = "crossed"
                elif i < last[player][r] or locked[r]:
                    state = "gone"
                else:
                    state = "free"
                pick = f' data-pick="{esc(name)} {esc(v)}"' if player == seat else ""
                cells.append(f'<td class="cell {state}" data-value="{esc(v)}"{pick}>{esc(v)}</td>')
            lock = " locked" if locked[r] else ""
            rows.append(f'<tr class="row{lock}" data-row="{esc(name)}"{colour_style(name)}>'
                        f"<th>{esc(name)}</th>{''.join(cells)}"
                        f'<td class="count">{count[player][r]}</td></tr>')
        return f'<table class="sheet">{"".join(rows)}</table>'

    # ---- the flat backend (rulekit/backends/flat.py): the sheets as their own lists ------------
    def flat_types(self) -> list:
        return [self.row_t, self.sheet_t, self.sheets_t]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"x{i}last, x{i}cnt, x{i}lock, x{i}mask = comps[{i}]"]

    def flat_restore(self, s: list, old: list) -> None:
        for part in (0, 1, 3):
            for now, then in zip(s[part], old[part]):
                now[:] = then
        s[2][:] = old[2]

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        i = int(self.index)
        c = gen.w.c
        rows = len(self.row_names)
        if base.type is self.sheets_t:
            if name == "locked":
                v = gen.value(f"[nm for nm, lk in zip({c(self.row_names)}, x{i}lock) if lk]", type_,
                      size=rows)
                v.length = f"x{i}lock.count(True)"
                return v
            if name == "rows":
                return gen.value(f"list({c(self.row_names)})", type_, size=rows)
        elif base.type is self.sheet_t:
            if name == "rows":
                return gen.value(c(range(rows)), type_, size=rows,
                         elem=gen.value(None, self.row_t, self, base.seat))
            if name == "crosses":
                return gen.value(f"sum(x{i}cnt[{base.seat}])", type_)
        elif base.type is self.row_t:
            r, seat = base.need(), base.seat
            if name == "name":
                return gen.value(f"{c(self.row_names)}[{r}]", type_)
            if name == "crosses":
                return gen.value(f"x{i}cnt[{seat}][{r}]", type_)
            if name == "locked":
                return gen.value(f"x{i}lock[{r}]", type_)
            if name == "cells":
                return gen.value(f"list({c(self.cells)}[{r}])", type_,
                                 size=max(map(len, self.cells)))
        raise gen.uncovered(f"{base.type.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{base.type.name}[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list,
                     type_: Any) -> Any:
        """`row.can_cross(v)`, as RowView.can_cross decides it."""
        if base.type is not self.row_t or name != "can_cross":
            raise gen.uncovered(f"{base.type.name}.{name}()")
        i = int(self.index)
        c = gen.w.c
        r, seat = base.need(), base.seat
        j = gen.w.t("j")
        test = (f"(not x{i}lock[{r}] and ({j} := {c(self.index_of)}[{r}].get({args[0].need()}, -1))"
                f" > x{i}last[{seat}][{r}]")
        if self.last_needs_c is not None:
            env = {"row": base, "player": gen.value(seat, gen.player_type)}
            need = gen.expr(self.last_needs_c, env).need()
            test += f" and ({j} != {c(self.last_index)}[{r}] or bool({need}))"
        return gen.value(test + ")", type_)

    def flat_effect(self, gen: Any, method: str, target: Any, args: list,
                     env: dict, d: int) -> None:
        """`cross`, as RowView._cross does it, the lock's `on_lock` steps written in place."""
        if method != "_cross":
            raise gen.uncovered(f"the sheet's effect {method.lstrip('_')}")
        i = int(self.index)
        w = gen.w
        c = w.c
        r = w.t("r")
        s = w.t("q")
        j = w.t("j")
        w.add(d, f"{r} = {target.need()}")
        w.add(d, f"{s} = {target.seat}")
        w.add(d, f"{j} = {c(self.index_of)}[{r}].get({args[0].need()})")
        w.add(d, f"if {j} is not None:")
        w.add(d + 1, f"x{i}last[{s}][{r}] = {j}")
        w.add(d + 1, f"x{i}cnt[{s}][{r}] += 1")
        w.add(d + 1, f"x{i}mask[{s}][{r}] |= 1 << {j}")
        if self.lock:
            w.add(d + 1, f"if {j} == {c(self.last_index)}[{r}]:")
            w.add(d + 2, f"x{i}cnt[{s}][{r}] += {int(self.lock_crosses)}")
            w.add(d + 2, f"if not x{i}lock[{r}]:")
            w.add(d + 3, f"x{i}lock[{r}] = True")
            inner = {"row": gen.value(r, self.row_t, self, s),
                     "player": gen.value(s, gen.player_type)}
            gen.steps(tuple(self.on_lock), inner, d + 3, False)
            w.add(d + 3, "pass")
