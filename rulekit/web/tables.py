"""The games a server runs: starting them, the moves of people and bots, what each seat sees.

A table is one game in progress. People move by their seat's token; after each move the
bots and chance move by themselves until a person must decide or the game is over, and
every new log entry is stored before the move is answered. What a seat is shown comes
from the State API's views for that seat: another hand never reaches it, nor a secret
deal, nor another seat's choice in a window of simultaneous decisions before it resolves.

A game is in memory once at most (one Table, one lock), however many requests ask for
it at once; the store is what the game is: a move is stored against the version it was
made at, and a table whose store fails is dropped and rebuilt from the store. The game
file's expressions run under work budgets on every request, pages included.

A file with `levels:` may be played as a series, as `rulekit play` plays it: one person
against each level's bots, every level a table of its own, and a level passed opens the
next one.
"""

from __future__ import annotations

import json
import random
import re
import secrets
import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulekit.engine.state import RUNTIME_ERRORS
from rulekit.errors import RulekitError
from rulekit.expr import budget
from rulekit.levels import Level, levels, series_summary
from rulekit.web.store import Store, StoreConflict, StoredGame, StoredLevel

#: the bots a person may seat at a web table: iteration budgets only, so that a game does
#: not depend on the machine's speed, and small enough that a move (every bot's answer
#: included) is answered within about a second
BOT_CHOICES = ("random", "greedy", "mcts:100", "mcts:200")
_BOT = re.compile(r"random|greedy|mcts:([1-9][0-9]{0,5})(:random|:greedy)?")
#: what one iteration of the search costs with greedy playouts, in iterations with random
#: ones (measured on the shipped games: 6 to 8 times)
GREEDY_ITERATION = 8
HUMAN = "human"
#: events a view carries (the whole log downloads)
EVENTS_SHOWN = 300
#: seconds a request waits for a table another request is using before it is refused
BUSY_WAIT = 10.0
#: the work one page of a game may take (its display lines, pictures and texts): a page
#: that needs more is shown with an error, as `rulekit play` stops such a line
WORK_PER_VIEW = budget.WORK_PER_CALL
#: the work of one request that moves a game (the person's move, chance, every bot's
#: answer) or rebuilds it from its log
WORK_PER_MOVE = budget.WORK_PER_GAME
#: what a game file's expressions and building blocks may raise while a page is built
_VIEW_ERRORS = (RulekitError, *RUNTIME_ERRORS)


@dataclass
class Limits:
    """What one server accepts at most, in all and from one client address."""

    open_games: int = 100     # games not over, moved in the last day; one more is refused
    idle: float = 86_400.0    # seconds after which a game left unfinished takes no place
    tables_in_memory: int = 64  # games kept loaded; others are rebuilt from the store
    streams: int = 64         # event streams open at once
    players: int = 8          # seats at one table
    games_per_hour: int = 30  # games one address may start in an hour (levels included)
    open_per_address: int = 10  # games not over that one address started
    streams_per_token: int = 4  # event streams open on one seat (its pages, its tabs)
    streams_per_address: int = 16  # event streams one address holds open
    bot_iterations: int = 200  # the most search iterations of a bot (random playouts)


class WebError(RulekitError):
    """A request the server refuses, with the HTTP status it answers with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class SeriesPlace:
    """Where a table stands in a series of levels."""

    series: str
    level: Level
    seat: int          # the person's
    seed: int          # the series' seed; the level's own is derived from it
    bots: list[str]    # the bots chosen for the other seats, for levels without their own
    earlier: list[tuple[Level, int]]  # the levels before, with the person's score in each

    def stored(self) -> StoredLevel:
        return StoredLevel(self.series, self.level.number, self.seat, self.seed, self.bots)


class Table:
    """One game being played: the state, who sits where, and its lock."""

    def __init__(self, id: str, key: str, game_file: str, game: Any, state: Any,
                 seats: list[str], params: dict[str, Any],
                 place: SeriesPlace | None = None) -> None:
        from rulekit.bots import make

        self.id = id
        self.key = key
        self.game_file = game_file
        self.game = game
        self.state = state
        self.seats = seats
        self.params = params
        self.place = place
        self.bots = {s: make(spec) for s, spec in enumerate(seats) if spec != HUMAN}
        self.lock = threading.Lock()
        self.stored = len(state.log)  # log entries already in the store
        #: set when the table no longer stands for its game (its store could not be
        #: written): a request that still holds it finds the game anew
        self.dropped = False
        self.views: dict[int, tuple[int, dict[str, Any]]] = {}  # seat -> (version, view)
        #: choices made early in a window of simultaneous decisions (seat -> label): the
        #: engine asks the window's seats one by one, a person need not wait for the seats
        #: before; each is played, and stored, when the engine asks its seat. In memory
        #: only, and never shown to another seat.
        self.early: dict[int, str] = {}
        #: the points a log entry made: its index -> (each seat's change, each seat's
        #: score after), for the event list (in memory: a game rebuilt from its store
        #: tells the points of the moves made since)
        self.points: dict[int, tuple[list[Any], list[Any]]] = {}

    @contextmanager
    def held(self) -> Iterator[None]:
        """The table's lock, waited for BUSY_WAIT seconds at most: a request never waits
        on a busy table for ever, holding one of the server's threads."""
        if not self.lock.acquire(timeout=BUSY_WAIT):
            raise WebError(503, "this game is busy with another request: try again in a "
                                "moment")
        try:
            yield
        finally:
            self.lock.release()

    @property
    def version(self) -> int:
        """Grows with every entry of the log: a move names the version it was chosen at."""
        return len(self.state.log)

    def advance(self) -> None:
        """Let chance and the bots move until a person must decide or the game is over."""
        from rulekit.studies.play import derive_seed

        st = self.state
        while not st.is_over:
            if st.is_chance:
                self._scored(st.resolve_chance)
                continue
            seat = st.current_player
            bot = self.bots.get(seat)
            if bot is None:
                label = self.early.pop(seat, None)
                if label is not None and label in [a.label for a in st.legal_actions()]:
                    self._scored(st.apply, label)
                    continue
                return  # (a choice no longer legal is dropped: the seat chooses anew)
            # seeded by the game's seed and the position, so a game is the same when
            # replayed and when the server was restarted in between
            rng = random.Random(derive_seed(st.seed, "web", "bots", len(st.log)))
            self._scored(st.apply, bot.choose(st, rng).label)

    def move(self, seat: int, label: Any, version: Any) -> None:
        """The person at `seat` plays `label`, chosen when the game was at `version`;
        a stale, untimely or illegal move raises a WebError and changes nothing."""
        st = self.state
        if not isinstance(label, str) or not isinstance(version, int) \
                or isinstance(version, bool):
            raise WebError(400, "a move is {\"label\": TEXT, \"version\": NUMBER}")
        if version != self.version:
            raise WebError(409, f"the game has moved on (version {self.version}, the move was "
                                f"chosen at {version}): look again and choose anew")
        if st.is_over:
            raise WebError(409, "the game is over")
        early = st.current_player != seat
        if seat in self.early:
            raise WebError(409, "you have chosen already: the others are still deciding")
        if early and seat not in self.window_due():
            raise WebError(409, f"it is not your turn: {self.name(st.current_player, seat)} "
                                "decides now")
        labels = self.choices(seat)
        if label not in labels:
            raise WebError(400, f"{label[:100]!r} is not a legal choice now; legal: "
                                + ", ".join(labels))
        if early:  # played when the window asks this seat
            self.early[seat] = label
            self.views.pop(seat, None)
            return
        self._scored(st.apply, label)
        self.advance()

    def _scored(self, play: Any, *args: Any) -> None:
        """Play, and keep the points it made (a window's: at the choice that resolved it)."""
        _scored(self.state, self.points, play, *args)

    def seen(self) -> tuple[int, tuple[int, ...]]:
        """What a kept view stands for: the version, and the seats that chose early."""
        return self.version, tuple(sorted(self.early))

    def _window(self) -> Any:
        """The window of simultaneous decisions now asking, if any."""
        pending = self.state._pending
        return pending.window if pending is not None else None

    def window_due(self) -> list[int]:
        """The people whose choice in the window now open is still due (the seat the
        engine asks included), who may all decide at once, in any order."""
        window = self._window()
        if window is None or self.state.is_over:
            return []
        return [s for s in window.seats[window.k:]
                if s not in self.bots and s not in self.early]

    def choices(self, seat: int) -> list[str]:
        """The labels `seat` may choose now: the decision due, or its part of the window
        open (effects in a window wait for everyone, so the options are those of now)."""
        st = self.state
        if st.is_over or st.is_chance:
            return []
        if st.current_player == seat:
            return [a.label for a in st.legal_actions()]
        if seat not in self.window_due():
            return []
        window = self._window()
        return [a.label for a in window.step.actions(st, seat, window.env)]

    def window_title(self, seat: int) -> str:
        """The window's `title:` as `seat` reads it (the seat the engine asks: its own)."""
        st = self.state
        if st.current_player == seat:
            return st.decision_title()
        window = self._window()
        text = getattr(window.step, "title", None) if window is not None else None
        if text is None:
            return ""
        env = dict(window.env or {})
        env["player"] = st.players[seat]
        return text(st, env)

    def name(self, player: int | None, seat: int | None) -> str:
        """How `seat`'s page calls `player`: you, a bot by its spec, or just its number."""
        if player is None:
            return "nobody"
        if player == seat:
            return f"player {player} (you)"
        spec = self.seats[player]
        return f"player {player}" + ("" if spec == HUMAN else f" ({spec})")

    def events(self, seat: int) -> list[str]:
        """The log as `seat` may see it, one line an entry, the latest last."""
        from rulekit.terminal import describe_entry, number, signed

        st = self.state
        log = st.log
        hidden = set(st.hidden_choices(seat))
        secret = st.secret_chances()
        start = max(0, len(log) - EVENTS_SHOWN)
        out: list[str] = []
        told: dict[int, int] = {}  # seat -> where its last move stands in `out`
        for i in range(start, len(log)):
            entry = log[i]
            if "chance" in entry:
                told.clear()  # points after a roll are not those of a move before it
            if entry.get("to", seat) != seat:  # a line said to another player alone
                continue
            if i in hidden:
                out.append(f"{self.name(entry['seat'], seat)}: has chosen (shown when "
                           "everyone has)")
            else:
                out.append(describe_entry(entry, lambda p: self.name(p, seat), secret))
            if "action" in entry and i not in hidden:
                told[entry.get("seat")] = len(out) - 1
            made = self.points.get(i)
            if made is None:
                continue
            # told with the move that made them (a window's: each seat's own choice)
            for p, d in enumerate(made[0]):
                if not d:
                    continue
                text = f"{signed(d)}, score {number(made[1][p])}"
                if p in told:
                    out[told.pop(p)] += f" ({text})"
                else:
                    out.append(f"{self.name(p, seat)}: {text}")
            told.clear()
        return out

    def previews(self, seat: int) -> dict[str, str]:
        """What each choice due at `seat` would change its score by ("+2"), read from
        `State.preview` under a part of the page's work budget; a choice whose preview
        fails, runs out of work or changes nothing shows nothing."""
        from rulekit.terminal import signed

        st = self.state
        if st.is_over or st.current_player != seat:
            return {}
        out: dict[str, str] = {}
        try:
            with budget.limit(WORK_PER_VIEW // 4, "the choices' points"):
                now = st.scores()[seat]
                for a in st.legal_actions():
                    try:
                        d = st.preview(a).scores()[seat] - now
                    except _VIEW_ERRORS as exc:
                        if isinstance(exc, budget.BudgetExceeded):
                            raise
                        continue
                    if d:
                        out[a.label] = signed(d)
        except budget.BudgetExceeded:
            pass  # the previews made so far are shown
        return out

    def view(self, seat: int) -> dict[str, Any]:
        """Everything `seat`'s page shows, as JSON data (the pictures as HTML); call it
        holding the lock.

        The game file's display lines, pictures and texts run under a work budget: a part
        that goes past it, or fails, is left out and the view carries an `error` saying
        why, so a hostile line costs a second of one thread, never a hung page. A view
        is kept until the game moves, so asking again costs nothing; and it leaves the
        game's own work budget as it found it (a page is not a move, and a game rebuilt
        from its log must have the same budget left as the one in memory)."""
        kept = self.views.get(seat)
        if kept is not None and kept[0] == self.seen():
            return dict(kept[1])
        st = self.state
        work_left = getattr(st, "_work_left", None)
        try:
            with budget.limit(WORK_PER_VIEW, "the page of the game"):
                out = self._view(seat)
        finally:
            if work_left is not None:
                st._work_left = work_left
        self.views[seat] = (self.seen(), out)
        return dict(out)

    def _view(self, seat: int) -> dict[str, Any]:
        from rulekit.terminal import end_reason_text

        st = self.state
        game = self.game
        errors: list[str] = []

        def part(fn: Any, fallback: Any) -> Any:
            try:
                return fn()
            except _VIEW_ERRORS as exc:
                text = str(exc) if isinstance(exc, RulekitError) else \
                    f"{type(exc).__name__}: {exc}"
                if text not in errors:
                    errors.append(text)
                return fallback

        deciding = st.current_player
        due = self.window_due()
        mine = deciding == seat or seat in due
        chosen = self.early.get(seat, "")  # the seat's own early choice: its page alone
        scores = part(st.scores, [0] * st.n)
        board = part(lambda: "".join(kind.html(st, seat) for kind in game.components), "")
        lines = part(lambda: game.display(st, None), [])
        players = []
        for p in range(st.n):
            own = part(lambda p=p: "".join(kind.html_player(st, p, seat)
                                           for kind in game.components), "")
            players.append({"seat": p, "name": self.name(p, seat), "score": scores[p],
                            "active": p == st.active and not st.is_over,
                            "display": part(lambda p=p: game.display(st, p, seat), []),
                            "html": own})
        return {
            "game": game.name, "table": self.id, "seat": seat, "players": st.n,
            "version": self.version, "turn": st.turn,
            "board": board, "display": lines, "player_parts": players,
            "deciding": seat if mine else deciding,
            "deciding_name": self.name(seat if mine else deciding, seat),
            "together": [self.name(s, seat) for s in due if s != seat] if mine else [],
            "chosen": chosen,
            "title": part(lambda: self.window_title(seat), "") if mine else "",
            "help": part(st.decision_help, "") if deciding == seat else "",
            "choices": part(lambda: self.choices(seat), []) if mine else [],
            "points": self.previews(seat),
            "events": self.events(seat),
            "scores": scores, "over": st.is_over,
            "winners": part(st.winners, []) if st.is_over else [],
            "end": part(lambda: end_reason_text(st), "") if st.is_over else "",
            "components": part(lambda: st.view(seat)["components"], {}),
            "log_ready": st.is_over or not (game.private_lines or game.hides_information),
            "level": part(self.level_view, None),
            "error": "; ".join(errors),
        }

    def level_view(self) -> dict[str, Any] | None:
        """The level this table is, and once it is over its verdict in words, the next
        level if it opens one, and the summary of the series so far."""
        place = self.place
        if place is None:
            return None
        level, st = place.level, self.state
        score = st.scores()[place.seat]
        out: dict[str, Any] = {"number": level.number, "of": level.of, "name": level.name,
                               "min_score": level.min_score, "score": score,
                               "passed": None, "verdict": "", "next": None, "summary": []}
        if st.is_over:
            out["passed"] = level.passed(score)
            out["verdict"] = f"level {level.number} ({level.name}) {level.verdict(score)}"
            if out["passed"] and level.number < level.of:
                nxt = levels(self.game)[level.number]
                out["next"] = {"number": nxt.number, "name": nxt.name}
            summary = series_summary(level.of, [*place.earlier, (level, score)],
                                     stopped=False)
            # the series goes on: its last line (how it ended) is not said yet
            out["summary"] = summary[:-1] if out["next"] else summary
        return out

    def log_text(self) -> str:
        """The game's log as the JSON lines `rulekit replay` reads; it names the game file
        by its name alone, to be kept next to it (or given with `--game`)."""
        from rulekit.replay import log_text

        return log_text(self.state, Path(self.game_file).name, self.params)


def _scored(st: Any, points: dict[int, tuple[list[Any], list[Any]]], play: Any,
            *args: Any) -> None:
    """`play(*args)` on `st`, noting in `points` what it changed of the scores."""
    before = st.scores()
    play(*args)
    after = st.scores()
    if after != before and st.log:
        points[len(st.log) - 1] = ([a - b for a, b in zip(after, before)], after)


def _points(game: Any, g: StoredGame) -> dict[int, tuple[list[Any], list[Any]]]:
    """The points each entry of a stored game made, for its event list: the game played
    again, as `rebuild` did, with the scores read after each step (under a budget of its
    own; past it, or on a failure, the rest of the points are left out)."""
    points: dict[int, tuple[list[Any], list[Any]]] = {}
    try:
        with budget.limit(WORK_PER_MOVE, "the points of the game's moves"):
            st = game.new_game(players=g.players, seed=g.seed)
            for entry in g.log:
                if "chance" in entry:
                    _scored(st, points, st.resolve_chance, entry.get("outcome"))
                elif "action" in entry and not entry.get("forced"):
                    _scored(st, points, st.apply, entry["action"])
    except _VIEW_ERRORS:
        pass
    return points


class Tables:
    """The server's tables: created here, found by token, kept loaded up to a limit."""

    def __init__(self, store: Store, files: dict[str, str], limits: Limits | None = None,
                 ) -> None:
        self.store = store
        self.files = files  # game key -> path
        self.limits = limits or Limits()
        self.loaded: OrderedDict[str, Table] = OrderedDict()
        #: every table some request still holds, loaded or not: a game is never in memory
        #: twice, whatever pushed it out of `loaded`
        self.alive: weakref.WeakValueDictionary[str, Table] = weakref.WeakValueDictionary()
        self.games: OrderedDict[str, Any] = OrderedDict()  # (key, params) -> Game
        self.lock = threading.Lock()
        self.series_lock = threading.Lock()
        #: requests that rebuild the same game wait for one another (a lock per game id,
        #: from a fixed set: two games may share one, which only makes one wait)
        self.restoring = [threading.Lock() for _ in range(64)]

    def game(self, key: str, params: dict[str, Any] | None = None) -> Any:
        """The compiled game of a key with params set (a bad param raises a RulekitError)."""
        import rulekit

        if key not in self.files:
            raise WebError(404, f"no game {key[:60]!r} is served here")
        cache = (key, json.dumps(params or {}, sort_keys=True))
        with self.lock:
            game = self.games.get(cache)
        if game is None:
            game = rulekit.load_game(self.files[key], overrides=params or None)
            with self.lock:
                self.games[cache] = game
                while len(self.games) > 32:
                    self.games.popitem(last=False)
        return game

    def create(self, key: str, seats: list[str], params: dict[str, Any] | None = None,
               seed: int | None = None, level: int | None = None, address: str = "",
               ) -> tuple[Table, dict[int, str]]:
        """A new table started by `address`; returns it and the token of each person's
        seat. With `level`, the table is that level of a new series of the file's levels:
        one seat is the person's, the others play the level's bots (a level without
        bots: theirs)."""
        game = self.game(key, params)
        n = len(seats)
        if not game.min_players <= n <= min(game.max_players, self.limits.players):
            raise WebError(400, f"{game.name} is for {game.min_players} to "
                                f"{min(game.max_players, self.limits.players)} players, not {n}")
        for spec in seats:
            self.check_seat(spec)
        if HUMAN not in seats:
            raise WebError(400, "at least one seat must be a person's")
        seed = secrets.randbelow(2**31) if seed is None else seed
        if level is None:
            return self._open(key, game, seats, params or {}, seed, None, address)
        series = levels(game)
        if not series:
            raise WebError(400, f"{game.name} has no levels")
        if not isinstance(level, int) or isinstance(level, bool) \
                or not 1 <= level <= len(series):
            raise WebError(400, f"{game.name} has levels 1 to {len(series)}")
        people = [s for s, spec in enumerate(seats) if spec == HUMAN]
        if len(people) != 1:
            raise WebError(400, "a series of levels is played by one person: make one seat "
                                "a person's, the others play the level's bots")
        bots = [spec for spec in seats if spec != HUMAN]
        place = SeriesPlace(secrets.token_hex(8), series[level - 1], people[0], seed, bots, [])
        return self._open_level(key, game, n, params or {}, place, address)

    def next_level(self, table: Table, address: str = "") -> str:
        """The person's token at the level after the table's, which is started when it
        was not yet; a level not over, failed or the last one opens none."""
        place = table.place
        if place is None:
            raise WebError(400, "this game is not a level of a series")
        level = place.level
        with table.held():
            over, score = table.state.is_over, table.state.scores()[place.seat]
        if not over:
            raise WebError(409, f"level {level.number} is not over yet")
        if not level.passed(score):
            raise WebError(409, f"level {level.number} was failed ({level.verdict(score)}): "
                                "the series is over")
        if level.number == level.of:
            raise WebError(409, "the last level was passed: the series is complete")
        with self.series_lock:  # pressed twice, or on two pages: one next level
            played = self.store.series_games(place.series)
            if level.number + 1 in played:
                return self.store.tokens(played[level.number + 1][0])[place.seat]
            nxt = SeriesPlace(place.series, levels(table.game)[level.number], place.seat,
                              place.seed, place.bots, [*place.earlier, (level, score)])
            _table, tokens = self._open_level(table.key, table.game, table.state.n,
                                              table.params, nxt, address)
        return tokens[place.seat]

    def _open_level(self, key: str, game: Any, n: int, params: dict[str, Any],
                    place: SeriesPlace, address: str = "") -> tuple[Table, dict[int, str]]:
        level = place.level
        bots = level.seats(n, place.seat, place.bots)
        for spec in bots.values():
            self.check_seat(spec, f"level {level.number} ({level.name}) of the file seats ")
        return self._open(key, game, [bots.get(s, HUMAN) for s in range(n)], params,
                          level.seed(place.seed), place, address)

    def _open(self, key: str, game: Any, seats: list[str], params: dict[str, Any],
              seed: int, place: SeriesPlace | None, address: str = "",
              ) -> tuple[Table, dict[int, str]]:
        """The table started, its bots' first moves made, and stored."""
        self.check_room(address)
        with budget.limit(WORK_PER_MOVE, "starting the game"):
            state = game.new_game(players=len(seats), seed=seed)
        table = Table(secrets.token_hex(8), key, self.files[key], game, state, seats, params,
                      place)
        tokens = {s: secrets.token_urlsafe(18) for s, spec in enumerate(seats) if spec == HUMAN}
        self.store.add(StoredGame(table.id, key, params, len(seats), seed, seats, [], False),
                       {t: s for s, t in tokens.items()}, place.stored() if place else None,
                       address)
        table.stored = 0
        with table.held():
            self._advance(table)
        self._keep(table)
        return table, tokens

    def check_room(self, address: str) -> None:
        """Refuse a new game when the server, or the address asking, has as many as it
        may: games in progress in all and per address, games started in the last hour."""
        lim = self.limits
        if self.store.open_games(lim.idle) >= lim.open_games:
            raise WebError(503, f"{lim.open_games} games are in progress here, the most this "
                                "server keeps: finish one first, or wait a day")
        if self.store.started_since(address, 3600) >= lim.games_per_hour:
            raise WebError(429, f"{lim.games_per_hour} games were started from your address "
                                "in the last hour, the most it may start: wait a while")
        if self.store.open_games(lim.idle, address) >= lim.open_per_address:
            raise WebError(429, f"{lim.open_per_address} games started from your address are "
                                "in progress, the most one address keeps: finish one first")

    def play(self, table: Table, seat: int, label: Any, version: Any) -> dict[str, Any]:
        """The person at `seat` plays `label` chosen at `version`; the bots and chance
        answer, everything is stored, and the seat's new view is returned.

        The move is checked against the version under the table's lock, and stored in
        one transaction that checks the stored log is at that version too: of two moves
        made at one version exactly one is played and stored, the other refused (409).
        If the store cannot be written, the table is dropped from memory, so that memory
        and store never tell two stories: the next request rebuilds it from the store."""
        with table.held():
            if table.dropped:
                raise WebError(409, "the game was reloaded meanwhile: look again and choose "
                                    "anew")
            with budget.limit(WORK_PER_MOVE, "one move and the answers to it"):
                try:
                    table.move(seat, label, version)
                finally:  # what happened is kept, even when a bot's move failed halfway
                    self.save(table)
            return table.view(seat)

    def _advance(self, table: Table) -> None:
        """Chance and the bots move, and what they did is stored (held: the table)."""
        with budget.limit(WORK_PER_MOVE, "the bots' moves"):
            try:
                table.advance()
            finally:  # what happened is kept, even when a bot's move failed halfway
                self.save(table)

    def save(self, table: Table) -> None:
        """Store the entries the table's log gained since it was last stored; a store
        that fails, or holds another course of the game, drops the table (the store is
        what the game is)."""
        st = table.state
        new = st.log[table.stored:]
        if new:
            place = table.place
            score = st.scores()[place.seat] if place is not None and st.is_over else None
            try:
                self.store.extend(table.id, table.stored, list(new), st.is_over, score)
            except StoreConflict:
                self.drop(table)
                raise WebError(409, "the game has moved on meanwhile: look again and choose "
                                    "anew") from None
            except sqlite3.Error:
                self.drop(table)
                raise WebError(503, "the move could not be stored, and was not played: try "
                                    "again in a moment") from None
            table.stored = len(st.log)

    def drop(self, table: Table) -> None:
        """Forget a table whose memory may differ from the store."""
        table.dropped = True
        with self.lock:
            if self.loaded.get(table.id) is table:
                del self.loaded[table.id]
            if self.alive.get(table.id) is table:
                del self.alive[table.id]

    def by_token(self, token: str) -> tuple[Table, int]:
        """The table and seat of a token; a table not loaded is rebuilt from its log."""
        found = self.store.seat_of(token) if isinstance(token, str) and len(token) < 100 \
            else None
        if found is None:
            raise WebError(404, "no seat has this link: check it, or ask for a new one")
        game_id, seat = found
        table = self._found(game_id)
        if table is not None:
            return table, seat
        # one request rebuilds the game; those that asked meanwhile get its table
        restoring = self.restoring[hash(game_id) % len(self.restoring)]
        if not restoring.acquire(timeout=BUSY_WAIT):
            raise WebError(503, "this game is being loaded: try again in a moment")
        try:
            table = self._found(game_id)
            if table is None:
                table = self._restore(game_id)
        finally:
            restoring.release()
        return table, seat

    def _found(self, game_id: str) -> Table | None:
        """The game's table if it is in memory (loaded, or held by a request)."""
        with self.lock:
            table = self.loaded.get(game_id) or self.alive.get(game_id)
            if table is None or table.dropped:
                return None
            self.loaded[game_id] = table
            self.loaded.move_to_end(game_id)
            self._evict()
            return table

    def _restore(self, game_id: str) -> Table:
        """A stored game played again from its log, exactly as `rulekit replay` does
        (called under the game's restoring lock)."""
        from rulekit.replay import GameLog, LogError, rebuild

        g = self.store.get(game_id)
        if g is None:
            raise WebError(404, "no such game")
        if g.game_key not in self.files:
            raise WebError(410, f"this game's file ({g.game_key}) is not served here any more")
        game = self.game(g.game_key, g.params)
        entries = [dict(e, _line=i + 2) for i, e in enumerate(g.log)]
        try:
            with budget.limit(WORK_PER_MOVE, "rebuilding the game from its log"):
                state = rebuild(game, GameLog(g.game_key, g.params, g.players, g.seed,
                                              entries, file=f"game {game_id}"))
        except LogError as exc:
            raise WebError(500, f"the stored game cannot be resumed: {exc}") from None
        table = Table(game_id, g.game_key, self.files[g.game_key], game, state, g.seats,
                      g.params, self._place(game_id, game))
        table.points = _points(game, g)
        self._keep(table)
        with table.held():  # a stop between a move and the bots' answers: they answer now
            self._advance(table)
        return table

    def _place(self, game_id: str, game: Any) -> SeriesPlace | None:
        """A stored game's place in its series, if it is a level of one."""
        stored = self.store.level_of(game_id)
        if stored is None:
            return None
        series = levels(game)
        if stored.level > len(series):
            raise WebError(410, f"the game file has no level {stored.level} any more")
        played = self.store.series_games(stored.series)
        earlier = [(series[i - 1], score) for i, (_g, score) in sorted(played.items())
                   if i < stored.level and score is not None]
        return SeriesPlace(stored.series, series[stored.level - 1], stored.seat, stored.seed,
                           stored.bots, earlier)

    def _keep(self, table: Table) -> None:
        with self.lock:
            self.loaded[table.id] = table
            self.alive[table.id] = table
            self.loaded.move_to_end(table.id)
            self._evict()

    def _evict(self) -> None:
        """Unload the tables used least recently past the limit (held: self.lock)."""
        while len(self.loaded) > self.limits.tables_in_memory:
            self.loaded.popitem(last=False)

    def check_seat(self, spec: Any, who: str = "") -> None:
        """A seat is a person's or a bot this server runs: a search bot of iteration
        budgets up to the limit (greedy playouts cost GREEDY_ITERATION each)."""
        cap = self.limits.bot_iterations
        m = _BOT.fullmatch(spec) if isinstance(spec, str) else None
        if spec != HUMAN and m is None:
            raise WebError(400, f"{who}{str(spec)[:60]!r}: a seat is {HUMAN!r} or a bot: "
                                f"{', '.join(BOT_CHOICES)} (mcts up to {cap} iterations)")
        if m is not None and m.group(1):
            cost = int(m.group(1)) * (GREEDY_ITERATION if m.group(2) == ":greedy" else 1)
            if cost > cap:
                raise WebError(400, f"{who}{spec!r}: a bot here searches {cap} iterations at "
                                    f"most ({cap // GREEDY_ITERATION} with greedy playouts), "
                                    "so that a move is answered within a second")

    def tokens(self, table: Table) -> dict[int, str]:
        return self.store.tokens(table.id)

