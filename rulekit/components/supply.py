"""Supplies: piles of identical tokens by key, for the game or for each player.

A shared supply (coins, goods, resources) starts with counts that may depend on the number
of players; with `per: player` every player has their own piles (what they won or hold),
empty unless `count` says otherwise. `move_token` moves tokens of one key between any two
supplies and quietly moves fewer (or none) when the pile runs out.
"""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.fixed import LOAD_ERRORS, for_players, key_list
from rulekit.components.markup import piles
from rulekit.errors import PieceError
from rulekit.expr import ANY, BOOL, INT, ListT, Method, ObjT, Scope

#: the type of the `to` argument; object types fit by name
SUPPLY = ObjT("Supply")


class SupplyView:
    """One set of piles: the game's supply, or one player's."""

    __slots__ = ("s", "kind", "seat")

    def __init__(self, s: list[int], kind: Supply, seat: int | None) -> None:
        self.s = s
        self.kind = kind
        self.seat = seat

    def _key(self, key: Any) -> int:
        i = self.kind.key_index.get(key)
        if i is None:
            raise PieceError(f"supply '{self.kind.name}' has no pile {key!r}; its piles are "
                             f"{', '.join(map(str, self.kind.keys))}")
        return i

    # ---- read ---------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> int:
        i = self.kind.key_index.get(key)  # _key written out: read at every move of a game
        return self.s[i if i is not None else self._key(key)]

    def __len__(self) -> int:
        return len(self.s)

    def count(self, key: Any) -> int:
        return self.s[self._key(key)]

    def has(self, key: Any) -> bool:
        return self.s[self._key(key)] > 0

    @property
    def keys(self) -> list:
        return list(self.kind.keys)

    @property
    def counts(self) -> list[int]:
        return list(self.s)

    @property
    def total(self) -> int:
        return sum(self.s)

    @property
    def empty(self) -> list:
        """The keys whose pile has no token left."""
        if 0 not in self.s:  # most of a game: an end condition reads it after each move
            return []
        return [k for k, c in zip(self.kind.keys, self.s) if not c]

    @property
    def sets(self) -> int:
        """Complete sets held: how many tokens of every key, at least."""
        return min(self.s)

    # ---- effects ------------------------------------------------------------------------
    def _move(self, key: Any, to: SupplyView, count: int | None) -> None:
        i = self.kind.key_index.get(key)
        if i is None:
            i = self._key(key)
        n = min(self.s[i], 1 if count is None else count)
        if n <= 0:
            return
        j = to.kind.key_index.get(key)
        if j is None:
            j = to._key(key)
        self.s[i] -= n
        to.s[j] += n

    def _rebind(self, st: Any) -> SupplyView:
        if self.seat is None:
            return st.gviews[self.kind.index]
        return st.players[self.seat].view_of(self.kind)

    def __str__(self) -> str:
        return self.kind.name if self.seat is None else f"{self.kind.name} of player {self.seat}"


@register
class Supply(Kind):
    kind = "supply"
    schema = {
        "type": "object",
        "required": ["keys"],
        "properties": {
            "keys": {
                "description": "the piles' keys (numbers or names): a list, or an expression "
                               "of params such as range(...)",
                "type": ["string", "array"],
            },
            "count": {
                "description": "tokens in each pile when the game starts (default 0): a number "
                               "or an expression of params, player_count, key and index (the "
                               "pile's position in keys)",
                "type": ["string", "integer"],
            },
        },
    }
    effects = {
        "move_token": Effect("from", "Supply", "_move", {"key": ANY, "to": SUPPLY, "count": INT},
                             optional=("count",),
                             doc="move `count` tokens (default 1) of a key from one supply to "
                                 "another; an empty pile moves nothing"),
    }

    def declare(self, b: Any) -> None:
        self.keys, key_t = key_list(b, b.path + ("keys",), self.config.get("keys"), "pile")
        self.key_index = {k: i for i, k in enumerate(self.keys)}
        self.key_t = key_t
        self.type = ObjT("Supply", {
            "keys": ListT(key_t), "counts": ListT(INT), "total": INT, "empty": ListT(key_t),
            "sets": INT,
        }, {"count": Method([key_t], INT), "has": Method([key_t], BOOL)}, index=(key_t, INT))
        # read without a call in generated code: a trigger asks after every move
        self.type.inline = {"sets": "{min}({0}.s)", "total": "{sum}({0}.s)"}
        self.type.printable = True  # its name, and whose it is

    def compile(self, b: Any, scope: Scope) -> None:
        # the starting counts depend on the number of players at most: work them out now
        # for every player count the game allows, so that a bad count is a located error
        # and a new game only copies a list
        self.initial: dict[int, list[int]] = {}
        path = b.path + ("count",)
        inner = Scope(b.params, {"player_count": scope.globals["player_count"]},
                      {"key": self.key_t, "index": INT})
        c = b.expr(path, self.config.get("count", 0), inner, INT)
        if c is None:
            return
        players = b.src.data.get("players") or {}
        lo = players.get("min", 1)
        for n in range(lo, max(lo, players.get("max", lo)) + 1):
            counts = []
            for i, k in enumerate(self.keys):
                try:
                    v = for_players(c.fn, n, {"key": k, "index": i})
                except LOAD_ERRORS as exc:
                    b.error(path, f"pile {k!r} with {n} players: {exc}",
                            "does a params list have one value per key?")
                    return
                if v < 0:
                    b.error(path, f"pile {k!r} would start with {v} tokens with {n} players")
                    return
                counts.append(v)
            self.initial[n] = counts

    def global_type(self) -> ObjT | None:
        return None if self.per_player else self.type

    def player_type(self) -> ObjT:
        return self.type

    def new_state(self, st: Any) -> list:
        counts = self.initial[st.n]
        if self.per_player:
            return [list(counts) for _ in range(st.n)]
        return list(counts)

    def copy_state(self, s: list) -> list:
        if self.per_player:
            return [list(x) for x in s]
        return list(s)

    def global_view(self, st: Any) -> SupplyView | None:
        if self.per_player:
            return None
        return SupplyView(st.comps[self.index], self, None)

    def player_view(self, st: Any, seat: int) -> SupplyView:
        return SupplyView(st.comps[self.index][seat], self, seat)

    def state_size(self, st: Any) -> dict[str, int]:
        s = st.comps[self.index]
        return {"tokens": sum(map(sum, s)) if self.per_player else sum(s)}

    def snapshot(self, st: Any, seat: int | None) -> dict:
        s = st.comps[self.index]
        counts = [list(x) for x in s] if self.per_player else list(s)
        return {"keys": list(self.keys), "counts": counts}

    def _piles(self, counts: list[int]) -> str:
        """`5: 11, 6: 10 (total 21)`: every pile, so that empty ones show too."""
        piles = ", ".join(f"{k}: {c}" for k, c in zip(self.keys, counts))
        return f"{piles} (total {sum(counts)})"

    def render(self, st: Any, seat: int | None) -> str:
        if self.per_player:
            return ""
        return f"{self.name} left: {self._piles(st.comps[self.index])}"

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        if not self.per_player:
            return ""
        return f"{self.name}: {self._piles(st.comps[self.index][player])}"

    def html(self, st: Any, seat: int | None) -> str:
        """The shared piles, every one (an empty pile matters to the rules)."""
        if self.per_player:
            return ""
        return piles(self.name, self.keys, st.comps[self.index])

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """A player's piles: those holding a token (what the player has won)."""
        if not self.per_player:
            return ""
        counts = st.comps[self.index][player]
        held = [(k, c) for k, c in zip(self.keys, counts) if c]
        return piles(self.name, [k for k, _c in held], [c for _k, c in held], "supply held")

    # ---- the flat backend's form: the piles as the state's own lists (su{index}) ------------
    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"su{i} = comps[{i}]"]

    def flat_restore(self, s: list, old: list) -> None:
        if self.per_player:
            for now, then in zip(s, old):
                now[:] = then
        else:
            s[:] = old

    def flat_piles(self, gen: Any, base: Any) -> str:
        """The source of the counts a value of this kind stands for (a player's, or the
        game's)."""
        i = int(self.index)
        if not self.per_player:
            return f"su{i}"
        if base.seat is None:
            raise gen.uncovered(f"the piles of '{self.name}' without their player")
        return f"su{i}[{base.seat}]"

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        piles = self.flat_piles(gen, base)
        c = gen.w.c
        n = len(self.keys)
        if name == "keys":
            return gen.value(f"list({c(self.keys)})", type_, size=n)
        if name == "counts":
            return gen.value(f"list({piles})", type_, size=n)
        if name == "total":
            return gen.value(f"sum({piles})", type_)
        if name == "sets":
            return gen.value(f"min({piles})", type_)
        if name == "empty":
            v = gen.value(f"[k for k, x in zip({c(self.keys)}, {piles}) if not x]", type_,
                          size=n)
            v.length = f"{piles}.count(0)"  # counts are whole numbers: the falsy ones are 0
            return v
        if name == "name":  # its text (SupplyView.__str__)
            if base.seat is None:
                return gen.value(c(self.name), type_)
            return gen.value(f"({c(self.name + ' of player ')} + str({base.seat}))", type_)
        raise gen.uncovered(f"{self.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        # a key that is no pile: a KeyError, and the machine plays the game (PieceError)
        return gen.value(f"{self.flat_piles(gen, base)}[{gen.w.c(self.key_index)}"
                         f"[{key.need()}]]", type_)

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        if name == "count":
            return self.flat_index(gen, base, args[0], type_)
        if name == "has":
            return gen.value(f"({self.flat_index(gen, base, args[0], type_).need()} > 0)",
                             type_)
        raise gen.uncovered(f"{self.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """`move_token`, as SupplyView._move does it."""
        if method != "_move":
            raise gen.uncovered(f"the supply's effect {method.lstrip('_')}")
        key, to, count = args
        if not isinstance(to.kind, Supply):
            raise gen.uncovered("tokens moved to something other than a supply")
        w = gen.w
        src = self.flat_piles(gen, target)
        dst = to.kind.flat_piles(gen, to)
        k, i, n = w.t("k"), w.t("i"), w.t("n")
        w.add(d, f"{k} = {key.need()}")
        w.add(d, f"{i} = {w.c(self.key_index)}[{k}]")
        if count is None:
            w.add(d, f"{n} = min({src}[{i}], 1)")
        else:
            w.add(d, f"{n} = min({src}[{i}], {count.need()})")
        w.add(d, f"if {n} > 0:")
        w.add(d + 1, f"{dst}[{w.c(to.kind.key_index)}[{k}]] += {n}")
        w.add(d + 1, f"{src}[{i}] -= {n}")
