"""Game logs: JSON lines that record a game exactly, and rebuilding a game from one.

The first line is a header (game file, params set, players, seed); then one line per
entry of `State.log`: chance outcomes, decisions (forced ones marked) and `say` lines
(a private one with the seat it is `to`);
the last line is the result. Replaying imposes the logged chance outcomes and plays
the logged decisions, so the seed is only a record.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from rulekit.engine.game import Game, check_source
from rulekit.engine.state import State
from rulekit.errors import RulekitError, clip, cut
from rulekit.spec.load import load_source
from rulekit.spec.params import check_value
from rulekit.spec.source import UnreadableFile, read_limited

FORMAT = 1


class LogError(RulekitError):
    """The log cannot be read, or does not fit the game; `line` is its 1-based line (None
    when the file itself cannot be read)."""

    def __init__(self, file: str, line: int | None, message: str) -> None:
        # bounded whatever it quotes: an action of the log, an error of the engine about it
        message = clip(message, MAX_MESSAGE)
        super().__init__(f"{file}:{line}: {message}" if line is not None else f"{file}: {message}")
        self.file = file
        self.line = line


@dataclass
class GameLog:
    game: str
    overrides: dict[str, Any]
    players: int
    seed: int | None
    entries: list[dict]
    result: dict | None = None
    file: str = "<log>"
    line: int = 1  # the header's line


def log_text(state: State, game_file: str, overrides: dict[str, Any] | None = None) -> str:
    """The log of a game (finished or not) as JSON lines."""
    header = {"rulekit_log": FORMAT, "game": game_file, "name": state.game.name,
              "params": overrides or {}, "players": state.n, "seed": state.seed}
    lines = [json.dumps(header)]
    lines += [json.dumps(e) for e in state.log]
    if state.is_over:
        lines.append(json.dumps({"result": {"scores": state.scores(),
                                            "winners": state.winners(),
                                            "end_reason": state.end_reason}}))
    return "\n".join(lines) + "\n"


# Bounds on what a log may hold: a log is read from someone else as often as a game file.
MAX_LOG_BYTES = 32 * 1024 * 1024
MAX_LOG_LINES = 500_000
MAX_LINE_CHARS = 1_000_000
MAX_LINE_VALUES = 100_000  # numbers, texts, lists... of one line: the largest outcome a game has
MAX_LOG_VALUES = 2_000_000  # of the whole log: what it reads into stays some 100 MB
MAX_TEXT = 100_000  # characters of one string
MAX_NESTING = 10  # of lists and objects in one line
MAX_INT_DIGITS = 40
MAX_PATH = 4096  # characters of the game file's name
MAX_MESSAGE = 1_000  # characters of a LogError's message: two entries quoted, cut short
QUOTE = 300  # characters of an entry a message quotes

_HEADER = {"rulekit_log", "game", "name", "params", "players", "seed"}
_KINDS = {"chance": {"chance", "outcome"}, "action": {"seat", "action", "forced"},
          "say": {"say", "to"}, "result": {"result"}}


class _Unreadable(ValueError):
    """A value that JSON allows but a log does not (a huge or infinite number)."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Unreadable(f"a number with more than {MAX_INT_DIGITS} digits")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unreadable(f"the number {text[:30]} is too large (not finite)")
    return value


def _constant(text: str) -> Any:
    raise _Unreadable(f"{text} is not a number a log may hold")


def read_log(path: str | Path) -> GameLog:
    """Read and check a log: its size, its JSON, and the type and range of every field.

    A log may come from someone else: anything it holds that a log written by rulekit
    cannot hold is a LogError naming the line, before any of it reaches the engine.
    """
    name = str(path)
    try:
        data = read_limited(path, MAX_LOG_BYTES)
    except FileNotFoundError:
        raise LogError(name, None, "no such file") from None
    except UnreadableFile as exc:
        raise LogError(name, None, f"cannot read the log: {exc.reason}") from None
    except (OSError, ValueError) as exc:
        raise LogError(name, None, "cannot read the log: "
                       f"{getattr(exc, 'strerror', None) or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LogError(name, data[:exc.start].count(b"\n") + 1,
                       "not UTF-8 text: a log is JSON lines") from None
    del data  # the text alone from here: a log may be tens of megabytes
    if text.count("\n") > MAX_LOG_LINES:
        raise LogError(name, MAX_LOG_LINES + 1, f"the log has more than {MAX_LOG_LINES} lines")
    rows = []
    values = _Values()
    for n, line in enumerate(_lines(text), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            raise LogError(name, n, f"the line has more than {MAX_LINE_CHARS} characters")
        try:
            row = json.loads(line, parse_int=_int, parse_float=_float, parse_constant=_constant)
        except json.JSONDecodeError as exc:
            raise LogError(name, n, f"not JSON: {exc.msg} (column {exc.colno})") from None
        except _Unreadable as exc:
            raise LogError(name, n, str(exc)) from None
        except (RecursionError, ValueError):  # too deep for the parser, or an int it refuses
            raise LogError(name, n, "not a line of a rulekit log: nested too deeply "
                           "or a number too large") from None
        values.line = MAX_LINE_VALUES
        why = _shape(row, 0, values)
        if why:
            raise LogError(name, n, why)
        rows.append((n, row))
    if not rows or not isinstance(rows[0][1], dict) or "rulekit_log" not in rows[0][1]:
        raise LogError(name, rows[0][0] if rows else 1, "not a rulekit game log (no header line)")
    line, header = rows[0]
    why = _check_header(header)
    if why:
        raise LogError(name, line, why)
    entries: list[dict] = []
    result = None
    for n, row in rows[1:]:
        if result is not None:
            raise LogError(name, n, "a line after the result: the result ends the log")
        why = _check_entry(row)
        if why:
            raise LogError(name, n, why)
        if "result" in row:
            result = row["result"]
        else:
            row["_line"] = n
            entries.append(row)
    return GameLog(header["game"], header.get("params") or {}, header["players"],
                   header.get("seed"), entries, result, name, line)


class _Values:
    """How many more values (numbers, texts, lists, objects) the line and the log may hold."""

    def __init__(self) -> None:
        self.line = MAX_LINE_VALUES
        self.log = MAX_LOG_VALUES


def _lines(text: str) -> Iterator[str]:
    """The lines of a text one at a time, not as a list: a second copy of a long log."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


def _shape(value: Any, depth: int, left: _Values) -> str | None:
    """Why a JSON value is larger than any log holds (nesting, text, number of values), or
    None; `left` counts the values down."""
    left.line -= 1
    left.log -= 1
    if left.line < 0:
        return f"the line holds more than {MAX_LINE_VALUES} values"
    if left.log < 0:
        return f"the log holds more than {MAX_LOG_VALUES} values"
    if isinstance(value, str):
        return f"a text of more than {MAX_TEXT} characters" if len(value) > MAX_TEXT else None
    if isinstance(value, (list, dict)):
        if depth >= MAX_NESTING:
            return f"lists and objects nested more than {MAX_NESTING} deep"
        for item in (value.values() if isinstance(value, dict) else value):
            why = _shape(item, depth + 1, left)
            if why:
                return why
    return None


def _json(value: Any) -> str:
    """An entry or a result for a message, cut short: a log's entry may be long."""
    return cut(json.dumps(value), QUOTE)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _what(value: Any) -> str:
    """A JSON value for a message: a number as written (it has at most MAX_INT_DIGITS
    digits), anything else, which may be large, by its kind."""
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return {str: "a text", list: "a list", dict: "an object"}.get(type(value), "a value")


def _check_header(header: dict) -> str | None:
    unknown = sorted(set(header) - _HEADER)
    if unknown:
        return f"the header has an unknown field '{unknown[0][:40]}'"
    if header["rulekit_log"] != FORMAT or not _is_int(header["rulekit_log"]):
        return f"the header's rulekit_log must be {FORMAT}, the log format this rulekit reads"
    for key in ("game", "players"):
        if key not in header:
            return f"the header has no '{key}'"
    game = header["game"]
    if not isinstance(game, str) or not game or len(game) > MAX_PATH or "\0" in game:
        return f"the header's game must be the name of a game file, not {_what(game)}"
    if "name" in header and not isinstance(header["name"], str):
        return f"the header's name must be a text, not {_what(header['name'])}"
    players = header["players"]
    if not _is_int(players) or players < 1:
        return f"the header's players must be a whole number from 1, not {_what(players)}"
    seed = header.get("seed")
    if seed is not None and not _is_int(seed):
        return f"the header's seed must be a whole number or null, not {_what(seed)}"
    params = header.get("params")
    if params is None:
        return None
    if not isinstance(params, dict):
        return f"the header's params must be an object of param values, not {_what(params)}"
    for key, value in params.items():
        items = value if isinstance(value, list) else [value]
        if isinstance(value, dict) or any(isinstance(x, (list, dict)) or x is None
                                          for x in items):
            return (f"the header's param '{key[:40]}' must be a number, text, true, false or "
                    f"a list of them, not {_what(value)}")
    return None


def _check_entry(row: Any) -> str | None:
    if not isinstance(row, dict):
        return f"each line must be a JSON object, not {_what(row)}"
    kind = next((k for k in _KINDS if k in row), None)
    if kind is None:
        return "not an entry of a log: expected a chance, action, say or result line"
    unknown = sorted(set(row) - _KINDS[kind])
    if unknown:
        return f"{'an' if kind == 'action' else 'a'} {kind} line has an unknown field " \
               f"'{unknown[0][:40]}'"
    if kind == "chance":
        if not isinstance(row["chance"], str) or not row["chance"]:
            return f"the chance must be the name of a chance step, not {_what(row['chance'])}"
        if row.get("outcome") is None:
            return "a chance line needs its outcome"
    elif kind == "action":
        if not isinstance(row["action"], str):
            return f"the action must be a text (its label), not {_what(row['action'])}"
        if not _is_int(row.get("seat")) or row["seat"] < 0:
            return f"the seat must be a whole number from 0, not {_what(row.get('seat'))}"
        if "forced" in row and row["forced"] is not True:
            return "forced must be true (or left out), not " + _what(row["forced"])
    elif kind == "say":
        if not isinstance(row["say"], str):
            return f"say must be a text, not {_what(row['say'])}"
        if "to" in row and (not _is_int(row["to"]) or row["to"] < 0):
            return f"to must be a seat, a whole number from 0, not {_what(row['to'])}"
    else:
        return _check_result(row["result"])
    return None


def _check_result(result: Any) -> str | None:
    if not isinstance(result, dict) or set(result) != {"scores", "winners", "end_reason"}:
        return "the result must be an object of scores, winners and end_reason"
    winners = result["winners"]
    if not isinstance(winners, list) or not all(_is_int(x) for x in winners):
        return "the result's winners must be a list of whole numbers"
    # a score may be a fraction (a share of a win, as in OpenSpiel's returns)
    scores = result["scores"]
    if not isinstance(scores, list) or not all(
            _is_int(x) or (isinstance(x, float) and math.isfinite(x)) for x in scores):
        return "the result's scores must be a list of numbers"
    if result["end_reason"] is not None and not isinstance(result["end_reason"], str):
        return "the result's end_reason must be a text or null"
    return None


def rebuild(game: Game, log: GameLog) -> State:
    """Play the logged game again; the first entry that does not fit raises a LogError."""
    try:
        state = game.new_game(players=log.players, seed=log.seed)
    except RulekitError as exc:
        raise LogError(log.file, log.line, str(exc)) from None
    records = []
    for entry in log.entries:
        record = {k: v for k, v in entry.items() if k != "_line"}
        records.append(record)
        try:
            _replay_entry(state, record)
        except RulekitError as exc:
            raise LogError(log.file, entry["_line"], f"does not fit the game: {exc}") from None
        except (TypeError, ValueError, LookupError, ArithmeticError) as exc:
            # an outcome of a shape the component does not check for: still the log's line
            raise LogError(log.file, entry["_line"], "does not fit the game: "
                           f"{type(exc).__name__}: {str(exc)[:200]}") from None
    # what happened by itself (forced moves, `say` lines) must be what the log says
    for i, (record, entry) in enumerate(zip(records, log.entries)):
        done = state.log[i] if i < len(state.log) else None
        if done != record:
            raise LogError(log.file, entry["_line"], "does not fit the game: the game did "
                           f"{_json(done)}, the log says {_json(record)}")
    if len(state.log) > len(records):
        line = log.entries[-1]["_line"] + 1 if log.entries else 2
        raise LogError(log.file, line, "the log ends early: the game goes on with "
                       f"{_json(state.log[len(records)])}")
    if log.result is not None:
        got = {"scores": state.scores(), "winners": state.winners(),
               "end_reason": state.end_reason} if state.is_over else None
        if got != log.result:
            raise LogError(log.file, log.entries[-1]["_line"] if log.entries else 1,
                           f"the replayed game ends with {_json(got)}, the log says "
                           f"{_json(log.result)}")
    return state


def game_file_of(log: GameLog) -> str:
    """The game file the log names, if it lies next to the log: in its folder or below.

    A log may come from someone else, so the name it holds is not followed anywhere
    else (an absolute path, `..`, a link leading out); the user names such a file with
    `--game` (the `game_file` of `load_game_of`).
    """
    folder = os.path.realpath(os.path.dirname(os.path.abspath(log.file)))
    name = log.game
    parts = PurePath(name).parts
    fix = "name the game file with --game FILE"
    if PurePath(name).is_absolute() or PurePath(name).drive or ".." in parts:
        raise LogError(log.file, log.line, f"the log names the game file {cut(name)!r}, outside "
                       f"the log's folder; replay reads only a game file next to the log: {fix}")
    beside = os.path.join(os.path.dirname(log.file), name)
    real = Path(os.path.realpath(beside))
    if Path(folder) not in real.parents:
        raise LogError(log.file, log.line, f"the log's game file {cut(name)!r} is a link "
                       f"that leads outside the log's folder: {fix}")
    if not os.path.isfile(real):
        raise LogError(log.file, log.line, f"the log's game file {cut(name)!r} is not found next "
                       f"to the log: {fix}")
    return beside


def load_game_of(log: GameLog, game_file: str | Path | None = None,
                 extends_roots: Sequence[str | Path] = ()) -> tuple[Game, str]:
    """The game a log is replayed with, and the path of its file.

    `game_file` is the file the user names; without it, the one the log names next to
    the log (`game_file_of`). The log's params are checked against the file's
    declarations, so that a bad one is the log's error, on its header line.
    """
    path = str(game_file) if game_file is not None else game_file_of(log)
    src = load_source(path, extends_roots)
    decls = src.data.get("params") if isinstance(src.data, dict) else None
    decls = decls if isinstance(decls, dict) else {}
    for name, value in log.overrides.items():
        decl = decls.get(name)
        if not isinstance(decl, dict):
            raise LogError(log.file, log.line, f"the log sets param '{name[:40]}', which the "
                           f"game file {path} does not declare")
        why = check_value(decl, value)
        if why:
            raise LogError(log.file, log.line, f"the log's param '{name[:40]}': {why}")
    return check_source(src, log.overrides or None), path


def _replay_entry(state: State, entry: dict) -> None:
    if "chance" in entry:
        if not state.is_chance:
            raise RulekitError(f"a {cut(str(entry['chance']))} outcome, but {_expected(state)}")
        state.resolve_chance(entry.get("outcome"))
    elif "action" in entry and not entry.get("forced"):
        if state.is_chance or state.is_over:
            raise RulekitError(f"a decision, but {_expected(state)}")
        if entry.get("seat") != state.current_player:
            raise RulekitError(f"seat {entry.get('seat')} decides, but it is seat "
                               f"{state.current_player}'s decision")
        state.apply(entry["action"])


def _expected(state: State) -> str:
    if state.is_over:
        return "the game is over"
    if state.is_chance:
        return "a chance outcome is due"
    return f"seat {state.current_player} must decide"
