"""Qwixx's turns written by hand over rulekit's own State: the most generated code can reach.

`playout(state, rng)` plays a new game of games/qwixx.yaml (default params, any number of
players) to its end exactly as `state.playout(rng)` does: the same draws from the state's
RNG and from `rng`, the same log (rolls, decisions with the labels of the moves played,
`say` lines), the same sheets, dice, variables, turn and end reason, which
tests/test_references.py checks game by game. It reads and writes the State's own lists
(`st.comps`, `st.pvars`, `st.log`) as a compiler that knew Qwixx could, with each rule a few
lines of plain Python: no views, no records of options, no label but the played one.

It leaves out what the engine does for any game file, which no generated code can skip:
the work meter and the step budget, the change bits and checks of the end after each step,
the state's versions and errors that name a step of the file. So no code generated for this
State can play faster: `benchmarks/compare.py` measures it against the optimised Qwixx of
qwixx_fast.py, which keeps its own integers and lists and no log.
"""

from __future__ import annotations

import random
from typing import Any

#: the texts of games/qwixx.yaml's `say` steps
LOCKS = "player {} locks {}; the {} die leaves the game"
PENALTY = "player {} crossed nothing this turn: penalty {} of {}, -{} points"
MIN_CROSSES_TO_LOCK = 5
MAX_PENALTIES = 4
PENALTY_POINTS = 5
LOCKS_TO_END = 2


def playout(st: Any, rng: random.Random) -> None:
    """Play the new game `st` of games/qwixx.yaml to its end, as `st.playout(rng)` would.

    One loop, every rule written in place (a call costs as much as a rule's test): the
    roll, the white sum for everyone, the white and coloured sum for the active player,
    the penalty. A row's cells are `index_of[r][number]`; the last one locks the row.
    """
    dice_kind, sheet_kind = (next(k for k in st.game.components if k.kind == kind)
                             for kind in ("dice", "cross_sheet"))
    dice = st.comps[dice_kind.index]
    faces, in_play = dice[0], dice[1]
    lasts, counts, locks, masks = st.comps[sheet_kind.index]
    index_of, last_index = sheet_kind.index_of, sheet_kind.last_index
    names = sheet_kind.row_names
    rows = range(len(names))
    pvars, n = st.pvars, st.n
    log = st.log.append
    roll = st.rng.random
    pick = rng._randbelow  # what State.playout draws with
    while True:
        outcome = {}
        for d, name, sides in dice_kind.dice:
            if in_play[d]:
                outcome[name] = faces[d] = int(roll() * sides) + 1
        dice[2] = None
        log({"chance": "roll", "outcome": outcome})
        active = st.active
        # the white sum: everyone from the active player decides, then all crosses happen
        v = faces[0] + faces[1]
        chosen = []
        for k in range(n):
            seat = (active + k) % n
            last, count = lasts[seat], counts[seat]
            options = []
            for r in rows:
                if not locks[r]:
                    i = index_of[r].get(v)
                    if i is not None and i > last[r] and (
                            i != last_index[r] or count[r] >= MIN_CROSSES_TO_LOCK):
                        options.append((r, i))
            c = pick(len(options) + 1) if options else 0  # the pass is the last option
            if c < len(options):
                log({"seat": seat, "action": f"{names[options[c][0]]} {v}"})
                chosen.append((seat, *options[c]))
            else:
                log({"seat": seat, "action": "pass"})
        for seat, r, i in chosen:
            lasts[seat][r] = i
            counts[seat][r] += 1
            masks[seat][r] |= 1 << i
            if i == last_index[r]:
                counts[seat][r] += 1  # the lock counts as one more cross
                if not locks[r]:
                    locks[r] = True
                    in_play[2 + r] = False  # the row's die, after the two white ones
                    log({"say": LOCKS.format(seat, names[r], names[r])})
            pvars[seat]["crossed"] = True
        if chosen and sum(locks) >= LOCKS_TO_END:
            return _over(st, "locks")
        # a white die plus a coloured one, in that colour's row, for the active player
        last, count = lasts[active], counts[active]
        options = []
        # two equal white dice give the same crosses: the file's options merge them
        for w in (faces[0],) if faces[0] == faces[1] else (faces[0], faces[1]):
            for r in rows:
                if not locks[r]:
                    i = index_of[r].get(w + faces[2 + r])
                    if i is not None and i > last[r] and (
                            i != last_index[r] or count[r] >= MIN_CROSSES_TO_LOCK):
                        options.append((r, i, w + faces[2 + r]))
        c = pick(len(options) + 1) if options else 0
        p = pvars[active]
        if c < len(options):
            r, i, v = options[c]
            log({"seat": active, "action": f"{names[r]} {v}"})
            last[r] = i
            count[r] += 1
            masks[active][r] |= 1 << i
            p["crossed"] = True
            if i == last_index[r]:
                count[r] += 1
                if not locks[r]:
                    locks[r] = True
                    in_play[2 + r] = False
                    log({"say": LOCKS.format(active, names[r], names[r])})
                    if sum(locks) >= LOCKS_TO_END:
                        return _over(st, "locks")
        else:
            log({"seat": active, "action": "pass"})
        if not p["crossed"]:
            log({"say": PENALTY.format(active, p["penalties"] + 1, MAX_PENALTIES,
                                       PENALTY_POINTS)})
            p["penalties"] += 1
            if p["penalties"] >= MAX_PENALTIES:
                return _over(st, "penalties")
        st.active = (active + 1) % n
        st.turn += 1
        st.round += st.active == st.start
        for q in pvars:
            q["crossed"] = False


def _over(st: Any, reason: str) -> None:
    st.over = True
    st.end_reason = reason
    st._version += 1  # what was read of the state before is stale
