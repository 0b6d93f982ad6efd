"""Tracks: lanes of numbered fields, one pawn per player per lane, racing to the last field.

Race and column games move pawns field by field towards the end of a lane. A pawn starts
off the board (position 0); fields are numbered 1..length. The last field may hold only a
few pawns: a pawn arriving on a full last field either bumps the pawn that has been there
longest back off the board (`when_full: bump`) or stops one field short (`block`).
"""

from __future__ import annotations

from typing import Any

from rulekit.components.base import Effect, Kind, register
from rulekit.components.fixed import fixed_value, int_list, key_list
from rulekit.components.markup import esc, pawn
from rulekit.errors import PieceError
from rulekit.expr import ANY, BOOL, INT, ListT, Method, ObjT

#: the most fields a lane may have (a long race track has about a hundred)
MAX_FIELDS = 200

#: the type of a player argument; object types fit by name, so this matches the game's own
PLAYER = ObjT("Player")


def _seat(player: Any) -> int:
    return player if type(player) is int else player.seat


class TrackView:
    """The track as expressions see it: `board.position(player, 7)`, `board.lanes`."""

    __slots__ = ("s", "kind")

    def __init__(self, s: list, kind: Track) -> None:
        self.s = s
        self.kind = kind

    def _lane(self, lane: Any) -> int:
        i = self.kind.lane_index.get(lane)
        if i is None:
            raise PieceError(f"track '{self.kind.name}' has no lane {lane!r}; its lanes are "
                             f"{', '.join(map(str, self.kind.lanes))}")
        return i

    # ---- read ---------------------------------------------------------------------------
    @property
    def lanes(self) -> list:
        return list(self.kind.lanes)

    @property
    def lengths(self) -> list[int]:
        return list(self.kind.lengths)

    def length(self, lane: Any) -> int:
        return self.kind.lengths[self._lane(lane)]

    def position(self, player: Any, lane: Any) -> int:
        return self.s[0][_seat(player)][self._lane(lane)]

    def on_board(self, player: Any, lane: Any) -> bool:
        return self.s[0][_seat(player)][self._lane(lane)] > 0

    def at_end(self, player: Any, lane: Any) -> bool:
        # the lookups of _lane and _seat written out: a race game asks after every move
        i = self.kind.lane_index.get(lane)
        if i is None:
            i = self._lane(lane)
        return (self.s[0][player if type(player) is int else player.seat][i]
                == self.kind.lengths[i])

    def ends_reached(self, player: Any) -> list:
        """The lanes where the player's pawn stands on the last field."""
        row = self.s[0][_seat(player)]
        return [k for k, p, n in zip(self.kind.lanes, row, self.kind.lengths) if p == n]

    def seats_at(self, lane: Any, field: int) -> list[int]:
        """The seats whose pawn stands on that field of the lane (0: off the board)."""
        i = self._lane(lane)
        return [seat for seat, row in enumerate(self.s[0]) if row[i] == field]

    def seats_at_end(self, lane: Any) -> list[int]:
        """The seats on the lane's last field, in the order they arrived."""
        return list(self.s[1][self._lane(lane)])

    # ---- effects ------------------------------------------------------------------------
    def _advance(self, lane: Any, player: Any, steps: int | None) -> None:
        kind = self.kind
        i = kind.lane_index.get(lane)  # _lane and _seat written out, as in at_end
        if i is None:
            i = self._lane(lane)
        seat = player if type(player) is int else player.seat
        row = self.s[0][seat]
        old = row[i]
        end = kind.lengths[i]
        new = old + (1 if steps is None else steps)
        if new <= old or old >= end:  # no step forward, or at the end already
            return
        if new >= end:
            new = self._arrive(i, seat)
            if new <= old:
                return
        row[i] = new

    def _arrive(self, i: int, seat: int) -> int:
        """A pawn arrives on lane i's last field: make room (bump) or stop short (block);
        returns the field it ends on."""
        kind = self.kind
        end = kind.lengths[i]
        here = self.s[1][i]
        cap = kind.last_capacity
        if cap is not None and len(here) >= cap:
            if not kind.bump:
                return end - 1
            pos = self.s[0]
            while len(here) >= cap:
                pos[here.pop(0)][i] = 0
        here.append(seat)
        return end

    def _move_to(self, lane: Any, player: Any, field: int) -> None:
        """Put the pawn on `field` (0: off the board), forwards or back; arriving on the last
        field follows `when_full` as `advance` does."""
        i = self._lane(lane)
        seat = _seat(player)
        end = self.kind.lengths[i]
        if type(field) is not int or not 0 <= field <= end:
            raise PieceError(f"track '{self.kind.name}': lane {lane!r} has fields 0 to {end}, "
                             f"not {field!r}")
        row = self.s[0][seat]
        old = row[i]
        if field == old:
            return
        if old == end:
            self.s[1][i].remove(seat)
        if field == end:
            field = self._arrive(i, seat)
        row[i] = field

    def _send_back(self, lane: Any, player: Any) -> None:
        i = self._lane(lane)
        seat = _seat(player)
        row = self.s[0][seat]
        if row[i] == self.kind.lengths[i]:
            self.s[1][i].remove(seat)
        row[i] = 0

    def _rebind(self, st: Any) -> TrackView:
        return st.gviews[self.kind.index]


#: the widest line a track draws lane by lane; wider, its lanes are drawn side by side
_WIDE = 78


@register
class Track(Kind):
    kind = "track"
    schema = {
        "type": "object",
        "required": ["lanes", "lengths"],
        "properties": {
            "lanes": {
                "description": "the lanes' keys (numbers or names): a list, or an expression "
                               "of params such as range(...)",
                "type": ["string", "array"],
            },
            "lengths": {
                "description": "fields per lane, the last field included: one number for all "
                               "lanes, or a list (or params expression) with one per lane",
                "type": ["string", "array", "integer"],
            },
            "last_capacity": {
                "description": "how many pawns a lane's last field holds (omit: any number)",
                "type": ["string", "integer"],
            },
            "when_full": {
                "description": "a pawn arriving on a full last field bumps the pawn there "
                               "longest back off the board (bump) or stops one field short "
                               "(block)",
                "enum": ["bump", "block"],
            },
        },
    }
    effects = {
        "advance": Effect("track", "Track", "_advance",
                          {"lane": ANY, "player": PLAYER, "steps": INT}, optional=("steps",),
                          doc="move the player's pawn in the lane `steps` fields on (default 1); "
                              "off the board it enters on field `steps`; it stops on the last "
                              "field"),
        "send_back": Effect("track", "Track", "_send_back", {"lane": ANY, "player": PLAYER},
                            doc="the player's pawn in the lane goes back off the board"),
        "move_to": Effect("track", "Track", "_move_to",
                          {"lane": ANY, "player": PLAYER, "field": INT},
                          doc="put the player's pawn in the lane on `field` (0: off the board), "
                              "forwards or back; a full last field bumps or blocks as with "
                              "`advance`"),
    }

    def declare(self, b: Any) -> None:
        if self.per_player:
            b.error(b.path + ("per",), "a track is shared by all players",
                    "every player already has a pawn in each lane; remove `per: player`")
        conf = self.config
        self.lanes, key_t = key_list(b, b.path + ("lanes",), conf.get("lanes"), "lane")
        self.lane_index = {k: i for i, k in enumerate(self.lanes)}
        self.lengths = int_list(b, b.path + ("lengths",), conf.get("lengths"), len(self.lanes),
                                "lengths", 1, MAX_FIELDS)
        self.last_capacity: int | None = None
        if conf.get("last_capacity") is not None:
            path = b.path + ("last_capacity",)
            cap = fixed_value(b, path, conf["last_capacity"], INT)
            if cap is not None and cap < 1:
                b.error(path, f"the last field must hold at least 1 pawn, not {cap}",
                        "omit last_capacity for a field without limit")
            elif cap is not None:
                self.last_capacity = cap
        self.bump = conf.get("when_full", "bump") == "bump"
        if not self.bump and self.last_capacity is not None:
            short = [k for k, n in zip(self.lanes, self.lengths) if n < 2]
            if short:
                b.error(b.path + ("when_full",), "with `block`, a lane needs a field before "
                        f"its last one; too short: {', '.join(map(str, short))}")
        self.type = ObjT("Track", {"lanes": ListT(key_t), "lengths": ListT(INT)}, {
            "length": Method([key_t], INT),
            "position": Method([PLAYER, key_t], INT),
            "on_board": Method([PLAYER, key_t], BOOL),
            "at_end": Method([PLAYER, key_t], BOOL),
            "ends_reached": Method([PLAYER], ListT(key_t)),
            "seats_at": Method([key_t, INT], ListT(INT)),
            "seats_at_end": Method([key_t], ListT(INT)),
        })

    def global_type(self) -> ObjT:
        return self.type

    def new_state(self, st: Any) -> list:
        # each seat's position in each lane, and who stands on each last field (arrival order)
        lanes = len(self.lanes)
        return [[[0] * lanes for _ in range(st.n)], [[] for _ in range(lanes)]]

    def copy_state(self, s: list) -> list:
        return [[list(row) for row in s[0]], [list(e) for e in s[1]]]

    def global_view(self, st: Any) -> TrackView:
        return TrackView(st.comps[self.index], self)

    def state_size(self, st: Any) -> dict[str, int]:
        # counted from the state: a pawn per seat and lane, on the board or off it
        return {"pawns": sum(len(row) for row in st.comps[self.index][0])}

    def snapshot(self, st: Any, seat: int | None) -> dict:
        pos, ends = st.comps[self.index]
        return {"lanes": list(self.lanes), "lengths": list(self.lengths),
                "positions": [list(row) for row in pos], "at_end": [list(e) for e in ends]}

    def render(self, st: Any, seat: int | None) -> str:
        """One line per lane: who is off the board, on each field, and on X (the last field);
        lanes too long for that (their line wider than a terminal) in a few lines instead,
        `lane (fields): player@field` for each pawn on the board."""
        n = self.last_capacity
        cap = "" if n is None else f", holds {n} pawn{'' if n == 1 else 's'}"
        lines = [f"{self.name} (pawns by seat; X: the last field{cap}):"]
        width = max(len(str(k)) for k in self.lanes) if self.lanes else 1
        rows = []
        for key, fields in self._occupants(st):
            end = len(fields) - 1
            rows.append((key, [f"{'off' if f == 0 else ('X' if f == end else f)}: "
                               f"{' '.join(map(str, here)) or '-'}"
                               for f, here in enumerate(fields)]))
        # a column per field, as wide as its widest entry, so the lanes line up
        cols = max((len(fields) for _k, fields in rows), default=0)
        widths = [max((len(f[c]) for _k, f in rows if c < len(f) - 1), default=0)
                  for c in range(cols)]
        for key, fields in rows:
            cells = [f"{text:<{widths[c]}}" for c, text in enumerate(fields[:-1])]
            lines.append(f"  {str(key):>{width}} | " + " | ".join(cells + [fields[-1]]))
        if max(len(line) for line in lines) <= _WIDE:
            return "\n".join(lines)
        return self._render_packed(st, cap)

    def _render_packed(self, st: Any, cap: str) -> str:
        """The lanes side by side: each lane's key, its fields and every pawn on the board
        as `player@field` (X: the last field); pawns off the board are not listed."""
        cells = []
        for key, fields in self._occupants(st):
            end = len(fields) - 1
            pawns = [f"{p}@{'X' if f == end else f}" for f, here in enumerate(fields) if f
                     for p in here]
            cells.append(f"{key} ({end}): {' '.join(pawns) or '-'}")
        cell = max((len(c) for c in cells), default=0) + 3
        per = max(1, (_WIDE - 2) // cell)
        lines = [f"{self.name} (lane (fields): pawns as player@field; X: the last field{cap}):"]
        for i in range(0, len(cells), per):
            lines.append("  " + "".join(c.ljust(cell) for c in cells[i:i + per]).rstrip())
        return "\n".join(lines)

    def html(self, st: Any, seat: int | None) -> str:
        """A row of fields per lane, the pawns on them; the first column is off the board.
        A lane is a piece to click by its key (choices naming it: `5 + 10` acts on 5)."""
        rows = []
        for key, fields in self._occupants(st):
            end = len(fields) - 1
            cells = "".join(f'<td class="{"off" if f == 0 else ("last" if f == end else "field")}"'
                            f' data-field="{f}">' + "".join(pawn(p) for p in here) + "</td>"
                            for f, here in enumerate(fields))
            rows.append(f'<tr data-lane="{esc(key)}" data-pick="{esc(key)}"><th>{esc(key)}</th>'
                        f"{cells}</tr>")
        return f'<table class="track">{"".join(rows)}</table>'

    def _occupants(self, st: Any) -> list[tuple[Any, list[list[int]]]]:
        """Each lane with the seats on each of its fields, off the board (0) to the last
        (in arrival order there)."""
        pos, ends = st.comps[self.index]
        return [(key, [[p for p in range(st.n) if pos[p][i] == f] for f in range(end)]
                 + [list(ends[i])])
                for i, (key, end) in enumerate(zip(self.lanes, self.lengths))]

    # ---- the flat backend's form: each seat's positions (tr{index}p) and who stands on
    # each last field (tr{index}e), the state's own lists --------------------------------------
    def flat_types(self) -> list:
        return [self.type]

    def flat_bind(self, gen: Any) -> list[str]:
        i = int(self.index)
        return [f"tr{i}p, tr{i}e = comps[{i}]"]

    def flat_restore(self, s: list, old: list) -> None:
        for part in (0, 1):
            for now, then in zip(s[part], old[part]):
                now[:] = then

    def _flat_lane(self, gen: Any, lane: Any) -> str:
        """A lane's index; a key that is no lane is a KeyError, and the machine plays the
        game (PieceError)."""
        return f"{gen.w.c(self.lane_index)}[{lane.need()}]"

    def flat_attr(self, gen: Any, base: Any, name: str, type_: Any) -> Any:
        c = gen.w.c
        if name == "lanes":
            return gen.value(f"list({c(self.lanes)})", type_, size=len(self.lanes))
        if name == "lengths":
            return gen.value(f"list({c(self.lengths)})", type_, size=len(self.lanes))
        raise gen.uncovered(f"{self.name}.{name}")

    def flat_index(self, gen: Any, base: Any, key: Any, type_: Any) -> Any:
        raise gen.uncovered(f"{self.name}[...]")

    def flat_method(self, gen: Any, base: Any, name: str, args: list, type_: Any) -> Any:
        i = int(self.index)
        c = gen.w.c
        length = self.__dict__.get("_flat_length")
        if length is None:  # each lane's length by its key, as lane_index finds it
            length = self._flat_length = dict(zip(self.lanes, self.lengths))
        if name == "length":
            return gen.value(f"{c(length)}[{args[0].need()}]", type_)
        if name in ("position", "on_board", "at_end"):
            seat, lane = args
            pos = f"tr{i}p[{seat.need()}][{self._flat_lane(gen, lane)}]"
            if name == "position":
                return gen.value(pos, type_)
            if name == "on_board":
                return gen.value(f"({pos} > 0)", type_)
            return gen.value(f"({pos} == {c(length)}[{lane.need()}])", type_)
        if name == "ends_reached":
            return gen.value(f"[k for k, q, e in zip({c(self.lanes)}, tr{i}p[{args[0].need()}],"
                             f" {c(self.lengths)}) if q == e]", type_, size=len(self.lanes))
        if name == "seats_at_end":
            return gen.value(f"list(tr{i}e[{self._flat_lane(gen, args[0])}])", type_,
                             size=gen.game.max_players)
        raise gen.uncovered(f"{self.name}.{name}()")

    def flat_effect(self, gen: Any, method: str, target: Any, args: list, env: dict,
                    d: int) -> None:
        """`advance`, `send_back` and `move_to`, as TrackView does them."""
        i = int(self.index)
        w = gen.w
        c = w.c
        j, q, row = w.t("j"), w.t("q"), w.t("row")
        w.add(d, f"{j} = {self._flat_lane(gen, args[0])}")
        w.add(d, f"{q} = {args[1].need()}")
        w.add(d, f"{row} = tr{i}p[{q}]")
        if method == "_advance":
            old, new, end = w.t("o"), w.t("f"), w.t("e")
            steps = args[2]
            w.add(d, f"{old} = {row}[{j}]")
            w.add(d, f"{end} = {c(self.lengths)}[{j}]")
            if steps is None:  # one field on: always forwards, so only the end can stop it
                w.add(d, f"if {old} < {end}:")
                w.add(d + 1, f"{new} = {old} + 1")
            else:
                w.add(d, f"{new} = {old} + {steps.need()}")
                w.add(d, f"if {new} > {old} and {old} < {end}:")
            w.add(d + 1, f"if {new} >= {end}:")
            self._flat_arrive(gen, j, q, new, end, d + 2)
            w.add(d + 1, f"if {new} > {old}: {row}[{j}] = {new}")
            return
        if method == "_send_back":
            w.add(d, f"if {row}[{j}] == {c(self.lengths)}[{j}]: tr{i}e[{j}].remove({q})")
            w.add(d, f"{row}[{j}] = 0")
            return
        if method == "_move_to":
            field, end = w.t("f"), w.t("e")
            w.add(d, f"{end} = {c(self.lengths)}[{j}]")
            w.add(d, f"{field} = {args[2].need()}")
            w.add(d, f"if {field}.__class__ is not int or not 0 <= {field} <= {end}: "
                  "raise GiveBack")
            w.add(d, f"if {field} != {row}[{j}]:")
            w.add(d + 1, f"if {row}[{j}] == {end}: tr{i}e[{j}].remove({q})")
            w.add(d + 1, f"if {field} == {end}:")
            self._flat_arrive(gen, j, q, field, end, d + 2)
            w.add(d + 1, f"{row}[{j}] = {field}")
            return
        raise gen.uncovered(f"the track's effect {method.lstrip('_')}")

    def _flat_arrive(self, gen: Any, j: str, q: str, new: str, end: str, d: int) -> None:
        """TrackView._arrive: seat q arrives on lane j's last field; `new` becomes the
        field it ends on."""
        w = gen.w
        here = w.t("h")
        i = int(self.index)
        cap = self.last_capacity
        w.add(d, f"{here} = tr{i}e[{j}]")
        if cap is None:
            w.add(d, f"{here}.append({q}); {new} = {end}")
        elif self.bump:
            w.add(d, f"while len({here}) >= {cap}: tr{i}p[{here}.pop(0)][{j}] = 0")
            w.add(d, f"{here}.append({q}); {new} = {end}")
        else:
            w.add(d, f"if len({here}) >= {cap}: {new} = {end} - 1")
            w.add(d, f"else: {here}.append({q}); {new} = {end}")
