"""Dice: named dice that are rolled together; a die can leave the game."""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Chance, Effect, Kind, register
from rulekit.errors import FlowError
from rulekit.expr import BOOL, INT, STR, ListT, Method, ObjT

#: the most dice `groupings` and `group_sums` split: 8 dice have 21147 ways already
MAX_GROUPED_DICE = 8


def _groupings(n: int) -> list[tuple[tuple[int, ...], ...]]:
    """Every way to split dice 0..n-1 into groups, each die in one group or unused."""
    out: list[tuple[tuple[int, ...], ...]] = []

    def place(i: int, groups: list[list[int]]) -> None:
        if i == n:
            out.append(tuple(tuple(g) for g in groups))
            return
        place(i + 1, groups)  # unused
        for g in groups:
            g.append(i)
            place(i + 1, groups)
            g.pop()
        groups.append([i])
        place(i + 1, groups)
        groups.pop()

    place(0, [])
    return out


class DiceView:
    """The dice as expressions see them: `dice.red`, `dice['red']`, `dice.in_play('red')`."""

    __slots__ = ("s", "kind", "_faces", "_pos")

    def __init__(self, s: list, kind: Dice) -> None:
        self.s = s
        self.kind = kind
        self._faces = s[0]  # changed in place by a roll, so this stays current
        self._pos = kind.pos

    def __getitem__(self, name: str) -> int:
        return self._faces[self._pos[name]]

    def __contains__(self, name: str) -> bool:
        return name in self.kind.pos and self.s[1][self.kind.pos[name]]

    def in_play(self, name: str) -> bool:
        i = self.kind.pos.get(name)
        return i is not None and self.s[1][i]

    @property
    def names(self) -> list[str]:
        inp = self.s[1]
        return [n for i, n in enumerate(self.kind.names) if inp[i]]

    @property
    def faces(self) -> list[int]:
        faces, inp = self.s
        return [f for f, p in zip(faces, inp) if p]

    @property
    def groupings(self) -> list[list[list[int]]]:
        faces = self.faces
        table = self.kind.grouping_table(len(faces))
        return [[[faces[i] for i in g] for g in split] for split in table]

    def group_sums(self, lo: int, hi: int) -> list[list[int]]:
        """Each distinct way to use the dice in groups whose sums lie in lo..hi, as its
        sums in ascending order; dice may stay unused, so the empty way is included.

        Splits that lead to the same sums are one choice in dice-race games; the answer
        depends only on the faces, so it is computed once per roll pattern and shared.
        """
        faces = tuple(sorted(self.faces))
        key = (faces, lo, hi)
        cache = self.kind._sums
        hit = cache.get(key)
        if hit is None:
            seen: set[tuple[int, ...]] = set()
            hit = []
            for split in self.kind.grouping_table(len(faces)):
                sums = sorted(t for t in (sum(faces[i] for i in g) for g in split)
                              if lo <= t <= hi)
                if tuple(sums) not in seen:
                    seen.add(tuple(sums))
                    hit.append(sums)
            hit.sort(key=lambda sums: (len(sums), sums))  # fewest groups, then smallest sums
            if len(cache) > 10_000:
                cache.clear()
            cache[key] = hit
        return hit

    def _rebind(self, st: Any) -> DiceView:
        return st.gviews[self.kind.index]

    def _remove(self, name: str) -> None:
        i = self.kind.pos.get(name)
        if i is not None:
            self.s[1][i] = False


def _face_prop(i: int) -> property:
    return property(lambda self: self.s[0][i])


@register
class Dice(Kind):
    kind = "dice"
    schema = {
        "type": "object",
        "required": ["dice"],
        "properties": {
            "dice": {
                "description": "name: number of sides, for each die",
                "type": "object",
                "minProperties": 1,
                "maxProperties": 100,
                "additionalProperties": {"type": "integer", "minimum": 1, "maximum": 1000},
            },
        },
    }
    effects = {
        "remove_die": Effect("dice", "Dice", "_remove", {"die": STR},
                             doc="the die leaves the game: it is no longer rolled"),
    }

    def declare(self, b: Any) -> None:
        dice = self.config.get("dice") or {}
        self.names = [str(n) for n in dice]
        self.sides = [int(s) for s in dice.values()]
        self.pos = {n: i for i, n in enumerate(self.names)}
        self._tables: dict[int, list] = {}
        taken = [n for n in self.names if hasattr(DiceView, n) or n.startswith("_")]
        for n in taken:
            b.error(b.path + ("dice", n), f"a die cannot be called '{n}': dice.{n} means "
                    "something else", "rename the die", key=True)
        ns = {n: _face_prop(i) for i, n in enumerate(self.names)
              if n.isidentifier() and n not in taken}
        self.view_class = type("DiceView", (DiceView,), ns)
        grouping = ListT(ListT(INT))
        self.type = ObjT("Dice", {n: INT for n in ns} | {
            "names": ListT(STR), "faces": ListT(INT), "groupings": ListT(grouping)},
            {"in_play": Method([STR], BOOL),
             "group_sums": Method([INT, INT], ListT(ListT(INT)))}, index=(STR, INT))
        self._sums: dict[tuple, list[list[int]]] = {}

    def grouping_table(self, n: int) -> list:
        t = self._tables.get(n)
        if t is None:
            if n > MAX_GROUPED_DICE:  # the splits grow faster than exponentially
                raise FlowError(f"dice '{self.name}': {n} dice have too many ways to be split "
                                f"into groups; groupings and group_sums take at most "
                                f"{MAX_GROUPED_DICE} dice")
            t = self._tables[n] = _groupings(n)
        return t

    def global_type(self) -> ObjT:
        return self.type

    def new_state(self, st: Any) -> list:
        return [[1] * len(self.names), [True] * len(self.names)]

    def copy_state(self, s: list) -> list:
        return [list(s[0]), list(s[1])]

    def global_view(self, st: Any) -> DiceView:
        return self.view_class(st.comps[self.index], self)

    def snapshot(self, st: Any, seat: int | None) -> dict:
        faces, inp = st.comps[self.index]
        return {n: (faces[i] if inp[i] else None) for i, n in enumerate(self.names)}

    def render(self, st: Any, seat: int | None) -> str:
        faces, inp = st.comps[self.index]
        parts = [f"{n} {faces[i] if inp[i] else '--'}" for i, n in enumerate(self.names)]
        return f"{self.name}: " + "  ".join(parts)

    # ---- the roll --------------------------------------------------------------------------
    def _sample(self, view: DiceView, rng: Any) -> dict[str, int]:
        rand = rng.random
        inp = view.s[1]
        return {n: int(rand() * self.sides[i]) + 1
                for i, n in enumerate(self.names) if inp[i]}

    def _check(self, view: DiceView, outcome: Any) -> str | None:
        if not isinstance(outcome, dict):
            return "a roll is a mapping of die names to faces"
        expected = view.names
        if set(outcome) != set(expected):
            return f"expected faces for exactly {', '.join(expected)}"
        for name, face in outcome.items():
            sides = self.sides[self.pos[name]]
            if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= sides:
                return f"{name} shows 1 to {sides}, not {face!r}"
        return None

    def _outcomes(self, view: DiceView) -> list[tuple[str, list[tuple[int, float]]]]:
        """Each die still in the game is a part of its own: every face, equally likely."""
        inp = view.s[1]
        return [(n, [(face, 1 / self.sides[i]) for face in range(1, self.sides[i] + 1)])
                for i, n in enumerate(self.names) if inp[i]]

    def _apply(self, view: DiceView, outcome: dict[str, int]) -> None:
        faces = view.s[0]
        pos = self.pos
        for name, face in outcome.items():
            faces[pos[name]] = face


Dice.chances = {
    "roll": Chance(
        sample=lambda view, rng: view.kind._sample(view, rng),
        check=lambda view, outcome: view.kind._check(view, outcome),
        apply=lambda view, outcome: view.kind._apply(view, outcome),
        doc="roll every die still in the game",
        outcomes=lambda view: view.kind._outcomes(view),
    ),
}
