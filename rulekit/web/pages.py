"""The pages of the browser app, as HTML text: the list of games, the form that starts
one, and a seat's page. Every text that comes from a game file or a request is escaped;
the pictures of the parts are the building blocks' own (`Kind.html`)."""

from __future__ import annotations

import json
from typing import Any

from rulekit.components.markup import esc
from rulekit.levels import levels
from rulekit.web.tables import BOT_CHOICES, HUMAN


def page(title: str, body: str, script: bool = False) -> str:
    """A whole HTML document; the seat's page also loads the script that keeps it live."""
    js = '<script src="/static/app.js" defer></script>' if script else ""
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><link rel=\"stylesheet\" href=\"/static/style.css\">"
            f"{js}</head><body>{body}</body></html>\n")


def index(games: dict[str, Any]) -> str:
    """Every game served, each with its description and a link to start it."""
    items = []
    for key, game in games.items():
        text = " ".join(str(game.spec.get("description") or "").split())
        items.append(f'<li><a class="game" href="/new/{esc(key)}">{esc(game.name)}</a> '
                     f'<span class="key">({esc(key)})</span><p>{esc(text)}</p></li>')
    return page("rulekit", "<h1>rulekit: choose a game</h1>"
                f'<ul class="games">{"".join(items)}</ul>')


def new_game(key: str, game: Any, error: str = "") -> str:
    """The form that starts a game: how many play, who sits where, the file's params."""
    lo, hi = game.min_players, game.max_players
    players = "".join(f'<option{" selected" if n == lo else ""}>{n}</option>'
                      for n in range(lo, min(hi, 8) + 1))
    level_bots = []
    if game.levels:
        first = game.levels[0].get("bots") or []
        level_bots = [first] if isinstance(first, str) else list(first)
    seats = []
    for s in range(min(hi, 8)):
        default = HUMAN if s == 0 else (level_bots[(s - 1) % len(level_bots)]
                                        if level_bots else "greedy")
        options = [HUMAN, *BOT_CHOICES]
        if default not in options:
            options.append(default)
        opts = "".join(f'<option value="{esc(o)}"{" selected" if o == default else ""}>'
                       f'{"a person" if o == HUMAN else esc(o)}</option>' for o in options)
        seats.append(f'<label>seat {s} <select name="seat{s}">{opts}</select></label>')
    params = []
    for name, decl in (game.spec.get("params") or {}).items():
        if not isinstance(decl, dict):
            continue
        value = json.dumps(decl.get("default"))
        params.append(f'<label>{esc(name)} <input name="param.{esc(name)}" value="{esc(value)}">'
                      f'<small>{esc(decl.get("doc", ""))}</small></label>')
    err = f'<p class="error" role="alert">{esc(error)}</p>' if error else ""
    series = ""
    if game.levels:
        options = ['<option value="">none: one game, the seats as chosen below</option>']
        for lv in levels(game):
            bots = f"; bots {', '.join(lv.bots)}" if lv.bots else ""
            options.append(f'<option value="{lv.number}"{" selected" if lv.number == 1 else ""}>'
                           f"from level {lv.number}: {esc(lv.name)} (score more than "
                           f"{lv.min_score} to pass{esc(bots)})</option>")
        series = (f'<label>levels <select name="level">{"".join(options)}</select><small>one '
                  "person plays each level against its bots; a level passed opens the next"
                  "</small></label>")
    return page(f"new game: {game.name}", f"<h1>{esc(game.name)}</h1>{err}"
                f'<form method="post" action="/games" class="new">'
                f'<input type="hidden" name="game" value="{esc(key)}">'
                f'<label>players <select name="players">{players}</select></label>{series}'
                f'<fieldset><legend>who sits where (seats past the number of players stay '
                f'empty)</legend>{"".join(seats)}</fieldset>'
                f'<fieldset><legend>params (as in the game file; values are YAML)</legend>'
                f'{"".join(params) or "none"}</fieldset>'
                f'<label>seed <input name="seed" inputmode="numeric" placeholder="a fresh one">'
                f'</label><button type="submit">start</button></form>'
                '<p><a href="/">all games</a></p>')


def seat_page(view: dict[str, Any], token: str, invites: dict[int, str], base: str = "",
              ) -> str:
    """A seat's page: the game as that seat sees it, kept live by the script. The first
    person's page lists the others' links in full (`base`: the server's address as the
    request reached it), each with a button that copies it, to send."""
    links = ""
    if invites:
        items = "".join(
            f'<li>seat {s}: <a class="invite" href="/seat/{esc(t)}">{esc(base)}/seat/{esc(t)}'
            f'</a> <button type="button" class="copy" data-copy="{esc(base)}/seat/{esc(t)}">'
            "copy</button></li>" for s, t in sorted(invites.items()))
        links = ("<details class=\"invites\" open><summary>links for the other people (send "
                 f"each their own)</summary><ul>{items}</ul></details>")
    return page(view["game"], f'<header><a href="/">rulekit</a> <h1>{esc(view["game"])}</h1>'
                f'</header>{links}<p id="connection" class="banner" role="status" hidden>'
                "connection lost, reconnecting...</p>"
                f'<p id="error" class="error" role="alert"></p>'
                f'<main id="game" data-token="{esc(token)}" data-version="{view["version"]}">'
                f"{fragment(view, token)}</main>", script=True)


def fragment(view: dict[str, Any], token: str) -> str:
    """The part of a seat's page that changes with the game."""
    seat = view["seat"]
    head = f'<p class="status">turn {view["turn"]}; '
    if view["over"]:
        head += "the game is over"
    elif view["deciding"] == seat:
        head += "<strong>your choice</strong>"
        if view.get("together"):
            head += f" (at the same time as {esc(', '.join(view['together']))})"
    elif view.get("chosen"):
        head += (f"you have chosen ({esc(view['chosen'])}); waiting for "
                 f"{esc(view['deciding_name'])}")
    elif view["deciding"] is not None:
        head += f"waiting for {esc(view['deciding_name'])}"
    head += "</p>"
    if view.get("error"):  # a part of the game file failed: the rest is shown
        head += (f'<p class="error game-error" role="alert">part of this page could not be '
                 f'shown: {esc(view["error"])}</p>')
    level = view["level"]
    if level:
        head += (f'<p class="level">level {level["number"]} of {level["of"]}: '
                 f'{esc(level["name"])}; score more than {level["min_score"]} to pass</p>')
    board = ("".join(f'<p class="display">{esc(line)}</p>' for line in view["display"])
             + view["board"])
    players = []
    for p in view["player_parts"]:
        marks = " you" if p["seat"] == seat else ""
        marks += " active" if p["active"] else ""
        lines = "".join(f'<p class="display">{esc(line)}</p>' for line in p["display"])
        players.append(f'<section class="player{marks}" data-seat="{p["seat"]}">'
                       f'<h2>{esc(p["name"])} <span class="score">score {p["score"]}</span></h2>'
                       f'{p["html"]}{lines}</section>')
    decision = ""
    if view["choices"]:
        points = view.get("points") or {}
        buttons = "".join(f'<button class="choice" data-label="{esc(label)}">{esc(label)}'
                          + (f' <span class="points">{esc(points[label])}</span>'
                             if label in points else "")
                          + "</button>" for label in view["choices"])
        title = f'<h2 class="title">{esc(view["title"])}</h2>' if view["title"] else ""
        help_ = (f'<details class="help"><summary>help</summary><p>{esc(view["help"])}</p>'
                 "</details>") if view["help"] else ""
        decision = f'<section class="decision">{title}<div class="choices">{buttons}</div>' \
                   f"{help_}</section>"
    result = ""
    if view["over"]:
        scores = ", ".join(f'{esc(p["name"])} {p["score"]}' for p in view["player_parts"])
        names = [view["player_parts"][w]["name"] for w in view["winners"]]
        won = "winner" if len(names) == 1 else "winners (shared)"
        result = (f'<section class="result"><h2>game over</h2><p class="end">{esc(view["end"])}'
                  f'</p><p class="scores">scores: {scores}</p><p class="winners">{won}: '
                  f'{esc(", ".join(names))}</p>{level_result(level, token)}</section>')
    log = (f'<p><a class="log" href="/api/seat/{esc(token)}/log" download>the game\'s log '
           "(for rulekit replay)</a></p>") if view["log_ready"] else ""
    events = "".join(f"<li>{esc(e)}</li>" for e in reversed(view["events"]))  # latest first
    return (f'{head}{result}{decision}<section class="board">{board}</section>'
            f'<div class="players">{"".join(players)}</div>'
            f'<section class="events"><h2>what happened (latest first)</h2>'
            f"<ol reversed>{events}</ol></section>{log}")


def level_result(level: dict[str, Any] | None, token: str) -> str:
    """A level's verdict in words, the series so far, and the button to the next level."""
    if not level or level["passed"] is None:
        return ""
    verdict = "passed" if level["passed"] else "failed"
    summary = "".join(f"<li>{esc(line)}</li>" for line in level["summary"])
    nxt = ""
    if level["next"]:
        nxt = (f'<form method="post" action="/seat/{esc(token)}/next" class="next">'
               f'<button type="submit">next level: {level["next"]["number"]} '
               f'({esc(level["next"]["name"])})</button></form>')
    return (f'<p class="verdict {verdict}">{esc(level["verdict"])}</p>'
            f'<ul class="series">{summary}</ul>{nxt}')


def message(title: str, text: str) -> str:
    """A page that only says something (an error, a link that leads nowhere)."""
    return page(title, f'<h1>{esc(title)}</h1><p class="error">{esc(text)}</p>'
                       '<p><a href="/">all games</a></p>')
