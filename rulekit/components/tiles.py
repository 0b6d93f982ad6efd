"""Tile sets such as dominoes: a set dealt into hidden hands, one per player, and a stock.

A double-N set holds every pair (a, b) with 0 <= a <= b <= N, written `a|b`. The deal
is a chance step: sampled, it is a shuffle by the game's RNG; imposed, it is the whole
set in dealing order (the first hand, the next hand, ..., then the stock, drawn from
the front). A hand is seen by its owner only; the stock's order by nobody.
"""

from __future__ import annotations

from bisect import insort
from operator import attrgetter
from typing import Any

from rulekit.components.base import Chance, Effect, Kind, register, shuffle
from rulekit.components.fixed import hands_fit
from rulekit.components.markup import esc, tile_back, tile_svg
from rulekit.errors import PieceError
from rulekit.expr import BOOL, INT, ListT, Method, ObjT, Scope
from rulekit.expr.scope import Global

#: the largest N of a double-N set (a double-50 set has 1326 tiles)
MAX_PIP = 50


class Tile:
    """One tile: halves `a <= b`; immutable and shared by every state of a game."""

    __slots__ = ("a", "b", "pips", "is_double", "id", "name", "halves")

    def __init__(self, a: int, b: int, id: int) -> None:
        self.a = a
        self.b = b
        self.halves = 1 << a | 1 << b  # the numbers it shows, as bits: a line asks what fits
        self.pips = a + b
        self.is_double = a == b
        self.id = id  # the tile's place in the set, which is also the order of a hand
        self.name = f"{a}|{b}"

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Tile({self.name})"


#: what expressions read from a tile; `str(t)` and `{t}` in a label give `a|b`
TILE_T = ObjT("Tile", {"a": INT, "b": INT, "pips": INT, "is_double": BOOL})
TILE_T.printable = True
TILE_T.text = ("name", "0123456789|")  # a|b, one per tile of a set
#: one player's hand
HAND_T = ObjT("Hand", {"tiles": ListT(TILE_T), "size": INT, "pips": INT})
HAND_T.printable = True  # its tiles, as HandView writes them
# HandView's simple properties, read without a call in generated code (an end condition
# asks every hand's size after every lay)
HAND_T.inline = {"tiles": "{list}({0}.h)", "size": "{len}({0}.h)"}
HAND_T.distinct = frozenset({"tiles"})  # each tile of the set once, one name a tile

_by_id = attrgetter("id")


class HandView:
    """One player's hand: `player.hand.tiles`, `.size`, `.pips`."""

    __slots__ = ("s", "kind", "seat", "h")

    def __init__(self, s: list, kind: TileSet, seat: int) -> None:
        self.s = s
        self.kind = kind
        self.seat = seat
        self.h = s[0][seat]  # the hand's list, which effects change in place

    @property
    def tiles(self) -> list[Tile]:
        """The tiles held, in the set's order (a copy: effects may change the hand)."""
        return list(self.h)

    @property
    def size(self) -> int:
        return len(self.h)

    @property
    def pips(self) -> int:
        return sum(t.pips for t in self.s[0][self.seat])

    def _rebind(self, st: Any) -> HandView:
        return st.players[self.seat].view_of(self.kind)

    def _draw(self) -> None:
        stock = self.s[1]
        if stock:  # the front of the stock is the end of the list
            insort(self.s[0][self.seat], stock.pop(), key=_by_id)

    def _remove(self, tile: Tile) -> None:
        hand = self.s[0][self.seat]
        try:
            hand.remove(tile)
        except ValueError:
            raise PieceError(f"player {self.seat} does not hold {tile}") from None

    def __str__(self) -> str:
        return " ".join(t.name for t in self.s[0][self.seat])


class TileSetView:
    """What is common to all hands: `hand.stock` (its size), `hand.tiles` (the whole set)."""

    __slots__ = ("st", "s", "kind")

    def __init__(self, st: Any, kind: TileSet) -> None:
        self.st = st
        self.s = st.comps[kind.index]
        self.kind = kind

    @property
    def stock(self) -> int:
        return len(self.s[1])

    @property
    def tiles(self) -> list[Tile]:
        return list(self.kind.tiles)

    @property
    def highest(self) -> int:
        return self.kind.highest

    def tile(self, a: int, b: int) -> Tile | None:
        """The tile with halves a and b (in either order); none if the set has no such tile."""
        return self.kind.by_pair.get((a, b) if a <= b else (b, a))

    def _rebind(self, st: Any) -> TileSetView:
        return st.gviews[self.kind.index]


@register
class TileSet(Kind):
    kind = "tile_set"
    hides_information = True
    schema = {
        "type": "object",
        "required": ["double", "hand_size"],
        "properties": {
            "double": {
                "description": "N of a double-N set: every pair a|b with 0 <= a <= b <= N "
                               "(an expression fixed when the game loads)",
                "type": ["integer", "string"],
            },
            "hand_size": {
                "description": "tiles dealt to each player (an expression of params and "
                               "player_count); the rest is the stock",
                "type": ["integer", "string"],
            },
        },
    }
    effects = {
        "draw_tile": Effect("hand", "Hand", "_draw",
                            doc="the front tile of the stock goes into the hand; "
                                "nothing happens when the stock is empty"),
    }

    def declare(self, b: Any) -> None:
        if not self.per_player:
            b.error(b.path, "a tile_set is dealt into hands: it needs `per: player`",
                    "add `per: player`")
        self.tiles: list[Tile] = []
        self.by_pair: dict[tuple[int, int], Tile] = {}
        self.highest = 0
        self.set_t = ObjT("TileSet", {"stock": INT, "tiles": ListT(TILE_T), "highest": INT},
                          {"tile": Method([INT, INT], TILE_T)})
        self.set_t.inline = {"stock": "{len}({0}.s[1])"}

    def compile(self, b: Any, scope: Any) -> None:
        const = Scope(b.params)
        path = b.path + ("double",)
        c = b.expr(path, self.config.get("double"), const, INT)
        if c is not None:
            if not c.constant:
                b.error(path, "the set must be fixed when the game loads (use numbers and "
                              "params only)")
            else:
                n = c.fn(None, {})
                if not 0 <= n <= MAX_PIP:
                    b.error(path, f"a double-N set needs 0 <= N <= {MAX_PIP}, not {n}")
                else:
                    self.highest = n
                    self.tiles = [Tile(a, bb, 0) for a in range(n + 1) for bb in range(a, n + 1)]
                    for i, t in enumerate(self.tiles):
                        t.id = i
                    self.by_pair = {(t.a, t.b): t for t in self.tiles}
        seats = Scope(b.params, {"player_count": Global(INT, lambda st: st.n)})
        path = b.path + ("hand_size",)
        h = b.expr(path, self.config.get("hand_size"), seats, INT)
        self.hand_size = h.fn if h is not None else (lambda st, env: 0)
        if h is None or not self.tiles:
            return
        hands_fit(b, path, self.hand_size, len(self.tiles), "tile", "set",
                  f"hand_size times the player count may be at most {len(self.tiles)}")

    def global_type(self) -> ObjT:
        return self.set_t

    def player_type(self) -> ObjT:
        return HAND_T

    # ---- state: [hands (one list per seat, in the set's order), stock (front last)] ------------
    def new_state(self, st: Any) -> list:
        return [[[] for _ in range(st.n)], []]

    def copy_state(self, s: list) -> list:
        return [[list(h) for h in s[0]], list(s[1])]

    def global_view(self, st: Any) -> TileSetView:
        return TileSetView(st, self)

    def player_view(self, st: Any, seat: int) -> HandView:
        return HandView(st.comps[self.index], self, seat)

    def state_size(self, st: Any) -> dict[str, int]:
        hands, stock = st.comps[self.index]
        return {"tiles": sum(len(h) for h in hands) + len(stock)}

    def redeal_unseen(self, st: Any, seat: int, rng: Any) -> None:
        """Deal the other hands and the stock anew from the tiles `seat` cannot see.

        The pool is sorted by tile before the shuffle: in the true order (hands, then the
        stock) it would carry where each tile really is into the copy.
        """
        hands, stock = st.comps[self.index]
        pool = sorted([t for p, h in enumerate(hands) if p != seat for t in h] + stock,
                      key=_by_id)
        shuffle(rng, pool)
        k = 0
        for p, h in enumerate(hands):
            if p != seat:
                n = len(h)
                h[:] = sorted(pool[k:k + n], key=_by_id)
                k += n
        stock[:] = pool[k:]

    def snapshot(self, st: Any, seat: int | None) -> dict:
        hands, stock = st.comps[self.index]
        out_hands = []
        for p, h in enumerate(hands):
            entry: dict[str, Any] = {"count": len(h)}
            if seat is None or seat == p:
                entry["tiles"] = [t.name for t in h]
            out_hands.append(entry)
        out_stock: dict[str, Any] = {"count": len(stock)}
        if seat is None:
            out_stock["order"] = [t.name for t in reversed(stock)]
        return {"hands": out_hands, "stock": out_stock}

    def render(self, st: Any, seat: int | None) -> str:
        return f"stock: {_tiles(len(st.comps[self.index][1]))}"

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        """The hand's tiles for its owner (or an observer); for anyone else, only its size."""
        h = st.comps[self.index][0][player]
        if seat is not None and seat != player:
            return f"{self.name}: {_tiles(len(h))} (hidden)"
        names = [t.name for t in h]
        lines = [" ".join(names[i:i + 12]) for i in range(0, len(names), 12)] or ["(none)"]
        lines[-1] += f"  ({_tiles(len(h))}, {sum(t.pips for t in h)} pips)"
        return f"{'your ' if seat == player else ''}{self.name}: " + "\n  ".join(lines)

    def html(self, st: Any, seat: int | None) -> str:
        return f'<p class="stock">{esc(self.render(st, seat))}</p>'

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """The hand's tiles for its owner (or an observer); for anyone else, backs only."""
        h = st.comps[self.index][0][player]
        if seat is not None and seat != player:
            return (f'<div class="hand hidden" data-count="{len(h)}">'
                    + tile_back() * min(len(h), 30) + f" {_tiles(len(h))}</div>")
        return ('<div class="hand">' + "".join(tile_svg(t.a, t.b, pick=seat == player)
                                               for t in h)
                + f" ({_tiles(len(h))}, {sum(t.pips for t in h)} pips)</div>")

    # ---- the deal ---------------------------------------------------------------------------
    def _sample(self, view: TileSetView, rng: Any) -> list[list[int]]:
        order = list(self.tiles)
        shuffle(rng, order)
        return [[t.a, t.b] for t in order]

    def _check(self, view: TileSetView, outcome: Any) -> str | None:
        total = len(self.tiles)
        if not isinstance(outcome, (list, tuple)):
            return f"a deal is the whole set as a list of {total} pairs [a, b] in dealing order"
        if len(outcome) != total:
            return f"a deal lists all {total} tiles of the set, not {len(outcome)}"
        seen: set[int] = set()
        for item in outcome:
            if (not isinstance(item, (list, tuple)) or len(item) != 2
                    or any(type(x) is not int for x in item)):
                return f"{item!r} is not a tile: write a pair [a, b] of whole numbers"
            a, b = item
            t = self.by_pair.get((a, b) if a <= b else (b, a))
            if t is None:
                return f"{a}|{b} is not a tile of the double-{self.highest} set"
            if t.id in seen:
                return f"{t} is dealt twice"
            seen.add(t.id)
        size = self.hand_size(view.st, {})
        if view.st.n * size > total:
            return f"{view.st.n} hands of {size} tiles do not fit a set of {total} tiles"
        return None

    def _apply(self, view: TileSetView, outcome: Any) -> None:
        by_pair = self.by_pair
        self._deal(view, [by_pair[(a, b) if a <= b else (b, a)] for a, b in outcome])

    def _draw(self, view: TileSetView, rng: Any) -> list[list[int]]:
        """`_sample` and `_apply` at once, the deal of random play: the tiles shuffled
        are dealt as they are, not looked up again from their pairs."""
        order = list(self.tiles)
        shuffle(rng, order)
        self._deal(view, order)
        return [[t.a, t.b] for t in order]

    def _deal(self, view: TileSetView, order: list[Tile]) -> None:
        """The hands from the front of `order`, each in the set's order; the rest is the
        stock, drawn from the front."""
        hands, stock = view.s
        size = self.hand_size(view.st, {})
        for p, h in enumerate(hands):
            h[:] = sorted(order[p * size:(p + 1) * size], key=_by_id)
        rest = order[len(hands) * size:]
        rest.reverse()
        stock[:] = rest


    # ---- the flat backend's form: the hands and the stock as the state's own lists, a tile
    # as the Tile itself (immutable and shared, so `in` and `==` compare it as the machine does)
    #: its effects run no steps of their own (the flat backend checks the end by what they write)
    flat_runs_steps = False

    def flat_types(self) -> list:
        return [self.set_t, HAND_T, TILE_T]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"h{i}, k{i} = comps[{i}]"]

    def flat_restore(self, s: list, old: list) -> None:
        for now, then in zip(s[0], old[0]):
            now[:] = then
        s[1][:] = old[1]

    def flat_same(self, type_: Any) -> bool:
        """Whether the flat values of `type_` are the machine's own objects (tiles)."""
        return type_ is TILE_T

    def flat_hand(self, base: Any) -> str:
        """The source of a hand's list (the state's own: effects change it in place)."""
        return f"h{int(self.index)}[{base.seat}]"

    def flat_tile(self, gen: Any, kind: Any = None) -> Any:
        """What a tile of this set is like in the flat code."""
        return gen.value(None, TILE_T, kind or self)

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        i = int(self.index)
        if base.type is TILE_T:
            return flat_tile_attr(gen, base, name, type_)
        if base.type is self.set_t:
            if name == "stock":  # its size, bounded by the set's: `range(hand.stock)` loops
                return gen.value(f"len(k{i})", type_, size=len(self.tiles))
            if name == "tiles":
                return gen.value(f"list({gen.w.c(self.tiles)})", type_, size=len(self.tiles),
                                 elem=self.flat_tile(gen))
            if name == "highest":
                return gen.value(f"({int(self.highest)})", type_)
        elif base.type is HAND_T:
            hand = self.flat_hand(base)
            if name == "tiles":  # a copy, as HandView.tiles (a `let` keeps it across a draw)
                v = gen.value(f"list({hand})", type_, size=len(self.tiles),
                              elem=self.flat_tile(gen))
                v.length = f"len({hand})"
                return v
            if name == "size":
                return gen.value(f"len({hand})", type_)
            if name == "pips":
                return gen.value(f"sum([t.pips for t in {hand}])", type_)
        raise gen.uncovered(f"{base.type.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{base.type.name}[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """`hand.tile(a, b)`: the tile with halves a and b in either order, or none."""
        if base.type is self.set_t and name == "tile":
            pairs = self.__dict__.get("_flat_pairs")
            if pairs is None:  # each pair in both orders
                pairs = self._flat_pairs = {**self.by_pair, **{
                    (b, a): t for (a, b), t in self.by_pair.items()}}
            return gen.value(f"{gen.w.c(pairs)}.get(({args[0].need()}, {args[1].need()}))",
                             type_, self)
        raise gen.uncovered(f"{base.type.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """`draw_tile`, as HandView._draw: the front of the stock (the list's end) goes into
        the hand at its place in the set's order; nothing when the stock is empty."""
        if method != "_draw" or target.type is not HAND_T:
            raise gen.uncovered(f"the tile set's effect {method.lstrip('_')}")
        i = int(self.index)
        w = gen.w
        w.add(d, f"if k{i}: {w.c(insort)}({self.flat_hand(target)}, k{i}.pop(), "
                 f"key={w.c(_by_id)})")

    def flat_chance(self, gen: Any, name: str, d: int) -> None:
        """`deal`, as `_draw` deals: the set shuffled by the game's RNG, the hands from its
        front (each in the set's order), the rest the stock (drawn from the front)."""
        if name != "deal":
            raise gen.uncovered(f"`{name}` of a tile set")
        i = int(self.index)
        w = gen.w
        w.add(d, f"o = list({w.c(self.tiles)})")
        w.add(d, f"{w.c(shuffle)}(grng, o)")
        w.add(d, f"z = {w.c(self.hand_size)}(st, {{}})")
        w.add(d, f"for p, hd in enumerate(h{i}): hd[:] = sorted(o[p * z:(p + 1) * z], "
                 f"key={w.c(_by_id)})")
        w.add(d, f"k{i}[:] = o[len(h{i}) * z:][::-1]")
        gen.record(d, "o")

    def flat_outcome(self, view: TileSetView, order: list) -> list[list[int]]:
        """A deal's outcome from the order the flat play recorded (the whole set)."""
        return [[t.a, t.b] for t in order]


def flat_tile_attr(gen: Any, base: Any, name: str, type_: Any) -> Any:
    """A tile's attribute in the flat code (the tile is the Tile itself)."""
    if name in ("a", "b", "pips", "is_double", "name"):
        return gen.value(f"{base.need()}.{name}", type_)
    raise gen.uncovered(f"Tile.{name}")


def _tiles(n: int) -> str:
    return f"{n} tile" + ("" if n == 1 else "s")


TileSet.chances = {
    "deal": Chance(
        sample=lambda view, rng: view.kind._sample(view, rng),
        check=lambda view, outcome: view.kind._check(view, outcome),
        apply=lambda view, outcome: view.kind._apply(view, outcome),
        draw=lambda view, rng: view.kind._draw(view, rng),
        doc="shuffle the whole set and deal the hands; the rest is the stock",
        public=False,
    ),
}
