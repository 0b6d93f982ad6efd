"""The browser app's routes (Starlette): pages, the JSON API, the event stream, the log.

A seat is reached by its token alone (`/seat/TOKEN`); each page and answer is built
from that seat's view. Requests are bounded (body size, field sizes) and checked before
anything changes; an answer to a refused request says why, and its status tells what
kind of refusal it was (400 illegal, 403 forbidden, 404 unknown link, 409 stale or
untimely, 429 too many from one address, 503 full or busy). A POST another site's page
makes the browser send is refused, so no other site can start games or move in a
person's name.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rulekit.errors import GameFileError, RulekitError
from rulekit.text import printable
from rulekit.web import pages
from rulekit.web.store import Store
from rulekit.web.tables import Limits, Table, Tables, WebError

#: the largest request body read (a move is a few dozen bytes, a new game's form a few KB)
MAX_BODY = 16_384
#: seconds between the keep-alive comments of an event stream, and the most one lasts
#: (the browser then reconnects by itself)
KEEP_ALIVE = 15.0
STREAM_FOR = 600.0

#: headers of every page: no other site's code, no token leaking in a Referer, no cache
_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


class App:
    """The state behind the routes: the tables, the streams open, who waits for a change."""

    def __init__(self, files: dict[str, str], db: str, limits: Limits | None = None) -> None:
        self.store = Store(db)
        self.tables = Tables(self.store, files, limits)
        self.streams = 0
        self.by_token: dict[str, int] = {}    # event streams open per seat token
        self.by_address: dict[str, int] = {}  # and per client address
        self.changed: dict[str, asyncio.Event] = {}

    def notify(self, table: Table) -> None:
        """Wake the streams waiting on the table."""
        event = self.changed.pop(table.id, None)
        if event is not None:
            event.set()

    def games(self) -> dict[str, Any]:
        """The served games by key; a file that does not load is left out of the list."""
        out = {}
        for key in self.tables.files:
            try:
                out[key] = self.tables.game(key)
            except RulekitError:
                continue
        return out

    # ---- pages ---------------------------------------------------------------------------
    async def index(self, request: Request) -> Response:
        return _html(pages.index(await run_in_threadpool(self.games)))

    async def new_form(self, request: Request) -> Response:
        key = request.path_params["key"]
        try:
            game = await run_in_threadpool(self.tables.game, key)
        except RulekitError as exc:
            return _page_error(exc)
        return _html(pages.new_game(key, game))

    async def create_from_form(self, request: Request) -> Response:
        """The form's game: started, and the first person's seat shown (303)."""
        try:
            form = {k: v[0] for k, v in parse_qs((await _body(request)).decode("utf-8"),
                                                 max_num_fields=200).items()}
        except (UnicodeDecodeError, ValueError):
            return _page_error(WebError(400, "the form could not be read"))
        key = form.get("game", "")
        address = _address(request)
        try:
            players = _int_field(form.get("players", ""), "players")
            seats = [form.get(f"seat{s}", "") for s in range(players)] if players <= 8 else []
            seed = _int_field(form["seed"], "seed") if form.get("seed", "").strip() else None
            level = _int_field(form["level"], "level") if form.get("level", "").strip() \
                else None
            params = _params(form, await run_in_threadpool(self.tables.game, key))
            table, tokens = await run_in_threadpool(self.tables.create, key, seats, params,
                                                    seed, level, address)
        except RulekitError as exc:
            if key not in self.tables.files:
                return _page_error(exc)
            game = await run_in_threadpool(self.tables.game, key)
            status = exc.status if isinstance(exc, WebError) else 400
            return _html(pages.new_game(key, game, _message(exc)), status)
        return RedirectResponse(f"/seat/{tokens[min(tokens)]}", status_code=303,
                                headers=_HEADERS)

    async def seat(self, request: Request) -> Response:
        token = request.path_params["token"]
        try:
            table, seat = await run_in_threadpool(self.tables.by_token, token)
            view = await run_in_threadpool(_view, table, seat)
            tokens = await run_in_threadpool(self.tables.tokens, table)
        except RulekitError as exc:
            return _page_error(exc)
        # the first person's page also carries the others' links, to send them
        invites = {s: t for s, t in tokens.items() if s != seat} if seat == min(tokens) else {}
        return _html(pages.seat_page(view, token, invites, _base(request)))

    # ---- the API -------------------------------------------------------------------------
    async def api_create(self, request: Request) -> Response:
        """`{"game": KEY, "seats": ["human", "greedy", ...], "params": {...}, "seed": N}`;
        with `"level": N`, a series of the file's levels starting at level N."""
        try:
            body = _json(await _body(request))
            seats = body.get("seats")
            if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
                raise WebError(400, "seats must be a list: \"human\" or a bot for each seat")
            params = body.get("params") or {}
            if not isinstance(params, dict):
                raise WebError(400, "params must be an object")
            seed = body.get("seed")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)
                                     or not 0 <= seed < 2**63):
                raise WebError(400, "seed must be a whole number from 0")
            level = body.get("level")
            table, tokens = await run_in_threadpool(self.tables.create, str(body.get("game")),
                                                    seats, params, seed, level,
                                                    _address(request))
        except RulekitError as exc:
            return _api_error(exc)
        base = _base(request)
        return JSONResponse({"table": table.id, "seats": {str(s): {"token": t,
                                                                    "page": f"/seat/{t}",
                                                                    "url": f"{base}/seat/{t}"}
                                                           for s, t in tokens.items()}},
                            status_code=201, headers=_HEADERS)

    async def _at_seat(self, request: Request, read: Any) -> tuple[Table, Any]:
        """The table of the request's token, and `read(table, seat)`, both off the loop."""
        table, seat = await run_in_threadpool(self.tables.by_token,
                                              request.path_params["token"])
        return table, await run_in_threadpool(read, table, seat)

    async def api_view(self, request: Request) -> Response:
        try:
            _table, view = await self._at_seat(request, _view)
        except RulekitError as exc:
            return _api_error(exc)
        view["html"] = pages.fragment(view, request.path_params["token"])
        return JSONResponse(view, headers=_HEADERS)

    async def api_move(self, request: Request) -> Response:
        """`{"label": TEXT, "version": N}`: the seat's move; answers with its new view."""
        token = request.path_params["token"]
        try:
            table, seat = await run_in_threadpool(self.tables.by_token, token)
            body = _json(await _body(request))
            view = await run_in_threadpool(self.tables.play, table, seat, body.get("label"),
                                           body.get("version"))
        except RulekitError as exc:
            return _api_error(exc)
        self.notify(table)
        view["html"] = pages.fragment(view, token)
        return JSONResponse(view, headers=_HEADERS)

    async def api_next(self, request: Request) -> Response:
        """The next level of the seat's series: its page (201), started if it was not."""
        try:
            token = await self._next(request)
        except RulekitError as exc:
            return _api_error(exc)
        return JSONResponse({"token": token, "page": f"/seat/{token}"}, status_code=201,
                            headers=_HEADERS)

    async def next_from_form(self, request: Request) -> Response:
        """The page's "next level" button, without the script: the next level's page (303)."""
        try:
            token = await self._next(request)
        except RulekitError as exc:
            return _page_error(exc)
        return RedirectResponse(f"/seat/{token}", status_code=303, headers=_HEADERS)

    async def _next(self, request: Request) -> str:
        table, _seat = await run_in_threadpool(self.tables.by_token,
                                               request.path_params["token"])
        return await run_in_threadpool(self.tables.next_level, table, _address(request))

    async def api_log(self, request: Request) -> Response:
        try:
            table, text = await self._at_seat(request, _log)
        except RulekitError as exc:
            return _api_error(exc)
        name = f"{Path(table.game_file).stem}-{table.id}.jsonl"
        return Response(text, media_type="application/x-ndjson", headers={
            **_HEADERS, "Content-Disposition": f'attachment; filename="{name}"'})

    async def api_events(self, request: Request) -> Response:
        """Server-sent events: the seat's page part (and version) whenever the game moves;
        the stream ends when the game is over."""
        token = request.path_params["token"]
        try:
            table, seat = await run_in_threadpool(self.tables.by_token, token)
        except RulekitError as exc:
            return _api_error(exc)
        limits, address = self.tables.limits, _address(request)
        if self.streams >= limits.streams:
            return _api_error(WebError(503, "too many pages are open on this server"))
        if self.by_token.get(token, 0) >= limits.streams_per_token:
            return _api_error(WebError(429, f"this seat has {limits.streams_per_token} pages "
                                            "open, the most one seat may: close one"))
        if self.by_address.get(address, 0) >= limits.streams_per_address:
            return _api_error(WebError(429, f"{limits.streams_per_address} pages are open "
                                            "from your address, the most one address may: "
                                            "close one"))
        return StreamingResponse(self._stream(token, table, seat, address),
                                 media_type="text/event-stream",
                                 headers={**_HEADERS, "X-Accel-Buffering": "no"})

    async def _stream(self, token: str, table: Table, seat: int, address: str) -> Any:
        loop = asyncio.get_running_loop()
        until = loop.time() + STREAM_FOR
        sent = -1
        # counted here: a stream that never starts never ends either
        self.streams += 1
        self.by_token[token] = self.by_token.get(token, 0) + 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        try:
            while loop.time() < until:
                if sent >= 0:  # the table may have been unloaded and rebuilt meanwhile
                    table, _seat = await run_in_threadpool(self.tables.by_token, token)
                if table.version != sent:
                    view = await run_in_threadpool(_view, table, seat)
                    sent = view["version"]
                    data = {"version": sent, "over": view["over"],
                            "html": pages.fragment(view, token)}
                    yield f"data: {json.dumps(data)}\n\n"
                    if view["over"]:
                        return
                event = self.changed.setdefault(table.id, asyncio.Event())
                if table.version != sent:
                    continue
                try:
                    await asyncio.wait_for(event.wait(), KEEP_ALIVE)
                except TimeoutError:
                    yield ": still here\n\n"
        finally:
            self.streams -= 1
            for counts, key in ((self.by_token, token), (self.by_address, address)):
                counts[key] -= 1
                if not counts[key]:
                    del counts[key]


def _view(table: Table, seat: int) -> dict[str, Any]:
    with table.held():
        return table.view(seat)


def _log(table: Table, seat: int) -> str:
    """The table's log, once it hides nothing any more."""
    with table.held():
        if not table.view(seat)["log_ready"]:
            raise WebError(403, "the log holds every hidden hand and the stock's order: it "
                                "can be downloaded when the game is over")
        return table.log_text()


async def _body(request: Request) -> bytes:
    """The request's body, refused past MAX_BODY bytes before more of it is read."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
        raise WebError(413, f"a request body is at most {MAX_BODY} bytes")
    chunks = bytearray()
    async for chunk in request.stream():
        chunks += chunk
        if len(chunks) > MAX_BODY:
            raise WebError(413, f"a request body is at most {MAX_BODY} bytes")
    return bytes(chunks)


def _json(data: bytes) -> dict[str, Any]:
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        raise WebError(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise WebError(400, "the body must be a JSON object")
    return body


def _int_field(text: str, name: str) -> int:
    text = text.strip()
    if not text.isdigit() or len(text) > 18:
        raise WebError(400, f"{name} must be a whole number from 0")
    return int(text)


def _params(form: dict[str, str], game: Any) -> dict[str, Any]:
    """The params the form changed from their defaults, read as YAML by `--set`'s reader
    and its guards."""
    from rulekit.spec.params import parse_set_options

    decls = game.spec.get("params") or {}
    items = [f"{name}={text}" for name, decl in decls.items() if isinstance(decl, dict)
             and (text := form.get(f"param.{name}", "")).strip()
             and text.strip() != json.dumps(decl.get("default")) and len(text) <= 2000]
    return parse_set_options(items) if items else {}


def _base(request: Request) -> str:
    """The address the request reached this server at (scheme, host, port, root path):
    what a link sent to another person starts with."""
    return str(request.base_url).rstrip("/")


def _address(request: Request) -> str:
    """The client's address, which the per-address limits count by (a proxy in front
    makes every client one address: its own limits then apply to all)."""
    return request.client.host if request.client is not None else ""


def _message(exc: RulekitError) -> str:
    if isinstance(exc, GameFileError):
        return "; ".join(d.message + (f" ({d.hint})" if d.hint else "")
                         for d in exc.diagnostics)
    return printable(str(exc))


def _status(exc: RulekitError) -> int:
    return exc.status if isinstance(exc, WebError) else 400


def _api_error(exc: RulekitError) -> Response:
    return JSONResponse({"error": _message(exc)}, status_code=_status(exc), headers=_HEADERS)


def _page_error(exc: RulekitError) -> Response:
    return _html(pages.message("rulekit: " + str(_status(exc)), _message(exc)), _status(exc))


def _html(text: str, status: int = 200) -> Response:
    return HTMLResponse(text, status_code=status, headers=_HEADERS)


def cross_site(headers: Headers) -> bool:
    """Whether a browser says the request comes from another site's page: by the Fetch
    Metadata header where it sends one, else by the Origin every browser sends with a
    POST. A request with neither (a script, curl) comes from no page at all."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site not in ("same-origin", "none")
    origin = headers.get("origin")
    if origin is None:
        return False
    return origin == "null" or urlsplit(origin).netloc.lower() != headers.get("host", "").lower()


class SameSiteOnly:
    """Refuses (403) every request that changes something when it comes from another
    site's page: a cross-site form or script could otherwise start games, or play at a
    seat whose page is open, in a person's name."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS") \
                and cross_site(Headers(scope=scope)):
            refusal = WebError(403, "this request came from another site's page: games are "
                                    "started and played from this server's own pages")
            api = scope["path"].startswith("/api/")
            response = _api_error(refusal) if api else _page_error(refusal)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def create_app(files: dict[str, str], db: str = ":memory:", limits: Limits | None = None,
               ) -> Starlette:
    """The app serving `files` (game key -> path), its games kept in the SQLite file `db`."""
    app = App(files, db, limits)
    static = Path(__file__).parent / "static"
    web = Starlette(routes=[
        Route("/", app.index),
        Route("/new/{key}", app.new_form),
        Route("/games", app.create_from_form, methods=["POST"]),
        Route("/seat/{token}", app.seat),
        Route("/api/games", app.api_create, methods=["POST"]),
        Route("/api/seat/{token}", app.api_view),
        Route("/api/seat/{token}/move", app.api_move, methods=["POST"]),
        Route("/api/seat/{token}/events", app.api_events),
        Route("/api/seat/{token}/log", app.api_log),
        Route("/api/seat/{token}/next", app.api_next, methods=["POST"]),
        Route("/seat/{token}/next", app.next_from_form, methods=["POST"]),
        Mount("/static", StaticFiles(directory=static), name="static"),
    ], middleware=[Middleware(SameSiteOnly)])
    web.state.rulekit = app
    return web

