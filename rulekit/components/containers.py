"""Containers: list and map variables, for the game or for each player.

A variable holds one number, flag or name; some rules need more: the order in which
players passed, the colours a player has claimed, a count per symbol. A `list` holds
values of one type in order, a `map` one value of one type per key fixed when the game
loads. Their values are checked when they are stored (an effect's argument is typed only
at run time) and a list has a size budget, so a file cannot grow one without bound.
"""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.fixed import fixed_value, key_list
from rulekit.components.markup import esc
from rulekit.errors import PieceError
from rulekit.expr import ANY, BOOL, INT, STR, ListT, Method, ObjT, Type
from rulekit.expr.budget import MAX_INT, MAX_STR, charge

#: the item types a container may hold, by the name the file gives
ITEM_TYPES: dict[str, tuple[Type, type]] = {"int": (INT, int), "str": (STR, str),
                                            "bool": (BOOL, bool)}
#: the most items a list may hold (its `max_size`, and the default)
MAX_SIZE = 10_000
DEFAULT_SIZE = 1_000


def _checked(kind: Any, value: Any) -> Any:
    """`value` if it is of the container's item type and within the bounds of a variable."""
    if type(value) is not kind.item_py:
        raise PieceError(f"{kind.name} holds {kind.items} values, not {value!r}")
    if kind.item_py is int and abs(value) >= MAX_INT:
        raise PieceError(f"{kind.name}: {value} has more than 30 digits")
    if kind.item_py is str and len(value) > MAX_STR:
        raise PieceError(f"{kind.name}: a name of {len(value)} characters, more than "
                         f"the {MAX_STR} allowed")
    return value


class _View:
    __slots__ = ("s", "kind", "seat")

    def __init__(self, s: Any, kind: Any, seat: int | None) -> None:
        self.s = s
        self.kind = kind
        self.seat = seat

    def _rebind(self, st: Any) -> Any:
        if self.seat is None:
            return st.gviews[self.kind.index]
        return st.players[self.seat].view_of(self.kind)

    def __str__(self) -> str:
        return self.kind.name if self.seat is None else f"{self.kind.name} of player {self.seat}"


class ListView(_View):
    """A list as expressions see it: `order.items`, `order.size`, `order[0]`, `x in order`."""

    __slots__ = ()

    def __getitem__(self, i: int) -> Any:
        return self.s[i]

    def __len__(self) -> int:
        return len(self.s)

    def __contains__(self, value: Any) -> bool:
        charge(len(self.s))
        return value in self.s

    @property
    def items(self) -> list:
        return list(self.s)

    @property
    def size(self) -> int:
        return len(self.s)

    @property
    def last(self) -> Any:
        return self.s[-1] if self.s else None

    def contains(self, value: Any) -> bool:
        charge(len(self.s))
        return value in self.s

    def count(self, value: Any) -> int:
        charge(len(self.s))
        return self.s.count(value)

    def index_of(self, value: Any) -> int:
        """Where `value` first stands, or -1 when it is not in the list."""
        charge(len(self.s))
        return _index_of(self.s, value)

    # ---- effects ------------------------------------------------------------------------
    def _append(self, value: Any) -> None:
        if len(self.s) >= self.kind.max_size:
            raise PieceError(f"{self} is full: it holds at most {self.kind.max_size} items "
                             "(its max_size)")
        self.s.append(_checked(self.kind, value))

    def _remove(self, value: Any) -> None:
        charge(len(self.s))
        try:
            self.s.remove(value)
        except ValueError:
            pass  # not there: nothing to remove

    def _set(self, index: int, value: Any) -> None:
        if not -len(self.s) <= index < len(self.s):
            raise PieceError(f"{self} has no item {index}: it holds {len(self.s)}")
        self.s[index] = _checked(self.kind, value)

    def _clear(self) -> None:
        self.s.clear()


class MapView(_View):
    """A map as expressions see it: `claimed['red']`, `claimed.values`, `claimed.keys`."""

    __slots__ = ()

    def _key(self, key: Any) -> int:
        i = self.kind.key_index.get(key)
        if i is None:
            raise PieceError(f"{self} has no key {key!r}; its keys are "
                             f"{', '.join(map(str, self.kind.keys))}")
        return i

    def __getitem__(self, key: Any) -> Any:
        return self.s[self._key(key)]

    def __len__(self) -> int:
        return len(self.s)

    def __contains__(self, key: Any) -> bool:
        return key in self.kind.key_index

    @property
    def keys(self) -> list:
        return list(self.kind.keys)

    @property
    def values(self) -> list:
        return list(self.s)

    def get(self, key: Any) -> Any:
        return self.s[self._key(key)]

    def keys_with(self, value: Any) -> list:
        """The keys whose value is `value`, in the order of `keys`."""
        charge(len(self.s))
        return [k for k, v in zip(self.kind.keys, self.s) if v == value]

    # ---- effects ------------------------------------------------------------------------
    def _put(self, key: Any, value: Any) -> None:
        self.s[self._key(key)] = _checked(self.kind, value)

    def _add(self, key: Any, amount: Any) -> None:
        if self.kind.item_py is not int or type(amount) is not int:
            raise PieceError(f"`add_to` adds whole numbers to a map of int values; "
                             f"{self.kind.name} holds {self.kind.items}")
        i = self._key(key)
        self.s[i] = _checked(self.kind, self.s[i] + amount)

    def _reset(self) -> None:
        self.s[:] = self.kind.init


class _Container(Kind):
    """What lists and maps share: the item type, per-player state, snapshots."""

    view_class: type[_View] = _View

    def item_type(self) -> None:
        items = self.config.get("items", "int")  # the schema allows only ITEM_TYPES' names
        self.items = items if items in ITEM_TYPES else "int"
        self.item_t, self.item_py = ITEM_TYPES[items]

    def check_init(self, b: Any, values: list) -> bool:
        for v in values:
            if type(v) is not self.item_py:
                b.error(b.path + ("init",), f"{self.kind} of {self.items} values: {v!r} is not "
                        f"of that type", f"items: {self.items} (int, str or bool)")
                return False
        return True

    def global_type(self) -> ObjT | None:
        return None if self.per_player else self.type

    def player_type(self) -> ObjT:
        return self.type

    def new_state(self, st: Any) -> list:
        if self.per_player:
            return [list(self.init) for _ in range(st.n)]
        return list(self.init)

    def copy_state(self, s: list) -> list:
        if self.per_player:
            return [list(x) for x in s]
        return list(s)

    def global_view(self, st: Any) -> _View | None:
        if self.per_player:
            return None
        return self.view_class(st.comps[self.index], self, None)

    def player_view(self, st: Any, seat: int) -> _View:
        return self.view_class(st.comps[self.index][seat], self, seat)

    def snapshot(self, st: Any, seat: int | None) -> list:
        s = st.comps[self.index]
        return [list(x) for x in s] if self.per_player else list(s)

    def text(self, values: list) -> str:
        return ", ".join(map(str, values)) or "(empty)"

    def render(self, st: Any, seat: int | None) -> str:
        if self.per_player or not self.config.get("show", True):
            return ""
        return f"{self.name}: {self.text(st.comps[self.index])}"

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        if not self.per_player or not self.config.get("show", True):
            return ""
        return f"{self.name}: {self.text(st.comps[self.index][player])}"

    def html(self, st: Any, seat: int | None) -> str:
        if self.per_player or not self.config.get("show", True):
            return ""
        return self.markup(st.comps[self.index])

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        if not self.per_player or not self.config.get("show", True):
            return ""
        return self.markup(st.comps[self.index][player])

    def markup(self, values: list) -> str:
        """The values in a row of small boxes after the name (none: `(empty)`)."""
        items = "".join(self.item(i, v) for i, v in enumerate(values)) or "(empty)"
        return (f'<div class="{self.kind}" data-{self.kind}="{esc(self.name)}" '
                f'data-size="{len(values)}"><span class="name">{esc(self.name)}</span>'
                f"{items}</div>")

    def item(self, place: int, value: Any) -> str:
        return f'<span class="item">{esc(value)}</span>'

    # ---- the flat backend's form: the state's own list (ls{index}; a list per seat for a
    # player's; a map's values in the order of its keys) ----------------------------------
    #: its effects run no steps of their own (the flat backend checks the end by what they write)
    flat_runs_steps = False

    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"ls{i} = comps[{i}]"]

    def flat_restore(self, s: list, old: list) -> None:
        if self.per_player:
            for now, then in zip(s, old):
                now[:] = then
        else:
            s[:] = old

    def _flat_list(self, gen: Any, base: Any) -> str:
        """The source of the list `base` stands for (the game's, or a player's)."""
        i = int(self.index)
        if not self.per_player:
            return f"ls{i}"
        if base.seat is None:
            raise gen.uncovered(f"the {self.kind} '{self.name}' without its player")
        return f"ls{i}[{base.seat}]"

    def _flat_checked(self, gen: Any, x: str, d: int) -> None:
        """Give the game back unless `x` may be stored (`_checked`)."""
        test = f"{x}.__class__ is not {self.item_py.__name__}"
        if self.item_py is int:
            test += f" or not {-MAX_INT} < {x} < {MAX_INT}"
        elif self.item_py is str:
            test += f" or len({x}) > {MAX_STR}"
        gen.w.add(d, f"if {test}: raise GiveBack")

    def _flat_name(self, gen: Any, base: Any, type_: Any) -> Any:
        """Its text, as the view's: its name, and whose it is."""
        text = gen.w.c(self.name)
        if base.seat is None:
            return gen.value(text, type_)
        return gen.value(f"({text} + {gen.w.c(' of player ')} + str({base.seat}))", type_)


_ITEMS_SCHEMA = {"description": "the type of the values: int (default), str or bool",
                 "enum": list(ITEM_TYPES)}
_SHOW_SCHEMA = {"description": "whether `rulekit play` shows it (default true)",
                "type": "boolean"}


@register
class ListKind(_Container):
    kind = "list"
    view_class = ListView
    schema = {
        "type": "object",
        "properties": {
            "items": _ITEMS_SCHEMA,
            "init": {"description": "the values when the game starts (default: empty): a list, "
                                    "or an expression of params",
                     "type": ["string", "array"]},
            "max_size": {"description": f"the most values it may hold (default {DEFAULT_SIZE}, "
                                        f"at most {MAX_SIZE}); appending more is an error",
                         "type": "integer", "minimum": 1, "maximum": MAX_SIZE},
            "show": _SHOW_SCHEMA,
        },
    }
    effects = {
        "append": Effect("list", "List", "_append", {"value": ANY},
                         doc="add a value at the end of the list"),
        "remove_value": Effect("list", "List", "_remove", {"value": ANY},
                               doc="remove the first item equal to the value; nothing happens "
                                   "when there is none"),
        "set_item": Effect("list", "List", "_set", {"index": INT, "value": ANY},
                           doc="replace the item at a position (from 0; -1 is the last)"),
        "clear_list": Effect("list", "List", "_clear", doc="remove every item"),
    }

    def declare(self, b: Any) -> None:
        self.item_type()
        self.max_size = self.config.get("max_size", DEFAULT_SIZE)
        init = fixed_value(b, b.path + ("init",), self.config.get("init", []), ListT(ANY))
        self.init = list(init) if init is not None and self.check_init(b, init) else []
        if len(self.init) > self.max_size:
            b.error(b.path + ("init",), f"{len(self.init)} values, more than its max_size "
                    f"{self.max_size}")
        t = self.item_t
        self.type = ObjT("List", {"items": ListT(t), "size": INT, "last": t}, {
            "contains": Method([t], BOOL), "count": Method([t], INT),
            "index_of": Method([t], INT),
        }, index=(INT, t))
        self.type.printable = True  # its name, and whose it is

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        xs = self._flat_list(gen, base)
        if name == "items":  # a copy, as ListView.items
            v = gen.value(f"list({xs})", type_, size=self.max_size)
            v.length = f"len({xs})"
            return v
        if name == "size":
            return gen.value(f"len({xs})", type_)
        if name == "last":
            return gen.value(f"({xs}[-1] if {xs} else None)", type_)
        if name == "name":
            return self._flat_name(gen, base, type_)
        raise gen.uncovered(f"{self.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        # an index past the end: an IndexError, and the machine plays the game
        return gen.value(f"{self._flat_list(gen, base)}[{key.need()}]", type_)

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """ListView's methods; their work bounded as a loop over the most items the list
        may hold (the machine charges its size)."""
        xs = self._flat_list(gen, base)
        a = args[0].need()
        gen.longest = max(gen.longest, self.max_size)
        if name == "contains":
            return gen.value(f"({a} in {xs})", type_)
        if name == "count":
            return gen.value(f"{xs}.count({a})", type_)
        if name == "index_of":
            return gen.value(f"{gen.w.c(_index_of)}({xs}, {a})", type_)
        raise gen.uncovered(f"{self.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """ListView's effects; what it would refuse (a full list, a value of another type,
        an index past the end) gives the game back."""
        w = gen.w
        xs = self._flat_list(gen, target)
        x = w.t("x")
        if method == "_clear":
            w.add(d, f"{xs}.clear()")
        elif method == "_append":
            w.add(d, f"{x} = {args[0].need()}")
            w.add(d, f"if len({xs}) >= {int(self.max_size)}: raise GiveBack")
            self._flat_checked(gen, x, d)
            w.add(d, f"{xs}.append({x})")
        elif method == "_remove":
            gen.longest = max(gen.longest, self.max_size)
            w.add(d, f"{x} = {args[0].need()}")
            w.add(d, f"if {x} in {xs}: {xs}.remove({x})")
        elif method == "_set":
            k = w.t("k")
            w.add(d, f"{k} = {args[0].need()}")
            w.add(d, f"{x} = {args[1].need()}")
            w.add(d, f"if not -len({xs}) <= {k} < len({xs}): raise GiveBack")
            self._flat_checked(gen, x, d)
            w.add(d, f"{xs}[{k}] = {x}")
        else:
            raise gen.uncovered(f"the list's effect {method.lstrip('_')}")


def _index_of(xs: list, value: Any) -> int:
    """ListView.index_of of the flat play."""
    try:
        return xs.index(value)
    except ValueError:
        return -1


@register
class MapKind(_Container):
    kind = "map"
    view_class = MapView
    schema = {
        "type": "object",
        "required": ["keys"],
        "properties": {
            "keys": {"description": "the keys (numbers or names): a list, or an expression of "
                                    "params such as range(...)",
                     "type": ["string", "array"]},
            "items": _ITEMS_SCHEMA,
            "init": {"description": "every key's value when the game starts (default 0, '' or "
                                    "false by the type)",
                     "type": ["integer", "string", "boolean"]},
            "show": _SHOW_SCHEMA,
        },
    }
    effects = {
        "put": Effect("map", "Map", "_put", {"key": ANY, "value": ANY},
                      doc="set the value of a key"),
        "add_to": Effect("map", "Map", "_add", {"key": ANY, "amount": INT},
                         doc="add a whole number to the value of a key (a map of int values)"),
        "reset_map": Effect("map", "Map", "_reset", doc="every key back to its first value"),
    }

    def declare(self, b: Any) -> None:
        self.item_type()
        self.keys, key_t = key_list(b, b.path + ("keys",), self.config.get("keys"), "key")
        self.key_index = {k: i for i, k in enumerate(self.keys)}
        first = self.config.get("init", self.item_py())
        if not self.check_init(b, [first]):
            first = self.item_py()
        self.init = [first] * len(self.keys)
        t = self.item_t
        self.type = ObjT("Map", {"keys": ListT(key_t), "values": ListT(t)}, {
            "get": Method([key_t], t), "keys_with": Method([t], ListT(key_t)),
        }, index=(key_t, t))
        self.type.printable = True  # its name, and whose it is

    def text(self, values: list) -> str:
        return ", ".join(f"{k}: {v}" for k, v in zip(self.keys, values))

    def item(self, place: int, value: Any) -> str:
        key = self.keys[place]
        return (f'<span class="entry" data-key="{esc(key)}"><b>{esc(key)}</b>{esc(value)}'
                "</span>")

    # ---- the flat backend's form (see _Container): the values by the place of their key
    # in `keys` (KEYS, a constant dict), as MapView keeps them ---------------------------

    def _flat_key(self, gen: Any, key: Any) -> str:
        """The place of `key`: a key the map has not is a KeyError, and the machine plays
        the game (and fails on it with its message)."""
        return f"{gen.w.c(self.key_index)}[{key.need()}]"

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        xs = self._flat_list(gen, base)
        size = len(self.keys)
        if name == "keys":  # a copy, as MapView.keys
            return gen.value(f"list({gen.w.c(self.keys)})", type_, size=size)
        if name == "values":
            return gen.value(f"list({xs})", type_, size=size)
        if name == "name":
            return self._flat_name(gen, base, type_)
        raise gen.uncovered(f"{self.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        return gen.value(f"{self._flat_list(gen, base)}[{self._flat_key(gen, key)}]", type_)

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """MapView's methods; `keys_with` bounded as a loop over the keys (the machine
        charges their number)."""
        xs = self._flat_list(gen, base)
        if name == "get":
            return gen.value(f"{xs}[{self._flat_key(gen, args[0])}]", type_)
        if name == "keys_with":
            gen.longest = max(gen.longest, len(self.keys))
            k, x = gen.w.t("k"), gen.w.t("x")
            return gen.value(f"[{k} for {k}, {x} in zip({gen.w.c(self.keys)}, {xs}) "
                             f"if {x} == {args[0].need()}]", type_, size=len(self.keys))
        raise gen.uncovered(f"{self.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """MapView's effects; what it would refuse (a key it has not, a value of another
        type, `add_to` on a map of other values) gives the game back."""
        w = gen.w
        xs = self._flat_list(gen, target)
        if method == "_reset":
            w.add(d, f"{xs}[:] = {w.c(self.init)}")
            return
        if method not in ("_put", "_add"):
            raise gen.uncovered(f"the map's effect {method.lstrip('_')}")
        k, x = w.t("k"), w.t("x")
        w.add(d, f"{k} = {self._flat_key(gen, args[0])}")
        if method == "_put":
            w.add(d, f"{x} = {args[1].need()}")
        else:
            if self.item_py is not int:
                w.add(d, "raise GiveBack")
                return
            a = w.t("a")
            w.add(d, f"{a} = {args[1].need()}")
            w.add(d, f"if {a}.__class__ is not int: raise GiveBack")
            w.add(d, f"{x} = {xs}[{k}] + {a}")
        self._flat_checked(gen, x, d)
        w.add(d, f"{xs}[{k}] = {x}")
