"""Qwixx random playouts as fast as plain Python reasonably goes: the target of issue 10.

No API, no labels, no Action objects, no log: integers and lists, one function that plays
a whole game with uniformly random choices among the legal actions (pass included, and
one choice per distinct row and number in action 2, as the labels of the API count
them). The rules are those of reference/qwixx.py and games/qwixx.yaml.

A cross is stored as the index of the rightmost crossed cell of a row: for red and yellow
(rows 0 and 1) number n is cell n - 2, for green and blue (rows 2 and 3) cell 12 - n; cell
10 is the last one, which needs 5 crosses in the row and locks it.
"""

from __future__ import annotations

import random

LAST = 10
MIN_CROSSES_TO_LOCK = 5
PENALTY_POINTS = 5
MAX_PENALTIES = 4
LOCKS_TO_END = 2
ROW_SCORES = (0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78)


def random_game(players: int, rng: random.Random) -> list[int]:
    """Play one game of Qwixx with random choices; the final scores by seat."""
    rand = rng.random
    # per seat: the rightmost crossed cell and the crosses of each row
    rightmost = [[-1, -1, -1, -1] for _ in range(players)]
    crosses = [[0, 0, 0, 0] for _ in range(players)]
    penalties = [0] * players
    open_rows = [0, 1, 2, 3]  # the rows not locked; a locked row's die is not rolled
    faces = [0, 0, 0, 0]
    orders = [[(a + k) % players for k in range(players)] for a in range(players)]
    active = 0
    while True:
        w1 = int(rand() * 6) + 1
        w2 = int(rand() * 6) + 1
        for r in open_rows:
            faces[r] = int(rand() * 6) + 1
        white = w1 + w2
        cells = (white - 2, white - 2, 12 - white, 12 - white)
        # action 1: everyone from the active player decides on the same sheets
        chosen = []
        for p in orders[active]:
            last = rightmost[p]
            count = crosses[p]
            options = [r for r in open_rows if cells[r] > last[r]
                       and (cells[r] < LAST or count[r] >= MIN_CROSSES_TO_LOCK)]
            k = int(rand() * (len(options) + 1))
            if k < len(options):
                chosen.append((p, options[k]))
        crossed = False
        new_locks = []
        for p, r in chosen:
            cell = cells[r]
            rightmost[p][r] = cell
            if cell == LAST:
                crosses[p][r] += 2  # the lock counts as one more cross
                if r in open_rows:
                    open_rows.remove(r)
                    new_locks.append(r)
            else:
                crosses[p][r] += 1
            if p == active:
                crossed = True
        if new_locks and len(open_rows) <= 4 - LOCKS_TO_END:
            break
        # action 2: the active player, one white die plus a coloured die in that colour
        last = rightmost[active]
        count = crosses[active]
        options = []
        for w in ((w1,) if w1 == w2 else (w1, w2)):
            for r in open_rows:
                n = w + faces[r]
                cell = n - 2 if r < 2 else 12 - n
                if cell > last[r] and (cell < LAST or count[r] >= MIN_CROSSES_TO_LOCK):
                    options.append((r, cell))
        k = int(rand() * (len(options) + 1))
        if k < len(options):
            r, cell = options[k]
            last[r] = cell
            if cell == LAST:
                count[r] += 2
                open_rows.remove(r)
                if len(open_rows) <= 4 - LOCKS_TO_END:
                    break
            else:
                count[r] += 1
        elif not crossed:
            penalties[active] += 1
            if penalties[active] >= MAX_PENALTIES:
                break
        active += 1
        if active == players:
            active = 0
    return [sum(ROW_SCORES[c] for c in crosses[p]) - PENALTY_POINTS * penalties[p]
            for p in range(players)]
