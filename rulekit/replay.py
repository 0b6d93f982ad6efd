"""Game logs: JSON lines that record a game exactly, and rebuilding a game from one.

The first line is a header (game file, params set, players, seed); then one line per
entry of `State.log`: chance outcomes, decisions (forced ones marked) and `say` lines;
the last line is the result. Replaying imposes the logged chance outcomes and plays
the logged decisions, so the seed is only a record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rulekit.engine.game import Game
from rulekit.engine.state import State
from rulekit.errors import RulekitError

FORMAT = 1


class LogError(RulekitError):
    """The log cannot be read, or does not fit the game; `line` is its 1-based line."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
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


def read_log(path: str | Path) -> GameLog:
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(name, 0, f"cannot read the log: {exc}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise LogError(name, n, f"not JSON: {exc.msg}") from None
    if not rows or not isinstance(rows[0][1], dict) or "rulekit_log" not in rows[0][1]:
        raise LogError(name, 1, "not a rulekit game log (no header line)")
    header = rows[0][1]
    for key in ("game", "players"):
        if key not in header:
            raise LogError(name, 1, f"the header has no '{key}'")
    entries, result = [], None
    for n, row in rows[1:]:
        if not isinstance(row, dict):
            raise LogError(name, n, "each line must be a JSON object")
        if "result" in row:
            result = row["result"]
        else:
            row["_line"] = n
            entries.append(row)
    return GameLog(header["game"], header.get("params") or {}, header["players"],
                   header.get("seed"), entries, result, name)


def rebuild(game: Game, log: GameLog) -> State:
    """Play the logged game again; the first entry that does not fit raises a LogError."""
    try:
        state = game.new_game(players=log.players, seed=log.seed)
    except RulekitError as exc:
        raise LogError(log.file, 1, str(exc)) from None
    records = []
    for entry in log.entries:
        record = {k: v for k, v in entry.items() if k != "_line"}
        records.append(record)
        try:
            _replay_entry(state, record)
        except RulekitError as exc:
            raise LogError(log.file, entry["_line"], f"does not fit the game: {exc}") from None
    # what happened by itself (forced moves, `say` lines) must be what the log says
    for i, (record, entry) in enumerate(zip(records, log.entries)):
        done = state.log[i] if i < len(state.log) else None
        if done != record:
            raise LogError(log.file, entry["_line"], "does not fit the game: the game did "
                           f"{json.dumps(done)}, the log says {json.dumps(record)}")
    if len(state.log) > len(records):
        line = log.entries[-1]["_line"] + 1 if log.entries else 2
        raise LogError(log.file, line, "the log ends early: the game goes on with "
                       f"{json.dumps(state.log[len(records)])}")
    if log.result is not None:
        got = {"scores": state.scores(), "winners": state.winners(),
               "end_reason": state.end_reason} if state.is_over else None
        if got != log.result:
            raise LogError(log.file, log.entries[-1]["_line"] if log.entries else 1,
                           f"the replayed game ends with {json.dumps(got)}, the log says "
                           f"{json.dumps(log.result)}")
    return state


def _replay_entry(state: State, entry: dict) -> None:
    if "chance" in entry:
        if not state.is_chance:
            raise RulekitError(f"a {entry['chance']} outcome, but {_expected(state)}")
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
