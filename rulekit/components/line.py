"""A line of play with two open ends, as in dominoes: tiles are laid so that touching
halves match.

A tile laid at an end is turned so that its touching half shows the end's number; its
other half becomes the new open end. Doubles lie crosswise (`doubles: crosswise`, the
default) or in line (`inline`). The end sum adds the open ends; a crosswise double at an
open end counts both of its halves, and a tile alone in the line counts both of its
halves once (so an opening 6|6 gives 12, and after 6|6 then 6|2 on the right the sum is
12 + 2: the left end is still the crosswise double).
"""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.markup import esc, tile_svg
from rulekit.components.tiles import HAND_T, TILE_T, Tile, TileSet, flat_tile_attr
from rulekit.errors import PieceError
from rulekit.expr import BOOL, INT, STR, ListT, Method, ObjT

#: an open end: which side, the number it shows, whether a double lies there
END_T = ObjT("End", {"side": STR, "value": INT, "is_double": BOOL, "tile": TILE_T})
END_T.printable = True  # "left 5"


class End:
    """An open end as expressions read it (a snapshot: it does not follow later lays)."""

    __slots__ = ("side", "value", "is_double", "tile")

    def __init__(self, side: str, value: int, tile: Tile) -> None:
        self.side = side
        self.value = value
        self.is_double = tile.is_double
        self.tile = tile

    def __str__(self) -> str:
        return f"{self.side} {self.value}"


class LineView:
    """The line: `line.empty`, `line.left`, `line.end_sum`, `line.fits(t)`, `line.ends_for(t)`."""

    __slots__ = ("s", "kind")

    def __init__(self, s: list, kind: Line) -> None:
        self.s = s
        self.kind = kind

    # ---- read -----------------------------------------------------------------------------
    @property
    def empty(self) -> bool:
        return not self.s[0]

    @property
    def size(self) -> int:
        return len(self.s[0])

    @property
    def tiles(self) -> list[Tile]:
        """The tiles from the left end to the right end."""
        return [t for _x, _y, t in self.s[0]]

    @property
    def left(self) -> int | None:
        placed = self.s[0]
        return placed[0][0] if placed else None

    @property
    def right(self) -> int | None:
        placed = self.s[0]
        return placed[-1][1] if placed else None

    @property
    def last(self) -> Tile | None:
        """The tile laid last (none before the first lay)."""
        return self.s[1]

    @property
    def ends(self) -> list[End]:
        placed = self.s[0]
        if not placed:
            return []
        return [End("left", placed[0][0], placed[0][2]), End("right", placed[-1][1], placed[-1][2])]

    @property
    def end_sum(self) -> int:
        return self.s[2]

    def fits(self, tile: Tile) -> bool:
        """Whether the tile can be laid: at an open end, or anywhere on an empty line."""
        return _fits(self.s[0], tile)

    def fitting(self, tiles: list[Tile]) -> list[Tile]:
        """The tiles of `tiles` that can be laid now (all of them on an empty line)."""
        placed = self.s[0]
        if not placed:
            return list(tiles)
        # the open ends and each tile's halves as bits, and a loop rather than a
        # comprehension: a random game asks at every turn, of every tile in the hand
        ends = 1 << placed[0][0] | 1 << placed[-1][1]
        out = []
        for t in tiles:
            if t.halves & ends:
                out.append(t)
        return out

    def ends_for(self, tile: Tile) -> list[str]:
        """The open ends the tile can be laid at: 'left', 'right' (none on an empty line)."""
        return list(_ends_for(self.s[0], tile))

    def _rebind(self, st: Any) -> LineView:
        return st.gviews[self.kind.index]

    # ---- effects ----------------------------------------------------------------------------
    def _lay(self, tile: Tile, end: str | None, hand: Any) -> None:
        if not isinstance(tile, Tile):
            raise PieceError(f"only a tile can be laid in line '{self.kind.name}', not {tile!r}")
        placed = self.s[0]
        if placed:
            if end is None:
                sides = self.ends_for(tile)
                if not sides:
                    raise PieceError(f"{tile} fits no open end of line '{self.kind.name}'")
                end = sides[0]
            else:  # the end named (every lay a player chose): only its number is compared
                if end == "left":
                    value = placed[0][0]
                elif end == "right":
                    value = placed[-1][1]
                else:
                    raise PieceError(f"a line has the ends 'left' and 'right', not {end!r}")
                if tile.a != value and tile.b != value:
                    raise PieceError(f"{tile} does not fit the {end} end ({value}) of line "
                                     f"'{self.kind.name}'")
        if hand is not None:
            hand._remove(tile)
        if not placed:
            placed.append((tile.a, tile.b, tile))
        elif end == "left":
            v = placed[0][0]
            placed.insert(0, (tile.a, v, tile) if tile.b == v else (tile.b, v, tile))
        else:
            v = placed[-1][1]
            placed.append((v, tile.b, tile) if tile.a == v else (v, tile.a, tile))
        self.s[1] = tile
        self.s[2] = _end_sum(placed, self.kind.crosswise)

    def _clear(self) -> None:
        self.s[0].clear()
        self.s[1] = None
        self.s[2] = 0


def _end_sum(placed: list, crosswise: bool) -> int:
    """The open ends added up (see the module's docstring), kept with the line: scoring
    rules read it after every lay, often several times."""
    if len(placed) == 1:
        return placed[0][2].pips
    left, _, lt = placed[0]
    _, right, rt = placed[-1]
    if crosswise:
        if lt.is_double:
            left += left
        if rt.is_double:
            right += right
    return left + right


@register
class Line(Kind):
    kind = "line"
    schema = {
        "type": "object",
        "properties": {
            "doubles": {
                "description": "how doubles lie: crosswise (at an open end it counts both "
                               "halves in the end sum) or inline (one half, like any tile)",
                "enum": ["crosswise", "inline"],
            },
        },
    }
    effects = {
        "lay_tile": Effect("line", "Line", "_lay", {"tile": TILE_T, "end": STR, "from": HAND_T},
                           optional=("end", "from"),
                           doc="lay the tile at an open end ('left' or 'right'; may be omitted "
                               "when only one end fits, or on an empty line), turned so that "
                               "touching halves match; `from`: the hand it leaves"),
        "clear_line": Effect("line", "Line", "_clear", doc="take every tile off the line"),
    }

    def declare(self, b: Any) -> None:
        if self.per_player:
            b.error(b.path + ("per",), "a line of play is shared: remove `per: player`")
        self.crosswise = self.config.get("doubles", "crosswise") == "crosswise"
        self.type = ObjT("Line", {
            "empty": BOOL, "size": INT, "tiles": ListT(TILE_T), "left": INT, "right": INT,
            "last": TILE_T, "ends": ListT(END_T), "end_sum": INT,
        }, {"fits": Method([TILE_T], BOOL),
            "ends_for": Method([TILE_T], ListT(STR), distinct=True),
            "fitting": Method([ListT(TILE_T)], ListT(TILE_T), keeps=0)})
        # LineView's simple properties, read without a call in generated code: a scoring
        # rule reads the end sum after every lay, an end condition the line's emptiness
        self.type.inline = {"empty": "(not {0}.s[0])", "size": "{len}({0}.s[0])",
                            "last": "{0}.s[1]", "end_sum": "{0}.s[2]"}

    def global_type(self) -> ObjT:
        return self.type

    # ---- the flat backend's form: the state's own list of placed tiles, the last tile laid
    # and the end sum; tiles are the Tiles themselves ---------------------------------------
    #: its effects run no steps of their own (the flat backend checks the end by what they write)
    flat_runs_steps = False

    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"n{i} = comps[{i}]", f"n{i}p = n{i}[0]"]

    def flat_restore(self, s: list, old: list) -> None:
        s[0][:] = old[0]
        s[1] = old[1]
        s[2] = old[2]

    def _flat_tile(self, gen: Any, src: str | None = None) -> Any:
        return gen.value(src, TILE_T, self)

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        i = int(self.index)
        p = f"n{i}p"
        if base.type is TILE_T:
            return flat_tile_attr(gen, base, name, type_)
        if base.type is self.type:
            if name == "empty":
                return gen.value(f"(not {p})", type_)
            if name == "size":
                return gen.value(f"len({p})", type_)
            if name == "left":
                return gen.value(f"({p}[0][0] if {p} else None)", type_)
            if name == "right":
                return gen.value(f"({p}[-1][1] if {p} else None)", type_)
            if name == "last":
                return self._flat_tile(gen, f"n{i}[1]")
            if name == "end_sum":
                return gen.value(f"n{i}[2]", type_)
        raise gen.uncovered(f"{base.type.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{base.type.name}[...]")

    def flat_same(self, type_: Any) -> bool:
        return type_ is TILE_T

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """`fitting` and `ends_for`, as LineView's (the same order), over the placed list."""
        p = f"n{int(self.index)}p"
        if base.type is self.type and name == "fitting":
            tiles = args[0]
            src = tiles.need()
            if src.startswith("list(") and src.endswith(")") and src.count("(") == 1:
                src = src[5:-1]  # a hand's copy: fitting reads it and builds a list of its own
            # _fitting written out: the open ends as bits, tested against each tile's halves
            t, e = gen.w.t("v"), gen.w.t("v")
            return gen.value(f"(list({src}) if not {p} else [{t} for {e} in [1 << {p}[0][0] | "
                             f"1 << {p}[-1][1]] for {t} in {src} if {t}.halves & {e}])", type_,
                             size=tiles.size, elem=self._flat_tile(gen))
        if base.type is self.type and name == "ends_for":
            t = args[0].need()
            if t.isidentifier():  # _ends_for written out: the ends the halves show, as bits
                return gen.value(f"({gen.w.c(_ENDS)}[({t}.halves >> {p}[0][0] & 1) | "
                                 f"({t}.halves >> {p}[-1][1] & 1) << 1] if {p} else "
                                 f"{gen.w.c(_NO_END)})", type_, size=2)
            return gen.value(f"{gen.w.c(_ends_for)}({p}, {t})", type_, size=2)
        if base.type is self.type and name == "fits":
            return gen.value(f"{gen.w.c(_fits)}({p}, {args[0].need()})", type_)
        raise gen.uncovered(f"{base.type.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """`lay_tile`, as LineView._lay (a lay it would refuse gives the game back)."""
        i = int(self.index)
        w = gen.w
        if method == "_clear":
            w.add(d, f"n{i}p.clear(); n{i}[1] = None; n{i}[2] = 0")
            return
        if method != "_lay":
            raise gen.uncovered(f"the line's effect {method.lstrip('_')}")
        tile, end, hand = args
        if hand is not None and not isinstance(hand.kind, TileSet):
            raise gen.uncovered("a lay from this value")
        # LineView._lay written out (a lay it would refuse gives the game back)
        t, v = w.t("t"), w.t("v")
        p = f"n{i}p"
        w.add(d, f"{t} = {tile.need()}")
        w.add(d, f"if {t}.__class__ is not {w.c(Tile)}: raise GiveBack")
        if end is None:  # the first end it fits, on a line that has tiles
            e = w.t("e")
            w.add(d, f"{e} = {w.c(_ends_for)}({p}, {t})")
            w.add(d, f"if {p} and not {e}: raise GiveBack")
            w.add(d, f"{e} = {e}[0] if {e} else None")
            e_src = e
        else:
            e_src = w.t("e")
            w.add(d, f"{e_src} = {end.need()}")
        w.add(d, f"if {p}:")
        w.add(d + 1, f"if {e_src} == 'left': {v} = {p}[0][0]")
        w.add(d + 1, f"elif {e_src} == 'right': {v} = {p}[-1][1]")
        w.add(d + 1, "else: raise GiveBack")
        w.add(d + 1, f"if {t}.a != {v} and {t}.b != {v}: raise GiveBack")
        if hand is not None:  # a tile not held: a ValueError, which gives the game back
            w.add(d, f"{hand.kind.flat_hand(hand)}.remove({t})")
        w.add(d, f"if not {p}: {p}.append(({t}.a, {t}.b, {t})); n{i}[2] = {t}.pips")
        w.add(d, "else:")
        w.add(d + 1, f"if {e_src} == 'left': {p}.insert(0, ({t}.a, {v}, {t}) if {t}.b == {v} "
                     f"else ({t}.b, {v}, {t}))")
        w.add(d + 1, f"else: {p}.append(({v}, {t}.b, {t}) if {t}.a == {v} else "
                     f"({v}, {t}.a, {t}))")
        # the end sum (_end_sum): a crosswise double at an open end counts both halves
        x, y = f"{p}[0]", f"{p}[-1]"
        if self.crosswise:
            w.add(d + 1, f"n{i}[2] = ({x}[0] << 1 if {x}[2].is_double else {x}[0]) + "
                         f"({y}[1] << 1 if {y}[2].is_double else {y}[1])")
        else:
            w.add(d + 1, f"n{i}[2] = {x}[0] + {y}[1]")
        w.add(d, f"n{i}[1] = {t}")

    # ---- state: [placed (left half, right half, tile) from left to right, last tile laid,
    # end sum] -------------------------------------------------------------------------------
    def new_state(self, st: Any) -> list:
        return [[], None, 0]

    def copy_state(self, s: list) -> list:
        return [list(s[0]), s[1], s[2]]

    def global_view(self, st: Any) -> LineView:
        return LineView(st.comps[self.index], self)

    def state_size(self, st: Any) -> dict[str, int]:
        # the same key as a tile set's, so that tiles moving from hands to the line add up
        return {"tiles": len(st.comps[self.index][0])}

    def _text(self, x: int, y: int, tile: Tile) -> str:
        return f"[{x}|{y}]" if tile.is_double and self.crosswise else f"{x}|{y}"

    def snapshot(self, st: Any, seat: int | None) -> dict:
        placed, last, _sum = st.comps[self.index]
        view = LineView(st.comps[self.index], self)
        return {
            "line": [f"{x}|{y}" for x, y, _t in placed],
            "ends": {e.side: e.value for e in view.ends},
            "end_sum": view.end_sum,
            "last": last.name if last is not None else None,
        }

    def render(self, st: Any, seat: int | None) -> str:
        """The tiles from left to right (crosswise doubles in brackets), wrapped, then the ends."""
        placed, last, _sum = st.comps[self.index]
        if not placed:
            return f"{self.name}: (empty)"
        view = LineView(st.comps[self.index], self)
        texts = [self._text(x, y, t) for x, y, t in placed]
        rows = [" ".join(texts[i:i + 12]) for i in range(0, len(texts), 12)]
        count = f"{len(placed)} tile{'' if len(placed) == 1 else 's'}"
        return (f"{self.name} ({count}, left to right): " + "\n  ".join(rows)
                + f"\n  open ends: left {view.left}, right {view.right}; end sum "
                f"{view.end_sum}; last laid {last}")

    def html(self, st: Any, seat: int | None) -> str:
        """The tiles from left to right as laid (crosswise doubles standing), then the ends."""
        placed, last, _sum = st.comps[self.index]
        if not placed:
            return '<div class="line empty">(no tile laid yet)</div>'
        view = LineView(st.comps[self.index], self)
        tiles = "".join(tile_svg(x, y, t.is_double and self.crosswise, t.name)
                        for x, y, t in placed)
        return (f'<div class="line">{tiles}</div><p class="ends">open ends: left '
                f"{view.left}, right {view.right}; end sum {view.end_sum}; last laid "
                f"{esc(last)}</p>")


def _ends_for(placed: list, tile: Tile) -> list[str]:
    """LineView.ends_for over the placed list (the lists it returns are shared: the flat
    code only reads them)."""
    if not placed:
        return _NO_END
    h = tile.halves
    if h >> placed[0][0] & 1:
        return _BOTH if h >> placed[-1][1] & 1 else _LEFT
    return _RIGHT if h >> placed[-1][1] & 1 else _NO_END


_NO_END: list[str] = []
_LEFT, _RIGHT, _BOTH = ["left"], ["right"], ["left", "right"]
#: the ends a tile fits by bits: 1 the left one, 2 the right one
_ENDS = [_NO_END, _LEFT, _RIGHT, _BOTH]


def _fits(placed: list, tile: Tile) -> bool:
    if not placed:
        return True
    left, right = placed[0][0], placed[-1][1]
    a, b = tile.a, tile.b
    return a == left or b == left or a == right or b == right
