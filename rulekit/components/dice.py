"""Dice: named dice that are rolled together; a die can leave the game."""

from __future__ import annotations

import re
from typing import Any

from rulekit.components.base import Chance, Effect, Kind, register
from rulekit.components.fixed import fixed_value
from rulekit.components.markup import die_svg, pre
from rulekit.errors import PieceError
from rulekit.expr import BOOL, INT, STR, ListT, Method, ObjT
from rulekit.expr.budget import charge

#: the most sides a die may have
MAX_SIDES = 1000

#: the most dice `subsets` lists the sets of (4095 sets)
MAX_SUBSET_DICE = 12

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
    """The dice as expressions see them: `dice.red`, `dice['red']`, `dice.in_play('red')`.

    `s` is the dice's state `[faces, in play, to roll]`; `seat` is the owner of dice that
    are `per: player` (None for the game's dice).
    """

    __slots__ = ("s", "kind", "_faces", "_pos", "seat")

    def __init__(self, s: list, kind: Dice, seat: int | None = None) -> None:
        self.s = s
        self.kind = kind
        self._faces = s[0]  # changed in place by a roll, so this stays current
        self._pos = kind.pos
        self.seat = seat

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
        return _in_play(self.s[0], self.s[1])

    @property
    def all_names(self) -> list[str]:
        return list(self.kind.names)

    @property
    def removed(self) -> list[str]:
        inp = self.s[1]
        return [n for i, n in enumerate(self.kind.names) if not inp[i]]

    @property
    def sides(self) -> list[int]:
        inp = self.s[1]
        return [n for n, p in zip(self.kind.sides, inp) if p]

    @property
    def subsets(self) -> list[list[int]]:
        """Every non-empty set of the dice in play, as their positions among all the dice
        (from 0, as declared), in binary order: die k stands for bit k. What a player may
        re-roll; computed once per pattern of dice in play."""
        inp = tuple(self.s[1])
        cache = self.kind._subsets
        hit = cache.get(inp)
        if hit is None:
            pos = [i for i, p in enumerate(inp) if p]
            if len(pos) > MAX_SUBSET_DICE:
                raise PieceError(f"dice '{self.kind.name}': {len(pos)} dice have too many "
                                 f"sets; subsets takes at most {MAX_SUBSET_DICE} dice")
            hit = cache[inp] = [[pos[k] for k in range(len(pos)) if m >> k & 1]
                                for m in range(1, 1 << len(pos))]
        k = len(hit).bit_length()  # the dice in play
        charge(len(hit) + k * (len(hit) + 1) // 2)  # the lists built: every die in half
        return [list(s) for s in hit]

    def count(self, face: int) -> int:
        """How many dice in play show `face`."""
        return self.faces.count(face)

    @property
    def groupings(self) -> list[list[list[int]]]:
        faces = self.faces
        table = self.kind.grouping_table(len(faces))
        charge(self.kind._table_sizes[len(faces)])  # charged by the size of what it builds
        return [[[faces[i] for i in g] for g in split] for split in table]

    def group_sums(self, lo: int, hi: int) -> list[list[int]]:
        """Each distinct way to use the dice in groups whose sums lie in lo..hi, as its
        sums in ascending order; dice may stay unused, so the empty way is included.

        Splits that lead to the same sums are one choice in dice-race games; the answer
        depends only on the faces, so it is computed once per roll pattern and shared,
        and found by the faces as rolled (sorting them costs more than the lookup).
        """
        s = self.s
        faces = s[0] if False not in s[1] else self.faces
        key = (tuple(faces), lo, hi)
        cache = self.kind._sums
        hit = cache.get(key)
        if hit is None:
            hit = self.kind.sums_of(tuple(sorted(faces)), lo, hi)
            if len(cache) > 10_000:
                cache.clear()
            cache[key] = hit
        return hit

    def _rebind(self, st: Any) -> DiceView:
        if self.seat is None:
            return st.gviews[self.kind.index]
        return st.players[self.seat].view_of(self.kind)

    def _die(self, name: str) -> int:
        i = self.kind.pos.get(name)
        if i is None:
            raise PieceError(f"dice '{self.kind.name}' have no die '{name}'")
        return i

    def _remove(self, name: str) -> None:
        self.s[1][self._die(name)] = False

    def _restore(self, name: str) -> None:
        self.s[1][self._die(name)] = True

    def _set_face(self, name: str, face: int) -> None:
        i = self._die(name)
        sides = self.kind.sides[i]
        if type(face) is not int or not 1 <= face <= sides:
            raise PieceError(f"die '{name}' shows 1 to {sides}, not {face!r}")
        self.s[0][i] = face

    def _roll_only(self, names: list[str] | None) -> None:
        """Mark the dice the next roll rolls: `names` of those in play, or all in play."""
        if names is None:
            self.s[2] = None
            return
        pos = self.kind.pos
        unknown = [n for n in names if n not in pos]
        if unknown:
            raise PieceError(f"dice '{self.kind.name}' have no die '{unknown[0]}'")
        inp = self.s[1]
        self.s[2] = [inp[i] and n in names for i, n in enumerate(self.kind.names)]


def _in_play(faces: list[int], in_play: list[bool]) -> list[int]:
    """The faces of the dice in play, a new list (DiceView.faces, and the flat play's)."""
    if False not in in_play:  # most of the time every die is in play
        return faces[:]
    return [f for f, p in zip(faces, in_play) if p]


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
                "additionalProperties": {
                    "anyOf": [{"type": "integer", "minimum": 1, "maximum": 1000},
                              {"type": "string", "description": "an expression of params"}]},
            },
            "secret": {"type": "boolean",
                       "description": "with `per: player`: only the owner sees the faces"},
        },
    }
    effects = {
        "remove_die": Effect("dice", "Dice", "_remove", {"die": STR},
                             doc="the die leaves the game: it is no longer rolled"),
        "return_die": Effect("dice", "Dice", "_restore", {"die": STR},
                             doc="a removed die comes back into the game"),
        "set_die": Effect("dice", "Dice", "_set_face", {"die": STR, "face": INT},
                          doc="turn a die to a face without rolling it"),
    }

    def declare(self, b: Any) -> None:
        dice = self.config.get("dice") or {}
        self.names = [str(n) for n in dice]
        self.sides = [self._sides(b, n, v) for n, v in dice.items()]
        self.pos = {n: i for i, n in enumerate(self.names)}
        #: (position, name, sides) of every die, in order: what a roll runs over
        self.dice = tuple((i, n, k) for i, (n, k) in enumerate(zip(self.names, self.sides)))
        self._tables: dict[int, list] = {}
        self._table_sizes: dict[int, int] = {}
        taken = [n for n in self.names if hasattr(DiceView, n) or n.startswith("_")]
        for n in taken:
            b.error(b.path + ("dice", n), f"a die cannot be called '{n}': dice.{n} means "
                    "something else", "rename the die", key=True)
        ns = {n: _face_prop(i) for i, n in enumerate(self.names)
              if n.isidentifier() and n not in taken}
        self.view_class = type("DiceView", (DiceView,), ns)
        grouping = ListT(ListT(INT))
        self.type = ObjT("Dice", {n: INT for n in ns} | {
            "names": ListT(STR), "faces": ListT(INT), "groupings": ListT(grouping),
            "all_names": ListT(STR), "removed": ListT(STR), "sides": ListT(INT),
            "subsets": ListT(ListT(INT))},
            {"in_play": Method([STR], BOOL), "count": Method([INT], INT),
             # sums of at most 8 dice of at most 1000 sides
             "group_sums": Method([INT, INT], ListT(ListT(INT)), distinct=True,
                                  numbers=(MAX_GROUPED_DICE,
                                           len(str(MAX_GROUPED_DICE * MAX_SIDES))))},
            index=(STR, INT))
        # a die's face, read without a call in generated code (a position, not a name)
        self.type.inline = {n: "{0}._faces[" + str(i) + "]"
                            for i, n in enumerate(self.names) if n in ns}
        self._sums: dict[tuple, list[list[int]]] = {}  # by the faces as rolled
        self._sorted_sums: dict[tuple, list[list[int]]] = {}
        self._subsets: dict[tuple, list[list[int]]] = {}
        #: flat code's group_sums with constant bounds: (lo, hi) -> the faces as rolled
        #: (every die in play) -> the list (see flat_method)
        self._flat_tables: dict[tuple[int, int], dict[tuple, list[list[int]]]] = {}
        self.secret = bool(self.config.get("secret", False))
        if self.secret and not self.per_player:
            b.error(b.path + ("secret",), "only dice that are `per: player` can be secret: "
                    "secret dice are seen by their owner alone", "add per: player")
            self.secret = False
        self.hides_information = self.secret

    @staticmethod
    def _sides(b: Any, name: Any, value: Any) -> int:
        """A die's number of sides: a number, or an expression of params (`params.sides`)."""
        n = fixed_value(b, b.path + ("dice", name), value, INT)
        if n is None:
            return 1
        if not 1 <= n <= MAX_SIDES:
            b.error(b.path + ("dice", name), f"die '{name}' would have {n} sides; a die has "
                    f"1 to {MAX_SIDES}", "check the param the sides come from")
            return 1
        return n

    def sums_of(self, faces: tuple[int, ...], lo: int, hi: int) -> list[list[int]]:
        """`group_sums` of sorted faces, computed once per pattern of faces."""
        hit = self._sorted_sums.get((faces, lo, hi))
        if hit is None:
            self.grouping_table(len(faces))
            charge(self._table_sizes[len(faces)])  # every split is summed
            hit = self._split_sums(faces, lo, hi)
        return hit

    def _split_sums(self, faces: tuple[int, ...], lo: int, hi: int) -> list[list[int]]:
        """`sums_of` worked out (and kept) without charging: the caller charged for it."""
        seen: set[tuple[int, ...]] = set()
        hit: list[list[int]] = []
        for split in self.grouping_table(len(faces)):
            sums = sorted(t for t in (sum(faces[i] for i in g) for g in split)
                          if lo <= t <= hi)
            if tuple(sums) not in seen:
                seen.add(tuple(sums))
                hit.append(sums)
        hit.sort(key=lambda sums: (len(sums), sums))  # fewest groups, then smallest sums
        if len(self._sorted_sums) > 10_000:
            self._sorted_sums.clear()
        self._sorted_sums[(faces, lo, hi)] = hit
        return hit

    def grouping_table(self, n: int) -> list:
        t = self._tables.get(n)
        if t is None:
            if n > MAX_GROUPED_DICE:  # the splits grow faster than exponentially
                raise PieceError(f"dice '{self.name}': {n} dice have too many ways to be split "
                                 f"into groups; groupings and group_sums take at most "
                                 f"{MAX_GROUPED_DICE} dice")
            t = self._tables[n] = _groupings(n)
            # the elements of the lists `groupings` builds of them, nested ones included
            self._table_sizes[n] = len(t) + sum(len(s) + sum(map(len, s)) for s in t)
        return t

    def global_type(self) -> ObjT | None:
        return None if self.per_player else self.type

    def player_type(self) -> ObjT:
        return self.type

    # ---- state: [faces, in play, to roll (None: every die in play)]; one per seat with
    # `per: player` ------------------------------------------------------------------------------
    def _fresh(self) -> list:
        return [[1] * len(self.names), [True] * len(self.names), None]

    def new_state(self, st: Any) -> list:
        if self.per_player:
            return [self._fresh() for _ in range(st.n)]
        return self._fresh()

    def copy_state(self, s: list) -> list:
        if self.per_player:
            return [[list(d[0]), list(d[1]), d[2] and list(d[2])] for d in s]
        return [list(s[0]), list(s[1]), s[2] and list(s[2])]

    def global_view(self, st: Any) -> DiceView | None:
        return None if self.per_player else self.view_class(st.comps[self.index], self)

    def player_view(self, st: Any, seat: int) -> DiceView:
        return self.view_class(st.comps[self.index][seat], self, seat)

    def _seen(self, player: int, seat: int | None) -> bool:
        return not self.secret or seat is None or seat == player

    def redeal_unseen(self, st: Any, seat: int, rng: Any) -> None:
        """Roll the other players' secret dice anew: `seat` knows only its own."""
        for p, d in enumerate(st.comps[self.index]):
            if p != seat:
                faces, inp = d[0], d[1]
                for i, sides in enumerate(self.sides):
                    if inp[i]:
                        faces[i] = int(rng.random() * sides) + 1

    def _faces_of(self, d: list, shown: bool) -> dict:
        faces, inp = d[0], d[1]
        return {n: (faces[i] if inp[i] and shown else None) for i, n in enumerate(self.names)}

    def snapshot(self, st: Any, seat: int | None) -> Any:
        s = st.comps[self.index]
        if not self.per_player:
            return self._faces_of(s, True)
        return [self._faces_of(d, self._seen(p, seat)) | {"count": sum(d[1])}
                for p, d in enumerate(s)]

    def _line(self, d: list, rolled: set[str] | None = None) -> str:
        """Each die with its face; `-` for one never rolled yet (of `rolled`, the dice a
        roll has named), `--` for one out of the game."""
        faces, inp = d[0], d[1]
        shown = [("--" if not inp[i] else faces[i] if rolled is None or n in rolled else "-")
                 for i, n in enumerate(self.names)]
        return "  ".join(f"{n} {face}" for n, face in zip(self.names, shown))

    @staticmethod
    def _ever_rolled(st: Any) -> set[str]:
        """The dice some logged roll has named: before its first roll a die shows no face,
        as its face then is no roll's."""
        return {name for e in getattr(st, "log", ()) if "chance" in e
                and isinstance(e.get("outcome"), dict) for name in e["outcome"]}

    def render(self, st: Any, seat: int | None) -> str:
        if self.per_player:
            return ""
        return f"{self.name}: " + self._line(st.comps[self.index], self._ever_rolled(st))

    def render_player(self, st: Any, player: int, seat: int | None) -> str:
        """A player's dice; secret dice of another player only as a count."""
        if not self.per_player:
            return ""
        d = st.comps[self.index][player]
        if not self._seen(player, seat):
            n = sum(d[1])
            return f"{self.name}: {n} {'die' if n == 1 else 'dice'} (hidden)"
        return (f"{'your ' if seat == player else ''}{self.name}: "
                f"{self._line(d, self._ever_rolled(st))}")

    def secret_chances(self) -> frozenset[str]:
        return frozenset(("roll",)) if self.secret else frozenset()

    def _html_of(self, d: list) -> str:
        faces, inp = d[0], d[1]
        return '<div class="dice">' + "".join(
            die_svg(n, faces[i] if inp[i] else None, self.sides[i])
            for i, n in enumerate(self.names)) + "</div>"

    def html(self, st: Any, seat: int | None) -> str:
        """Each die drawn with its face; a die out of the game as an empty frame."""
        return "" if self.per_player else self._html_of(st.comps[self.index])

    def html_player(self, st: Any, player: int, seat: int | None) -> str:
        """A player's own dice drawn; another player's secret dice only as their count."""
        if not self.per_player:
            return ""
        if not self._seen(player, seat):
            return pre(self.render_player(st, player, seat))
        return self._html_of(st.comps[self.index][player])

    # ---- the roll --------------------------------------------------------------------------
    def _rolled(self, view: DiceView) -> list[bool]:
        """Which dice the roll rolls: those marked by `only`, else every die in play."""
        mask = view.s[2]
        return view.s[1] if mask is None else mask

    @staticmethod
    def _sample(view: DiceView, rng: Any) -> dict[str, int]:
        """A roll's outcome: the chance's `sample` itself, since it runs for every roll."""
        rand = rng.random
        mask = view.s[2]
        rolled = view.s[1] if mask is None else mask
        return {n: int(rand() * k) + 1 for i, n, k in view.kind.dice if rolled[i]}

    @staticmethod
    def _draw(view: DiceView, rng: Any) -> dict[str, int]:
        """`_sample` and `_apply` in one pass over the dice: the roll of random play."""
        rand = rng.random
        s = view.s
        mask = s[2]
        rolled = s[1] if mask is None else mask
        faces = s[0]
        outcome = {}
        for i, n, k in view.kind.dice:
            if rolled[i]:
                outcome[n] = faces[i] = int(rand() * k) + 1
        s[2] = None
        return outcome

    def _check(self, view: DiceView, outcome: Any) -> str | None:
        if not isinstance(outcome, dict):
            return "a roll is a mapping of die names to faces"
        rolled = self._rolled(view)
        expected = [n for i, n in enumerate(self.names) if rolled[i]]
        if set(outcome) != set(expected):
            return f"expected faces for exactly {', '.join(expected) or 'no dice'}"
        for name, face in outcome.items():
            sides = self.sides[self.pos[name]]
            if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= sides:
                return f"{name} shows 1 to {sides}, not {face!r}"
        return None

    def _outcomes(self, view: DiceView) -> list[tuple[str, list[tuple[int, float]]]]:
        """Each die the roll rolls is a part of its own: every face, equally likely."""
        rolled = self._rolled(view)
        return [(n, [(face, 1 / self.sides[i]) for face in range(1, self.sides[i] + 1)])
                for i, n in enumerate(self.names) if rolled[i]]

    @staticmethod
    def _apply(view: DiceView, outcome: dict[str, int]) -> None:
        """A roll's outcome set on the dice: the chance's `apply` itself."""
        faces = view.s[0]
        pos = view.kind.pos
        for name, face in outcome.items():
            faces[pos[name]] = face
        view.s[2] = None

    # ---- the flat backend (rulekit/backends/flat.py): the dice as the state's own lists:
    # the game's (d{index}f the faces, d{index}p which are in play), or each player's -------
    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        if self.per_player:
            return [f"d{i} = comps[{i}]"]
        return [f"d{i} = comps[{i}]", f"d{i}f = d{i}[0]", f"d{i}p = d{i}[1]"]

    def flat_restore(self, s: list, old: list) -> None:
        for now, then in (zip(s, old) if self.per_player else ((s, old),)):
            now[0][:] = then[0]
            now[1][:] = then[1]
            now[2] = then[2]

    def _flat_lists(self, gen: Any, base: Any) -> tuple[str, str]:
        """The sources of the faces and the in-play marks of the dice `base` stands for."""
        i = int(self.index)
        if not self.per_player:
            return f"d{i}f", f"d{i}p"
        if base.seat is None:
            raise gen.uncovered(f"the dice '{self.name}' without their player")
        return f"d{i}[{base.seat}][0]", f"d{i}[{base.seat}][1]"

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        faces, inp = self._flat_lists(gen, base)
        if name in self.pos and name in self.type.inline:
            return gen.value(f"{faces}[{self.pos[name]}]", type_)
        n = len(self.names)
        if name == "faces":  # a copy, as DiceView.faces
            return gen.value(f"{gen.w.c(_in_play)}({faces}, {inp})", type_, size=n)
        if name == "all_names":
            return gen.value(gen.w.c(list(self.names)), type_, size=n)
        if name == "subsets" and n <= MAX_SUBSET_DICE:
            # the view's lists, shared from the same cache (the flat code only reads them);
            # the machine charges about an element per die of each: a loop over as many
            subsets = (1 << n) - 1
            gen.longest = max(gen.longest, subsets * (n + 1))
            return gen.value(f"{gen.w.c(self.flat_subsets)}({inp})", type_, size=subsets,
                             elem=gen.value(None, type_.elem, size=n))
        raise gen.uncovered(f"dice.{name}")

    def flat_subsets(self, in_play: list[bool]) -> list[list[int]]:
        """`DiceView.subsets` of the dice in play, the cached lists themselves."""
        inp = tuple(in_play)
        hit = self._subsets.get(inp)
        if hit is None:
            pos = [i for i, p in enumerate(inp) if p]
            hit = self._subsets[inp] = [[pos[k] for k in range(len(pos)) if m >> k & 1]
                                        for m in range(1, 1 << len(pos))]
        return hit

    def flat_only(self, in_play: list[bool], names: list[str]) -> list[bool]:
        """The dice a roll `only: names` rolls, as `_roll_only` marks them (a name that is
        no die: a KeyError, and the machine plays the game and says so)."""
        pos = self.pos
        for n in names:
            pos[n]
        return [in_play[i] and n in names for i, n in enumerate(self.names)]

    def flat_prepare(self, gen: Any, name: str, target: Any, args: list, d: int) -> None:
        """`roll: {dice: ..., only: NAMES}`: the dice it rolls marked, as `_roll_only`."""
        if name != "roll" or len(args) != 1 or self.per_player:
            raise gen.uncovered(f"`{name}` of dice with these arguments")
        i = int(self.index)
        only = args[0]
        if only is None:
            gen.w.add(d, f"d{i}[2] = None")
        else:
            gen.w.add(d, f"d{i}[2] = {gen.w.c(self.flat_only)}(d{i}p, {only.need()})")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        # a name that is no die fails as the view's lookup does: the machine plays the game
        faces = self._flat_lists(gen, base)[0]
        return gen.value(f"{faces}[{gen.w.c(self.pos)}[{key.need()}]]", type_)

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        """`dice.count(face)` and `dice.group_sums(lo, hi)`: what DiceView's give (the
        latter by `flat_sums`)."""
        if name == "count" and len(args) == 1:
            gen.longest = max(gen.longest, len(self.names))
            faces, inp = self._flat_lists(gen, base)
            return gen.value(f"{gen.w.c(_in_play)}({faces}, {inp}).count({args[0].need()})",
                             type_)
        if name != "group_sums" or self.per_player:
            raise gen.uncovered(f"dice.{name}()")
        n = len(self.names)
        if n > MAX_GROUPED_DICE:
            raise gen.uncovered(f"group_sums of {n} dice")
        i = int(self.index)
        splits = len(self.grouping_table(n))
        # the machine charges the splits' elements when it works a pattern out: a step
        # that asks is bounded as one looping over that many
        gen.longest = max(gen.longest, self._table_sizes[n])
        lo, hi = (a.need() for a in args)
        src = f"{gen.w.c(self.flat_sums)}(d{i}f, d{i}p, {lo}, {hi})"
        bounds = [re.fullmatch(r"\((-?\d+)\)", a) for a in (lo, hi)]
        if all(bounds):  # constant bounds: the faces as rolled look the answer up at once
            table = self._flat_tables.setdefault(tuple(int(b.group(1)) for b in bounds), {})
            src = (f"((False not in d{i}p and {gen.w.c(table)}.get(tuple(d{i}f))) "
                   f"or {src})")  # a hit is never empty: it holds the way using no die
        return gen.value(src, type_, size=splits, elem=gen.value(None, type_.elem, size=n))

    def flat_sums(self, faces: list[int], in_play: list[bool], lo: int, hi: int
                  ) -> list[list[int]]:
        """`DiceView.group_sums` of these faces, the same (shared) list from the same
        caches, without charging: the flat play bounds its work from the game's shape."""
        if False in in_play:
            faces = [f for f, p in zip(faces, in_play) if p]
        key = (tuple(faces), lo, hi)
        cache = self._sums
        hit = cache.get(key)
        if hit is None:
            ordered = tuple(sorted(faces))
            hit = self._sorted_sums.get((ordered, lo, hi))
            if hit is None:
                hit = self._split_sums(ordered, lo, hi)
            if len(cache) > 10_000:
                cache.clear()
            cache[key] = hit
        table = self._flat_tables.get((lo, hi))
        if table is not None and len(faces) == len(self.names):  # every die in play
            if len(table) > 10_000:
                table.clear()
            table[key[0]] = hit
        return hit

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                     d: int) -> None:
        w = gen.w
        if method in ("_remove", "_restore"):
            # a name that is no die: a KeyError, and the machine plays the game (PieceError)
            inp = self._flat_lists(gen, target)[1]
            w.add(d, f"{inp}[{w.c(self.pos)}[{args[0].need()}]] = {method == '_restore'}")
            return
        raise gen.uncovered(f"the dice's effect {method.lstrip('_')}")

    def flat_chance(self, gen: Any, name: str, d: int) -> None:
        """`roll`, as `_draw` rolls: each die rolled in order, one draw each."""
        if name != "roll" or self.per_player:
            raise gen.uncovered(f"`{name}` of dice" + " that are `per: player`" * self.per_player)
        i = int(self.index)
        w = gen.w
        w.add(d, f"m = d{i}[2]")
        w.add(d, f"r = d{i}p if m is None else m")
        for pos, _n, sides in self.dice:
            w.add(d, f"if r[{pos}]: d{i}f[{pos}] = int(rand() * {sides}) + 1")
        w.add(d, f"d{i}[2] = None")
        # the faces, and the dice rolled where they were not all those in play
        gen.record(d, f"tuple(d{i}f) if m is None else (tuple(d{i}f), m)")

    def flat_outcome(self, view: DiceView, record: tuple) -> dict[str, int]:
        """A roll's outcome from what the flat play recorded after it."""
        if record[0].__class__ is tuple:
            faces, rolled = record
        else:
            faces, rolled = record, view.s[1]
        if False not in rolled:  # every die rolled, as most rolls are
            return dict(zip(self.names, faces))
        return {n: faces[i] for i, n, _k in self.dice if rolled[i]}


Dice.chances = {
    "roll": Chance(
        sample=Dice._sample,
        check=lambda view, outcome: view.kind._check(view, outcome),
        apply=Dice._apply,
        draw=Dice._draw,
        doc="roll every die still in the game; `roll: {dice: EXPR, only: NAMES}` rolls "
            "the dice an expression gives (a player's), only the named ones",
        target="dice",
        target_type="Dice",
        args={"only": ListT(STR)},
        prepare=lambda view, only: view._roll_only(only),
        outcomes=lambda view: view.kind._outcomes(view),
    ),
}
