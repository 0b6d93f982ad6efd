"""Where the browser app keeps its games: SQLite (the standard library's sqlite3).

A game is stored as what it was started with (the game file's key, params, players, seed,
who sits where) and its log, one row per entry, appended as the game goes on. The log
is the game: a server started again rebuilds each game from it exactly, as
`rulekit replay` does, so nothing but the log needs to be saved. A series of levels is
its person's seat and its seed, and a game for each level played so far.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game_key TEXT NOT NULL,
    params TEXT NOT NULL,
    players INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    address TEXT NOT NULL DEFAULT ''  -- the client that started it, for its limits
);
CREATE TABLE IF NOT EXISTS entries (
    game_id TEXT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (game_id, n)
);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS series (
    id TEXT PRIMARY KEY,
    seat INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS levels (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    series_id TEXT NOT NULL REFERENCES series(id),
    level INTEGER NOT NULL,
    score INTEGER,  -- the person's, once the level is over
    UNIQUE (series_id, level)
);
"""

#: made after the column exists (a file of an older server gains it first)
_INDEX = "CREATE INDEX IF NOT EXISTS games_by_address ON games (address, created)"


class StoreConflict(Exception):
    """A game's log in the store is not where the server thought it was: another copy of
    the game stored entries meanwhile. Nothing was written."""


@dataclass
class StoredGame:
    """A game as stored: how it was started, and its log so far."""

    id: str
    game_key: str
    params: dict[str, Any]
    players: int
    seed: int
    seats: list[str]  # per seat: "human" or a bot's spec
    log: list[dict]
    over: bool


@dataclass
class StoredLevel:
    """A game that is one level of a series."""

    series: str
    level: int  # from 1
    seat: int   # the person's
    seed: int   # the series' (each level's own is derived from it)
    bots: list[str]  # the bots chosen for the other seats, for levels without their own


class Store:
    """The games of one server in one SQLite file (`:memory:` for none kept)."""

    def __init__(self, path: str) -> None:
        # one connection shared by the server's threads, each use under the lock
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None,
                                  timeout=10)
        self.lock = threading.Lock()
        with self.lock:
            self.db.executescript(_SCHEMA)
            columns = [row[1] for row in self.db.execute("PRAGMA table_info(games)")]
            if "address" not in columns:
                self.db.execute("ALTER TABLE games ADD COLUMN address TEXT NOT NULL "
                                "DEFAULT ''")
            self.db.execute(_INDEX)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    def add(self, g: StoredGame, tokens: dict[str, int], level: StoredLevel | None = None,
            address: str = "") -> None:
        """A new game, its log so far and the tokens of its seats, started by `address`;
        with `level`, a level of a series (the series is stored with its first level). A
        level that its series has already is refused (sqlite3.IntegrityError), and
        nothing is stored."""
        with self.lock, self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if level is not None:
                self.db.execute("INSERT OR IGNORE INTO series (id, seat, seed, bots) "
                                "VALUES (?, ?, ?, ?)", (level.series, level.seat, level.seed,
                                                        json.dumps(level.bots)))
                self.db.execute("INSERT INTO levels (game_id, series_id, level) VALUES (?, ?, ?)",
                                (g.id, level.series, level.level))
            self.db.execute(
                "INSERT INTO games (id, game_key, params, players, seed, seats, created, "
                "updated, over, address) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (g.id, g.game_key, json.dumps(g.params), g.players, g.seed,
                 json.dumps(g.seats), time.time(), time.time(), int(g.over), address))
            self.db.executemany("INSERT INTO tokens (token, game_id, seat) VALUES (?, ?, ?)",
                                [(t, g.id, seat) for t, seat in tokens.items()])
            self._append(g.id, 0, g.log)

    def extend(self, game_id: str, start: int, entries: list[dict], over: bool,
               level_score: int | None = None) -> None:
        """Entries `start`, `start + 1`, ... of a game's log, written in one transaction;
        with `level_score`, the person's score in the level the game ended.

        The transaction first checks that the stored log has exactly `start` entries, so
        that two copies of one game can never both store a move made at the same version:
        the second raises StoreConflict and writes nothing."""
        with self.lock, self.db:
            self.db.execute("BEGIN IMMEDIATE")
            have = self.db.execute("SELECT COUNT(*) FROM entries WHERE game_id = ?",
                                   (game_id,)).fetchone()[0]
            if have != start:
                raise StoreConflict(f"game {game_id} has {have} entries stored, not {start}")
            self._append(game_id, start, entries)
            self.db.execute("UPDATE games SET over = ?, updated = ? WHERE id = ?",
                            (int(over), time.time(), game_id))
            if level_score is not None:
                self.db.execute("UPDATE levels SET score = ? WHERE game_id = ?",
                                (level_score, game_id))

    def _append(self, game_id: str, start: int, entries: list[dict]) -> None:
        self.db.executemany("INSERT INTO entries (game_id, n, entry) VALUES (?, ?, ?)",
                            [(game_id, start + i, json.dumps(e)) for i, e in enumerate(entries)])

    def seat_of(self, token: str) -> tuple[str, int] | None:
        """The game and seat a token stands for, or None."""
        with self.lock:
            row = self.db.execute("SELECT game_id, seat FROM tokens WHERE token = ?",
                                  (token,)).fetchone()
        return (row[0], row[1]) if row else None

    def tokens(self, game_id: str) -> dict[int, str]:
        """Each human seat's token."""
        with self.lock:
            rows = self.db.execute("SELECT seat, token FROM tokens WHERE game_id = ?",
                                   (game_id,)).fetchall()
        return {seat: token for seat, token in rows}

    def level_of(self, game_id: str) -> StoredLevel | None:
        """The series and level a game is, or None for a game on its own."""
        with self.lock:
            row = self.db.execute(
                "SELECT l.series_id, l.level, s.seat, s.seed, s.bots FROM levels l JOIN "
                "series s ON s.id = l.series_id WHERE l.game_id = ?", (game_id,)).fetchone()
        return StoredLevel(*row[:4], json.loads(row[4])) if row else None

    def series_games(self, series_id: str) -> dict[int, tuple[str, int | None]]:
        """The game of each level of a series played so far, with the person's score once
        that level is over."""
        with self.lock:
            rows = self.db.execute("SELECT level, game_id, score FROM levels WHERE "
                                   "series_id = ?", (series_id,)).fetchall()
        return {level: (game_id, score) for level, game_id, score in rows}

    def get(self, game_id: str) -> StoredGame | None:
        with self.lock:
            row = self.db.execute(
                "SELECT game_key, params, players, seed, seats, over FROM games WHERE id = ?",
                (game_id,)).fetchone()
            if row is None:
                return None
            entries = self.db.execute("SELECT entry FROM entries WHERE game_id = ? ORDER BY n",
                                      (game_id,)).fetchall()
        return StoredGame(game_id, row[0], json.loads(row[1]), row[2], row[3],
                          json.loads(row[4]), [json.loads(e[0]) for e in entries], bool(row[5]))

    def open_games(self, within: float, address: str | None = None) -> int:
        """How many stored games are not over and had a move in the last `within` seconds
        (a game left longer still resumes, but no longer takes a place); with `address`,
        those that address started."""
        sql = "SELECT COUNT(*) FROM games WHERE over = 0 AND updated > ?"
        args: tuple = (time.time() - within,)
        if address is not None:
            sql, args = sql + " AND address = ?", (*args, address)
        with self.lock:
            return self.db.execute(sql, args).fetchone()[0]

    def started_since(self, address: str, seconds: float) -> int:
        """How many games `address` started in the last `seconds`."""
        with self.lock:
            return self.db.execute("SELECT COUNT(*) FROM games WHERE address = ? AND "
                                   "created > ?", (address, time.time() - seconds)
                                   ).fetchone()[0]
