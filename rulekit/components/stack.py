"""Stacks: an ordered pile of award tiles (scoring tiles, goal cards), taken from the top.

The items are values fixed when the game loads, ordered as given or by value; taking one
hands the top item to a player, and an empty stack hands out nothing. Expressions read
what is left and what each player took.
"""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.fixed import fixed_value
from rulekit.components.markup import awards
from rulekit.expr import ANY, INT, ListT, Method, ObjT
from rulekit.expr.types import type_of_value

#: the type of a player argument; object types fit by name, so this matches the game's own
PLAYER = ObjT("Player")


def _seat(player: Any) -> int:
    return player if type(player) is int else player.seat


class StackView:
    """The stack as expressions see it: `awards.left`, `awards.top`, `awards.held(player)`."""

    __slots__ = ("s", "kind")

    def __init__(self, s: list, kind: Stack) -> None:
        self.s = s
        self.kind = kind

    @property
    def left(self) -> list:
        return list(self.s[0])

    @property
    def count(self) -> int:
        return len(self.s[0])

    @property
    def top(self) -> Any:
        """The item that is taken next, or none when the stack is empty."""
        left = self.s[0]
        return left[0] if left else None

    @property
    def taken(self) -> int:
        return len(self.kind.items) - len(self.s[0])

    def held(self, player: Any) -> list:
        """What the player took, in the order they took it."""
        return list(self.s[1][_seat(player)])

    def _take_top(self, player: Any) -> None:
        left = self.s[0]
        if left:
            self.s[1][_seat(player)].append(left.pop(0))

    def _rebind(self, st: Any) -> StackView:
        return st.gviews[self.kind.index]


@register
class Stack(Kind):
    kind = "stack"
    schema = {
        "type": "object",
        "required": ["items"],
        "properties": {
            "items": {
                "description": "the items, top first: a list, or an expression of params",
                "type": ["string", "array"],
            },
            "order": {
                "description": "keep the items as given, or put the highest (lowest) on top",
                "enum": ["as_given", "highest_first", "lowest_first"],
            },
        },
    }
    effects = {
        "take_top": Effect("stack", "Stack", "_take_top", {"player": PLAYER},
                           doc="the player takes the top item; an empty stack gives nothing"),
    }

    def declare(self, b: Any) -> None:
        if self.per_player:
            b.error(b.path + ("per",), "a stack is shared by all players",
                    "`held(player)` reads what each one took; remove `per: player`")
        path = b.path + ("items",)
        items = fixed_value(b, path, self.config.get("items"), ListT(ANY))
        items = list(items) if items is not None else []
        order = self.config.get("order", "as_given")
        item_t = type_of_value(items).elem if items else INT
        if isinstance(item_t, ListT) or item_t is ANY:
            b.error(path, "stack items must be all numbers or all names")
            items, item_t = [], INT
        if order != "as_given":
            items.sort(reverse=order == "highest_first")
        self.items = items
        self.type = ObjT("Stack", {"left": ListT(item_t), "count": INT, "top": item_t,
                                   "taken": INT},
                         {"held": Method([PLAYER], ListT(item_t))})
        self.type.inline = {"count": "{len}({0}.s[0])"}  # an end condition asks at every move

    def global_type(self) -> ObjT:
        return self.type

    def new_state(self, st: Any) -> list:
        # what is left, top first; and what each seat took
        return [list(self.items), [[] for _ in range(st.n)]]

    def copy_state(self, s: list) -> list:
        return [list(s[0]), [list(h) for h in s[1]]]

    def global_view(self, st: Any) -> StackView:
        return StackView(st.comps[self.index], self)

    def state_size(self, st: Any) -> dict[str, int]:
        # counted from the state: taking an item moves it, never copies or loses it
        left, held = st.comps[self.index]
        return {"items": len(left) + sum(len(h) for h in held)}

    def snapshot(self, st: Any, seat: int | None) -> dict:
        left, held = st.comps[self.index]
        return {"left": list(left), "held": [list(h) for h in held]}

    def render(self, st: Any, seat: int | None) -> str:
        left = st.comps[self.index][0]
        if not left:
            return f"{self.name} left: none"
        return f"{self.name} left: {' '.join(map(str, left))} ({left[0]} is taken next)"

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        held = st.comps[self.index][1][player]
        return f"{self.name}: {' '.join(map(str, held))}" if held else ""

    def html(self, st: Any, seat: int | None) -> str:
        """What is left, top first (the top one marked: it is taken next)."""
        left = st.comps[self.index][0]
        return awards(self.name, left, "stack", f"{self.name} left", top=True)

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """What the player took, in the order taken."""
        held = st.comps[self.index][1][player]
        return awards(self.name, held, "stack held", self.name) if held else ""

    # ---- the flat backend's form: what is left (sk{index}l) and what each seat took
    # (sk{index}h), the state's own lists -------------------------------------------------------
    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"sk{i}l, sk{i}h = comps[{i}]"]

    def flat_restore(self, s: list, old: list) -> None:
        s[0][:] = old[0]
        for now, then in zip(s[1], old[1]):
            now[:] = then

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        i = int(self.index)
        n = len(self.items)
        if name == "left":
            return gen.value(f"list(sk{i}l)", type_, size=n)
        if name == "count":
            return gen.value(f"len(sk{i}l)", type_)
        if name == "top":
            # an empty stack's top is none, which the flat code does not write: an
            # IndexError, and the machine plays the game
            return gen.value(f"sk{i}l[0]", type_)
        if name == "taken":
            return gen.value(f"({n} - len(sk{i}l))", type_)
        if name == "name":
            return gen.value(gen.w.c(self.name), type_)
        raise gen.uncovered(f"{self.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{self.name}[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        if name == "held":
            return gen.value(f"list(sk{int(self.index)}h[{args[0].need()}])", type_,
                             size=len(self.items))
        raise gen.uncovered(f"{self.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """`take_top`, as StackView._take_top does it."""
        if method != "_take_top":
            raise gen.uncovered(f"the stack's effect {method.lstrip('_')}")
        i = int(self.index)
        gen.w.add(d, f"if sk{i}l: sk{i}h[{args[0].need()}].append(sk{i}l.pop(0))")
