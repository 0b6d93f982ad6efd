"""`rulekit serve`'s HTTP API, through Starlette's test client and a real server: games
started and played, refused requests that change nothing, hidden tiles that never reach
another seat, games resumed after a restart, and logs that `rulekit replay` reads."""

from __future__ import annotations

import json
import random
import shutil
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the optional extra web is not installed")
pytest.importorskip("httpx", reason="Starlette's test client needs httpx")

import httpx  # noqa: E402

with warnings.catch_warnings():
    # Starlette 1.10 asks for httpx2 in its test client; the older releases this project
    # supports take httpx, which it still accepts
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient
from test_cli import run  # noqa: E402
from webserver import running  # noqa: E402

from rulekit.web.app import MAX_BODY, create_app  # noqa: E402
from rulekit.web.tables import Limits  # noqa: E402

GAMES = Path(__file__).resolve().parent.parent / "games"
FILES = {k: str(GAMES / f"{k}.yaml") for k in ("qwixx", "domino7", "domino-fives")}
EXAMPLES = {k: str(GAMES / "examples" / f"{k}.yaml") for k in ("connect-four", "oh-hell")}


def client(db: Path | str = ":memory:", limits: Limits | None = None,
           files: dict[str, str] | None = None) -> TestClient:
    return TestClient(create_app(files or FILES, str(db), limits))


def start(c: TestClient, game: str, seats: list[str], seed: int = 7, **params: object
          ) -> dict[int, str]:
    r = c.post("/api/games", json={"game": game, "seats": seats, "seed": seed,
                                   "params": params})
    assert r.status_code == 201, r.text
    for v in r.json()["seats"].values():  # each seat's page, and its link to send
        assert v["url"] == f"http://testserver{v['page']}" == \
            f"http://testserver/seat/{v['token']}"
    return {int(s): v["token"] for s, v in r.json()["seats"].items()}


def view(c: TestClient, token: str) -> dict:
    r = c.get(f"/api/seat/{token}")
    assert r.status_code == 200, r.text
    return r.json()


def move(c: TestClient, token: str, label: str, version: int) -> httpx.Response:
    return c.post(f"/api/seat/{token}/move", json={"label": label, "version": version})


def play_out(c: TestClient, tokens: dict[int, str], seed: int = 1, limit: int = 2000) -> dict:
    """Every person's seat picks a choice at random (seeded) until the game is over."""
    rng = random.Random(seed)
    for _ in range(limit):
        v = view(c, tokens[min(tokens)])
        if v["over"]:
            return v
        mover = view(c, tokens[v["deciding"]])
        r = move(c, tokens[v["deciding"]], rng.choice(mover["choices"]), mover["version"])
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


def test_a_game_starts_and_a_move_is_played_and_answered_by_the_bot() -> None:
    c = client()
    token = start(c, "qwixx", ["human", "greedy"], seed=3)[0]
    v = view(c, token)
    assert v["deciding"] == 0 and v["title"].startswith("white sum")
    assert v["choices"][-1] == "pass" and v["events"][0].startswith("roll: white1")
    label = v["choices"][0]
    r = move(c, token, label, v["version"])
    assert r.status_code == 200
    after = r.json()
    assert after["version"] > v["version"]
    assert f"player 0 (you): {label} (+1, score 1)" in after["events"]
    assert any(e.startswith("player 1 (greedy): ") for e in after["events"])
    crossed = after["components"]["sheet"]["sheets"][0][label.split()[0]]["crossed"]
    assert crossed == [int(label.split()[1])]
    # the page shows the crossed cell, the dice and a button per choice
    page = c.get(f"/seat/{token}").text
    row = label.split()[0]
    assert f'data-row="{row}"' in page and 'class="cell crossed"' in page
    assert page.count('class="die') == 6 and page.count('class="choice"') == len(after["choices"])
    assert c.get(f"/seat/{token}").headers["referrer-policy"] == "no-referrer"


def test_a_window_s_seats_choose_at_once_each_once_unseen_by_the_others(
        tmp_path: Path) -> None:
    c = client(tmp_path / "games.sqlite3")
    tokens = start(c, "qwixx", ["human", "human"], seed=5)
    v0, v1 = view(c, tokens[0]), view(c, tokens[1])
    assert v0["deciding"] == 0 and v1["deciding"] == 1 and v1["choices"]
    assert "white sum" in v1["title"]
    # seat 1 chooses before seat 0, whom the engine asks first: kept, not played yet
    r = move(c, tokens[1], v1["choices"][0], v1["version"])
    assert r.status_code == 200 and r.json()["chosen"] == v1["choices"][0]
    assert r.json()["choices"] == []
    assert r.json()["version"] == v0["version"]
    again = move(c, tokens[1], "pass", v1["version"])
    assert again.status_code == 409 and "chosen already" in again.json()["error"]
    w0 = view(c, tokens[0])
    assert w0["events"] == v0["events"] and w0["choices"] == v0["choices"]
    # seat 0's page tells nothing of it, but that seat 1 no longer decides with it
    assert v0["together"] == ["player 1"] and w0["together"] == []
    assert {k: v for k, v in w0.items() if k not in ("together", "html")} == \
        {k: v for k, v in v0.items() if k not in ("together", "html")}
    # seat 0 chooses: both choices are played, in the engine's order, and stored
    r = move(c, tokens[0], "pass", v0["version"])
    assert r.status_code == 200
    after = r.json()
    assert after["version"] == v0["version"] + 2
    assert f"player 1: {v1['choices'][0]}" in " ".join(after["events"])
    # outside a window only the seat asked decides
    late = move(c, tokens[1], "pass", after["version"])
    assert late.status_code == 409 and "not your turn" in late.json()["error"]
    c2 = client(tmp_path / "games.sqlite3")  # stored as played, points told alike
    assert view(c2, tokens[1])["events"] == view(c, tokens[1])["events"]


def test_refused_requests_say_why_and_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    c = client(db)
    tokens = start(c, "qwixx", ["human", "human"], seed=5)
    v0 = view(c, tokens[0])
    assert v0["deciding"] == 0
    before = (v0["version"], v0["components"], v0["events"])
    refused = [
        (move(c, tokens[0], "purple 99", v0["version"]), 400, "not a legal choice"),
        (move(c, tokens[0], v0["choices"][0], v0["version"] - 1), 409, "moved on"),
        (move(c, "no-such-token", v0["choices"][0], v0["version"]), 404, "no seat"),
        (move(c, tokens[0], v0["choices"][0], "1"), 400, "label"),
        (c.post(f"/api/seat/{tokens[0]}/move", content=b"{not json"), 400, "JSON"),
        (c.post(f"/api/seat/{tokens[0]}/move", content=b"[" * (MAX_BODY + 1)), 413, "at most"),
    ]
    for r, status, words in refused:
        assert r.status_code == status, r.text
        assert words in r.json()["error"]
    v = view(c, tokens[0])
    assert (v["version"], v["components"], v["events"]) == before
    # nothing was stored either: a server started anew sees the same game
    again = view(client(db), tokens[0])
    assert (again["version"], again["components"], again["events"]) == before


def test_new_games_are_checked_and_limited() -> None:
    c = client(limits=Limits(open_games=1))
    for body, status, words in [
        ({"game": "chess", "seats": ["human", "greedy"]}, 404, "no game 'chess'"),
        ({"game": "qwixx", "seats": ["human"]}, 400, "2 to 5 players"),
        ({"game": "qwixx", "seats": ["greedy", "random"]}, 400, "a person"),
        ({"game": "qwixx", "seats": ["human", "mcts:5s"]}, 400, "a seat is"),
        ({"game": "qwixx", "seats": ["human", "mcts:999"]}, 400, "200 iterations at most"),
        ({"game": "qwixx", "seats": ["human", "mcts:30:greedy"]}, 400,
         "25 with greedy playouts"),
        ({"game": "qwixx", "seats": ["human", "greedy"], "params": {"penalty_points": -1}},
         400, "penalty_points"),
    ]:
        r = c.post("/api/games", json=body)
        assert r.status_code == status and words in r.json()["error"], r.text
    start(c, "qwixx", ["human", "greedy"])
    r = c.post("/api/games", json={"game": "qwixx", "seats": ["human", "greedy"]})
    assert r.status_code == 503 and "1 games are in progress" in r.json()["error"]
    # a game left unfinished for longer than `idle` no longer takes the place
    relaxed = client(limits=Limits(open_games=1, idle=0))
    start(relaxed, "qwixx", ["human", "greedy"])
    start(relaxed, "qwixx", ["human", "greedy"])


def test_the_form_starts_a_game_with_params_and_a_link_for_each_person() -> None:
    c = client()
    form = c.get("/new/qwixx").text
    assert 'name="param.penalty_points" value="5"' in form
    r = c.post("/games", data={"game": "qwixx", "players": "3", "seat0": "human",
                               "seat1": "human", "seat2": "random", "param.penalty_points": "9",
                               "seed": "4"}, follow_redirects=False)
    assert r.status_code == 303
    page = c.get(r.headers["location"]).text
    other = page.split('class="invite" href="/seat/')[1].split('"')[0]
    assert f'data-copy="http://testserver/seat/{other}"' in page
    assert view(c, other)["seat"] == 1 and "player 2 (random)" in page
    bad = c.post("/games", data={"game": "qwixx", "players": "2", "seat0": "human",
                                 "seat1": "greedy", "param.penalty_points": "[oops"})
    assert bad.status_code == 400 and "penalty_points" in bad.text and "<form" in bad.text


def other_tiles(views: dict[int, dict], seat: int) -> list[str]:
    """Domino: the tiles of the other seats' hands."""
    return [t for other, v in views.items() if other != seat
            for t in v["components"]["hand"]["hands"][other]["tiles"]]


def unseen_cards(views: dict[int, dict], seat: int) -> list[str]:
    """Oh Hell: the cards of the deck that `seat` sees in no zone (the other hands, the
    stock), worked out from the seat's own view of the deck."""
    zones = views[seat]["components"]["cards"]
    seen = {c for z in zones.values() for pile in (z if isinstance(z, list) else [z])
            for c in pile.get("cards", [])}
    return [f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA" if f"{r}{s}" not in seen]


@pytest.mark.parametrize("game, seats, hidden", [
    ("domino-fives", 2, other_tiles),
    ("oh-hell", 3, unseen_cards),
])
def test_another_seats_hand_never_reaches_a_seat_in_json_html_or_events(
        game: str, seats: int, hidden: object) -> None:
    import re

    c = client(files={**FILES, **EXAMPLES})
    tokens = start(c, game, ["human"] * seats, seed=11)
    app = c.app

    def texts(seat: int) -> str:
        token = tokens[seat]
        out = [c.get(f"/api/seat/{token}").text, c.get(f"/seat/{token}").text]
        with running(app) as url, httpx.stream("GET", f"{url}/api/seat/{token}/events",
                                               timeout=10) as r:
            for line in r.iter_lines():
                if line.startswith("data:"):
                    out.append(line)
                    break
        return "\n".join(out)

    for _ in range(3):  # a few moves in, from every side
        views = {seat: view(c, token) for seat, token in tokens.items()}
        for seat in tokens:
            names = hidden(views, seat)
            seen = texts(seat)
            # a name as a word of its own (a token's letters may hold "2C" by chance)
            leaked = [n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])",
                                                     seen)]
            assert names and not leaked
            assert "deal: done (hidden)" in seen and '"hand"' in seen
        v = views[0]
        mover = views[v["deciding"]]
        assert move(c, tokens[v["deciding"]], mover["choices"][0],
                    mover["version"]).status_code == 200
    # the log holds every hand: not before the game is over
    r = c.get(f"/api/seat/{tokens[0]}/log")
    assert r.status_code == 403 and "when the game is over" in r.json()["error"]


def test_a_line_said_to_one_player_reaches_that_player_alone() -> None:
    """Domino 7 tells the drawer which tile they drew: no other seat's page learns it."""
    c = client()
    tokens = start(c, "domino-fives", ["human", "human"], seed=11)
    rng = random.Random(3)
    for _ in range(400):
        events = {seat: view(c, token)["events"] for seat, token in tokens.items()}
        drawn = [seat for seat, lines in events.items()
                 if any(line.startswith("you drew") for line in lines)]
        if drawn:
            break
        v = view(c, tokens[0])
        assert not v["over"], "nobody drew a tile"
        mover = view(c, tokens[v["deciding"]])
        assert move(c, tokens[v["deciding"]], rng.choice(mover["choices"]),
                    mover["version"]).status_code == 200
    drawer = drawn[0]
    other = 1 - drawer
    assert not any(line.startswith("you drew") for line in events[other])
    assert "you drew" not in c.get(f"/seat/{tokens[other]}").text
    assert any("draws a tile" in line for line in events[other]), events[other]


def test_a_choice_made_together_is_secret_until_everyone_has_chosen() -> None:
    c = client()
    tokens = start(c, "qwixx", ["human", "human"], seed=2)
    v = view(c, tokens[0])
    label = v["choices"][0]
    assert move(c, tokens[0], label, v["version"]).status_code == 200
    other = view(c, tokens[1])
    assert other["deciding"] == 1
    assert "player 0: has chosen (shown when everyone has)" in other["events"]
    assert label not in json.dumps(other["events"])
    assert f"player 0 (you): {label}" in view(c, tokens[0])["events"]
    assert move(c, tokens[1], "pass", other["version"]).status_code == 200
    assert f"player 0: {label} (+1, score 1)" in view(c, tokens[1])["events"]


def test_a_restarted_server_resumes_every_game_where_it_was(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    first = client(db)
    dice = start(first, "qwixx", ["human", "greedy"], seed=8)
    tiles = start(first, "domino7", ["human", "random", "greedy", "random"], seed=9)
    for tokens in (dice, tiles):
        for _ in range(3):
            v = view(first, tokens[0])
            assert move(first, tokens[0], v["choices"][0], v["version"]).status_code == 200
    before = {t: view(first, t) for t in (dice[0], tiles[0])}
    first.app.state.rulekit.store.close()
    second = client(db)
    for token, v in before.items():
        now = view(second, token)
        assert {k: now[k] for k in ("version", "components", "choices", "events", "scores")} \
            == {k: v[k] for k in ("version", "components", "choices", "events", "scores")}
        r = move(second, token, now["choices"][0], now["version"])
        assert r.status_code == 200 and r.json()["version"] > now["version"]


def test_the_downloaded_log_is_what_rulekit_replay_reads(tmp_path: Path) -> None:
    c = client()
    tokens = start(c, "domino-fives", ["human", "greedy"], seed=4)
    end = play_out(c, tokens)
    assert end["end"] and end["winners"]
    r = c.get(f"/api/seat/{tokens[0]}/log")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    lines = [json.loads(line) for line in r.text.splitlines()]
    assert lines[0]["game"] == "domino-fives.yaml" and lines[0]["seed"] == 4
    assert lines[-1]["result"]["scores"] == end["scores"]
    # kept next to its game file (and the file it extends), `rulekit replay` rebuilds it
    for name in ("domino-fives.yaml", "domino7.yaml"):
        shutil.copy(GAMES / name, tmp_path / name)
    (tmp_path / "game.jsonl").write_text(r.text)
    result = run("replay", str(tmp_path / "game.jsonl"))
    assert result.exit_code == 0, result.output
    assert "scores: " + ", ".join(f"player {s} {x}" for s, x in enumerate(end["scores"])) \
        in result.output
    # the event stream of a finished game sends the end and closes
    stream = c.get(f"/api/seat/{tokens[0]}/events").text
    assert stream.count("data:") == 1 and "game over" in stream


def test_a_game_files_text_is_shown_as_text_never_as_markup(tmp_path: Path) -> None:
    shutil.copy(GAMES / "qwixx.yaml", tmp_path / "qwixx.yaml")
    evil = tmp_path / "evil.yaml"
    evil.write_text("extends: qwixx.yaml\nname: \"<script>alert(1)</script>\"\n"
                    "description: \"<img src=x onerror=alert(2)>\"\n"
                    "levels:\n  - {name: \"<img src=x onerror=alert(3)>\", min_score: 0}\n")
    c = client(files={"evil": str(evil)})
    token = start(c, "evil", ["human", "greedy"])[0]
    r = c.post("/api/games", json={"game": "evil", "seats": ["human", "random"], "level": 1})
    level = r.json()["seats"]["0"]["token"]
    for page in (c.get("/").text, c.get("/new/evil").text, c.get(f"/seat/{token}").text,
                 c.get(f"/seat/{level}").text):
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page or "&lt;img" in page
    assert "level 1 of 1: &lt;img src=x onerror=alert(3)&gt;" in c.get(f"/seat/{level}").text
    assert "script-src" not in c.get("/").headers["content-security-policy"]  # self only


def test_event_streams_are_limited() -> None:
    c = client(limits=Limits(streams=0))
    token = start(c, "qwixx", ["human", "greedy"])[0]
    r = c.get(f"/api/seat/{token}/events")
    assert r.status_code == 503 and "too many" in r.json()["error"]


def test_event_streams_are_limited_per_seat_and_per_address() -> None:
    """One page may not hold every stream: a seat holds 2 here, an address 3; a stream
    closed gives its place back."""
    from contextlib import ExitStack

    app = create_app(FILES, ":memory:", Limits(streams_per_token=2, streams_per_address=3))
    c = TestClient(app)
    tokens = start(c, "qwixx", ["human", "human", "human"])

    reading = []  # a stream's lines read on: closed when its reader is dropped

    def open_stream(stack: ExitStack, url: str, token: str) -> httpx.Response:
        r = stack.enter_context(httpx.stream("GET", f"{url}/api/seat/{token}/events",
                                             timeout=10))
        if r.status_code == 200:  # counted once the stream has begun
            reading.append(r.iter_lines())
            assert next(reading[-1]).startswith("data:")
        else:
            r.read()
        return r

    with running(app) as url:
        with ExitStack() as stack:
            assert [open_stream(stack, url, tokens[0]).status_code for _ in range(2)] \
                == [200, 200]
            r = open_stream(stack, url, tokens[0])
            assert r.status_code == 429 and "this seat has 2 pages open" in r.json()["error"]
            assert open_stream(stack, url, tokens[1]).status_code == 200
            r = open_stream(stack, url, tokens[2])
            assert r.status_code == 429 and "3 pages are open from your address" \
                in r.json()["error"]
        deadline = time.monotonic() + 10
        while app.state.rulekit.streams:  # the server notices the streams closed
            assert time.monotonic() < deadline
            time.sleep(0.05)
        with ExitStack() as stack:
            assert open_stream(stack, url, tokens[2]).status_code == 200


def test_games_are_limited_per_address() -> None:
    """An address starts so many games an hour, and keeps so many in progress; another
    address is not held back by it, and a game over gives its place back."""
    c = client(limits=Limits(games_per_hour=3, open_per_address=2))
    first = start(c, "domino-fives", ["human", "random"], seed=1)
    start(c, "qwixx", ["human", "greedy"])
    r = c.post("/api/games", json={"game": "qwixx", "seats": ["human", "greedy"]})
    assert r.status_code == 429 and "2 games started from your address are in progress" \
        in r.json()["error"]
    inner = c.app

    async def from_elsewhere(scope, receive, send):  # TestClient's `client=` is newer
        await inner({**scope, "client": ("192.0.2.7", 50000)}, receive, send)

    other = TestClient(from_elsewhere)
    start(other, "qwixx", ["human", "greedy"])
    play_out(c, first)  # finished: no longer in progress
    start(c, "qwixx", ["human", "greedy"])
    r = c.post("/api/games", json={"game": "qwixx", "seats": ["human", "greedy"]})
    assert r.status_code == 429 and "3 games were started from your address in the last " \
        "hour" in r.json()["error"]
    r = c.post("/games", data={"game": "qwixx", "players": "2", "seat0": "human",
                               "seat1": "greedy"})
    assert r.status_code == 429 and "in the last hour" in r.text and "<form" in r.text


def test_a_post_from_another_sites_page_is_refused() -> None:
    c = client()
    form = {"game": "qwixx", "players": "2", "seat0": "human", "seat1": "greedy"}
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                    {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"}):
        r = c.post("/games", data=form, headers=headers, follow_redirects=False)
        assert r.status_code == 403 and "came from another site" in r.text, headers
        r = c.post("/api/games", json={"game": "qwixx", "seats": ["human", "greedy"]},
                   headers=headers)
        assert r.status_code == 403 and "another site's page" in r.json()["error"]
    assert c.app.state.rulekit.store.open_games(3600) == 0
    # the server's own page, a browser that says so, and a script that says nothing
    for headers in ({"Origin": "http://testserver"}, {"Sec-Fetch-Site": "same-origin"},
                    {"Sec-Fetch-Site": "none"}, {}):
        r = c.post("/games", data=form, headers=headers, follow_redirects=False)
        assert r.status_code == 303, headers


def test_rulekit_serve_listens_on_127_0_0_1_and_serves_the_files_given(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "rulekit", "serve", "qwixx", "--port",
                             str(port), "--db", str(tmp_path / "g.sqlite3")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert f"1 game(s) at http://127.0.0.1:{port}/" in proc.stdout.readline()
        deadline = time.monotonic() + 20
        while True:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/", timeout=10).text
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.05)
        assert 'href="/new/qwixx"' in page and "domino" not in page
    finally:
        proc.terminate()
        proc.wait(10)
    assert (tmp_path / "g.sqlite3").is_file()


def test_serve_says_what_is_wrong_with_a_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("rulekit: 1\nname: 42\nplayers: many\n")
    result = run("serve", str(bad))
    assert result.exit_code == 1 and "bad.yaml:" in result.output


def test_help_does_not_import_the_web_framework() -> None:
    code = ("import sys\nfrom click.testing import CliRunner\nfrom rulekit.cli import main\n"
            "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
            "print('starlette' in sys.modules, 'uvicorn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False False", out.stderr


def test_games_beyond_the_memory_limit_come_back_from_the_store(tmp_path: Path) -> None:
    c = client(tmp_path / "games.sqlite3", limits=Limits(tables_in_memory=1))
    games = [start(c, "qwixx", ["human", "greedy"], seed=s)[0] for s in (1, 2)]
    for _ in range(2):
        for token in games:  # each move unloads the other game
            v = view(c, token)
            r = move(c, token, v["choices"][0], v["version"])
            assert r.status_code == 200 and r.json()["version"] > v["version"]
    assert len(c.app.state.rulekit.tables.loaded) == 1


def test_serve_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "starlette", None)  # as if the extra were not installed
    result = run("serve", "qwixx")
    assert result.exit_code == 1 and "pip install 'rulekit[web]'" in result.output


def series_client(tmp_path: Path, levels: str) -> TestClient:
    """A server of a Domino 7 variant with the levels given (small hands: quick levels)."""
    shutil.copy(GAMES / "domino7.yaml", tmp_path / "domino7.yaml")
    (tmp_path / "series.yaml").write_text(
        "extends: domino7.yaml\nname: Series\nparams:\n  highest_pip: {default: 6}\n"
        f"  hand_size: {{default: 5}}\nlevels:\n{levels}")
    return client(tmp_path / "games.sqlite3", files={"series": str(tmp_path / "series.yaml")})


EASY_HARD = ("  - {name: Easy, min_score: -10000, bots: random}\n"
             "  - {name: Hard, min_score: 10000, bots: [greedy, random]}\n"
             "  - {name: Last, min_score: 0}\n")


def test_levels_are_played_as_a_series_with_each_levels_bots_and_verdict(tmp_path: Path,
                                                                          ) -> None:
    from rulekit.studies.play import derive_seed

    c = series_client(tmp_path, EASY_HARD)
    r = c.post("/api/games", json={"game": "series", "seats": ["human", "greedy", "greedy",
                                                                  "greedy"], "seed": 3, "level": 1})
    assert r.status_code == 201, r.text
    first = r.json()["seats"]["0"]["token"]
    v = view(c, first)
    assert v["level"]["number"] == 1 and v["level"]["of"] == 3 and v["level"]["name"] == "Easy"
    assert [p["name"] for p in v["player_parts"]][1:] == [f"player {s} (random)" for s in (1, 2, 3)]
    assert "level 1 of 3: Easy; score more than -10000 to pass" in c.get(f"/seat/{first}").text
    r = c.post(f"/api/seat/{first}/next")
    assert r.status_code == 409 and "not over yet" in r.json()["error"]
    end = play_out(c, {0: first})
    # the level's own seed, as `rulekit play` derives it: the same deal as in the terminal
    assert play_log(c, first)[0]["seed"] == derive_seed(3, "level", 1)
    score = end["scores"][0]
    assert end["level"]["passed"] is True
    assert end["level"]["verdict"] == f"level 1 (Easy) passed: level score {score}, minimum -10000"
    page = c.get(f"/seat/{first}").text
    assert 'class="verdict passed"' in page and "next level: 2 (Hard)" in page
    r = c.post(f"/api/seat/{first}/next")
    assert r.status_code == 201
    second = r.json()["token"]
    assert c.post(f"/api/seat/{first}/next").json()["token"] == second  # one next level
    names = [p["name"] for p in view(c, second)["player_parts"]]
    assert names == ["player 0 (you)", "player 1 (greedy)", "player 2 (random)",
                     "player 3 (greedy)"]
    # the series survives a restart: the next level resumes, and remembers the first
    c.app.state.rulekit.store.close()
    c = series_client(tmp_path, EASY_HARD)
    end = play_out(c, {0: second})
    assert end["level"]["passed"] is False and end["level"]["next"] is None
    assert end["level"]["summary"] == [
        f"level 1 Easy: {score} (minimum -10000) passed",
        f"level 2 Hard: {end['scores'][0]} (minimum 10000) failed",
        "series over: 1 level(s) passed of 3"]
    assert 'class="verdict failed"' in c.get(f"/seat/{second}").text
    r = c.post(f"/api/seat/{second}/next")
    assert r.status_code == 409 and "the series is over" in r.json()["error"]
    # the page's button works without the script too
    r = c.post(f"/seat/{first}/next", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/seat/{second}"


def play_log(c: TestClient, token: str) -> list[dict]:
    r = c.get(f"/api/seat/{token}/log")
    assert r.status_code == 200, r.text
    return [json.loads(line) for line in r.text.splitlines()]


def test_a_series_is_started_from_the_form_at_the_level_chosen(tmp_path: Path) -> None:
    c = series_client(tmp_path, EASY_HARD)
    form = c.get("/new/series").text
    assert 'from level 2: Hard (score more than 10000 to pass; bots greedy, random)' in form
    r = c.post("/games", data={"game": "series", "players": "4", "seat0": "random",
                               "seat1": "human", "seat2": "random", "seat3": "random",
                               "level": "3", "seed": "1"}, follow_redirects=False)
    assert r.status_code == 303
    page = c.get(r.headers["location"]).text
    # a level without bots of its own seats the bots chosen
    assert "level 3 of 3: Last" in page and "player 0 (random)" in page
    assert "player 1 (you)" in page


def test_series_requests_are_checked(tmp_path: Path) -> None:
    c = series_client(tmp_path, "  - {name: Strong, min_score: 0, bots: mcts:5000}\n"
                                "  - {name: Fine, min_score: 0, bots: random}\n")
    seats = ["human", "random", "random", "random"]
    for body, words in [
        ({"game": "series", "seats": seats, "level": 3}, "has levels 1 to 2"),
        ({"game": "series", "seats": seats, "level": "2"}, "has levels 1 to 2"),
        ({"game": "series", "seats": seats, "level": True}, "has levels 1 to 2"),
        ({"game": "series", "seats": seats, "level": 10**30}, "has levels 1 to 2"),
        ({"game": "series", "seats": ["human", "human", "random", "random"], "level": 2},
         "played by one person"),
        ({"game": "series", "seats": seats, "level": 1}, "level 1 (Strong) of the file seats "
                                                         "'mcts:5000'"),
    ]:
        r = c.post("/api/games", json=body)
        assert r.status_code == 400 and words in r.json()["error"], r.text
    r = c.post("/games", data={"game": "series", "players": "4", "seat0": "human",
                               "seat1": "random", "seat2": "random", "seat3": "random",
                               "level": "first"})
    assert r.status_code == 400 and "level must be a whole number" in r.text
    plain = client()
    r = plain.post("/api/games", json={"game": "qwixx", "seats": ["human", "random"],
                                       "level": 1})
    assert r.status_code == 400 and "has no levels" in r.json()["error"]
    token = start(plain, "qwixx", ["human", "random"])[0]
    r = plain.post(f"/api/seat/{token}/next")
    assert r.status_code == 400 and "not a level of a series" in r.json()["error"]


def test_supplies_and_stacks_are_drawn_with_what_is_left_and_what_each_player_won() -> None:
    import re

    files = {"levelx": str(GAMES / "levelx.yaml")}
    c = client(files=files)
    tokens = start(c, "levelx", ["human", "random"], seed=6)
    end = play_out(c, tokens)
    comps = end["components"]
    page = c.get(f"/seat/{tokens[0]}").text

    def piles(html: str) -> dict[int, int]:
        return {int(k): int(n) for k, n in
                re.findall(r'class="pile[^"]*" data-key="(\d+)" data-count="(\d+)"', html)}

    board = page.split('<section class="board">')[1].split("</section>")[0]
    shared = dict(zip(comps["chips"]["keys"], comps["chips"]["counts"]))
    assert piles(board) == shared and 0 in shared.values()  # empty piles are shown too
    left = re.findall(r'data-item="(\d+)"', board)
    assert [int(x) for x in left] == comps["bonus"]["left"]
    assert ('<span class="award top"' in board) == bool(left)  # the next one is marked
    for seat in (0, 1):
        part = page.split(f'data-seat="{seat}"')[1].split("</section>")[0]
        won = {k: n for k, n in zip(comps["won"]["keys"], comps["won"]["counts"][seat]) if n}
        assert piles(part) == won and won  # a game to its end: everyone took chips
        held = [int(x) for x in re.findall(r'data-item="(\d+)"', part)]
        assert held == comps["bonus"]["held"][seat]
    assert any(comps["bonus"]["held"])  # with this seed a bonus tile was won


def drawn_cells(page: str) -> dict[tuple[int, int], tuple[str, int]]:
    """The pieces of a grid's drawing: (row, column) -> (piece, height on the page)."""
    import re

    return {(int(r), int(c)): (piece, int(cy)) for r, c, cy, piece in re.findall(
        r'<circle class="piece" data-cell="(\d+),(\d+)" cx="\d+" cy="(\d+)" r="\d+" '
        r'data-piece="([^"]*)"', page)}


def column_picks(page: str) -> dict[int, str]:
    import re

    return {int(c): label for c, label in
            re.findall(r'<g class="column" data-column="(\d+)" data-pick="([^"]*)"', page)}


def test_connect_four_is_played_to_the_end_and_a_column_picks_the_piece_dropped_in_it(
        ) -> None:
    from test_connect_four import DRAW

    c = client(files=EXAMPLES)
    tokens = start(c, "connect-four", ["human", "human"], seed=1)
    # the seat to move clicks columns (each picks the choice that drops a piece into it);
    # the other seat's board has nothing to click
    assert column_picks(c.get(f"/seat/{tokens[0]}").text) == {k: f"x{k}" for k in range(7)}
    assert column_picks(c.get(f"/seat/{tokens[1]}").text) == {}
    for i, column in enumerate(DRAW):  # a game that fills the board: a draw
        seat = i % 2
        v = view(c, tokens[seat])
        top = v["components"]["board"]["rows"][5]  # a full column picks nothing any more
        assert column_picks(c.get(f"/seat/{tokens[seat]}").text) == {
            k: f"{'xo'[seat]}{k}" for k in range(7) if top[k] == ""}
        assert move(c, tokens[seat], f"{'xo'[seat]}{column}", v["version"]).status_code == 200
    end = view(c, tokens[0])
    assert end["over"] and end["end"] == "the board is full: a draw" and end["scores"] == [0, 0]
    page = c.get(f"/seat/{tokens[0]}").text
    rows = end["components"]["board"]["rows"]
    # every piece drawn where it stands, row 0 at the bottom (the largest height)
    assert drawn_cells(page) == {(r, k): (rows[r][k], (5 - r) * 40 + 20)
                                 for r in range(6) for k in range(7)}
    assert column_picks(page) == {} and "data-picks" not in page
    # a game won: the winner's line is told, the scores are +1 and -1
    tokens = start(c, "connect-four", ["human", "human"], seed=2)
    won = play_out(c, tokens, seed=5)
    assert sorted(won["scores"]) == [-1, 1] and "in a line" in won["end"]
    assert len(drawn_cells(c.get(f"/seat/{tokens[0]}").text)) == sum(
        x != "" for row in won["components"]["board"]["rows"] for x in row)


def test_a_cell_that_several_choices_fill_picks_each_of_them(tmp_path: Path) -> None:
    """A board where either piece may go into any cell: a cell picks both choices, and a
    column (several cells to fill) picks nothing as a whole. A piece's name is text."""
    import html
    import re

    (tmp_path / "either.yaml").write_text("""\
rulekit: 1
name: Either Piece
players: {min: 2, max: 2}
components:
  board: {kind: grid, rows: 2, columns: 2, pieces: [red, "<o>"]}
flow:
  turn:
    - choose:
        options:
          - for: "i in range(8)"
            if: "board.is_empty(i % 4 // 2, i % 2)"
            label: "{board.pieces[i // 4]} at {i % 4 // 2} {i % 2}"
            do:
              - place: {grid: board, row: "i % 4 // 2", column: "i % 2",
                        piece: "board.pieces[i // 4]"}
end:
  when: board.full
score: "0"
""")
    c = client(files={"either": str(tmp_path / "either.yaml")})
    token = start(c, "either", ["human", "random"])[0]
    page = c.get(f"/seat/{token}").text
    assert column_picks(page) == {}
    cells = {(int(r), int(k)): json.loads(html.unescape(labels)) for r, k, labels in
             re.findall(r'class="hole" data-cell="(\d),(\d)"[^>]* data-picks="([^"]*)"', page)}
    assert cells == {(r, k): [f"red at {r} {k}", f"<o> at {r} {k}"]
                     for r in range(2) for k in range(2)}
    v = view(c, token)
    assert move(c, token, "red at 1 0", v["version"]).status_code == 200
    while not (v := view(c, token))["over"]:
        assert move(c, token, v["choices"][-1], v["version"]).status_code == 200
    page = c.get(f"/seat/{token}").text
    assert 'data-piece="red" style="--c:red"' in page  # a piece named by a colour has it
    assert 'data-piece="&lt;o&gt;" style="--c:#e5b800"' in page  # else the palette's
    assert "<o>" not in page


def test_oh_hell_is_played_to_the_end_with_cards_clicked_by_their_names() -> None:
    import re

    c = client(files=EXAMPLES)
    tokens = start(c, "oh-hell", ["human"] * 3, seed=4, hands=[3, 2])
    rng = random.Random(2)
    checked = False
    while not (v := view(c, tokens[0]))["over"]:
        mover = view(c, tokens[v["deciding"]])
        if not mover["choices"][0].startswith("bid") and not checked:
            # a card to play: each legal card is a card of the seat's hand to click; the
            # other hands are backs, as many as they hold
            page = c.get(f"/seat/{tokens[mover['seat']]}").text
            own = page.split(f'data-seat="{mover["seat"]}"')[1].split("</section>")[0]
            hand = re.findall(r'data-card="(\w+)" data-pick="\1"', own)
            assert hand == mover["components"]["cards"]["hand"][mover["seat"]]["cards"]
            assert set(mover["choices"]) <= set(hand)
            for other in {0, 1, 2} - {mover["seat"]}:
                part = page.split(f'data-seat="{other}"')[1].split("</section>")[0]
                size = mover["components"]["cards"]["hand"][other]["count"]
                assert part.count('class="card back"') == size > 0
                assert 'data-card="' not in part.split('data-zone="won"')[0]
            checked = True
        r = move(c, tokens[mover["seat"]], rng.choice(mover["choices"]), mover["version"])
        assert r.status_code == 200, r.text
    assert checked and v["end"] == "all 2 deals are played"
    page = c.get(f"/seat/{tokens[0]}").text
    # at the end every card of the last deal lies face up in the pile of the trick's
    # winner, next to the card turned up
    won = re.findall(r'data-zone="won" data-count="(\d+)"', page)
    assert sum(map(int, won)) == 3 * 2
    assert len(re.findall(r'<span class="card" data-card=', page)) == 3 * 2 + 1


def test_lists_and_maps_are_drawn_as_their_values(tmp_path: Path) -> None:
    import re

    from test_containers import GAME

    path = tmp_path / "containers.yaml"
    # a value holding markup is shown as text
    path.write_text(GAME.replace("'player ' + str(player.seat)", "'<b>' + str(player.seat)"))
    c = client(files={"containers": str(path)})
    tokens = start(c, "containers", ["human", "human"])
    for seat, label in ((0, "claim red"), (1, "claim blue")):
        v = view(c, tokens[seat])
        assert move(c, tokens[seat], label, v["version"]).status_code == 200
    page = c.get(f"/seat/{tokens[0]}").text
    owner = page.split('data-map="owner"')[1].split("</div>")[0]
    assert re.findall(r'data-key="(\w+)"><b>\w+</b>([^<]*)<', owner) == [
        ("red", "&lt;b&gt;0"), ("blue", "&lt;b&gt;1"), ("green", "nobody")]
    assert re.findall(r'class="item">(\d)<', page.split('data-list="passed"')[1]
                      .split("</div>")[0]) == ["0", "1"]
    for seat, colour in ((0, "red"), (1, "blue")):  # each player's list in their part
        part = page.split(f'data-seat="{seat}"')[1].split("</section>")[0]
        assert f'data-list="claimed" data-size="1"><span class="name">claimed</span>' \
               f'<span class="item">{colour}</span>' in part


def test_a_display_line_that_runs_too_long_is_an_error_of_its_table_alone(tmp_path: Path,
                                                                         ) -> None:
    """A display line that loops for ever: its table's pages answer within a few seconds
    with the error shown, the game can still be played, and another table's pages keep
    answering meanwhile, over real HTTP with requests in parallel."""
    import threading

    shutil.copy(EXAMPLES["connect-four"], tmp_path / "connect-four.yaml")
    (tmp_path / "hostile.yaml").write_text(
        "extends: connect-four.yaml\nname: Hostile\ndisplay:\n"
        "  game: \"{sum(a * b for a in range(100000) for b in range(100000))}\"\n")
    files = {"hostile": str(tmp_path / "hostile.yaml"), "four": EXAMPLES["connect-four"]}
    with running(create_app(files, str(tmp_path / "games.sqlite3"))) as url, \
            httpx.Client(base_url=url, timeout=30) as http:
        tokens = {}
        for key in files:
            r = http.post("/api/games", json={"game": key, "seats": ["human", "random"]})
            assert r.status_code == 201, r.text
            tokens[key] = r.json()["seats"]["0"]["token"]
        slow: list[str] = []
        stop = threading.Event()

        def hostile() -> None:
            """Views of the hostile table, and moves, which make its page anew."""
            with httpx.Client(base_url=url, timeout=30) as h:
                while not stop.is_set():
                    t = time.monotonic()
                    v = h.get(f"/api/seat/{tokens['hostile']}")
                    page = h.get(f"/seat/{tokens['hostile']}")
                    if time.monotonic() - t > 8 or v.status_code != 200 \
                            or "went past a budget" not in v.json()["error"] \
                            or "part of this page could not be shown" not in page.text:
                        slow.append(f"{time.monotonic() - t:.1f}s {v.status_code} {v.text[:200]}")
                        return
                    view = v.json()
                    if view["over"]:
                        time.sleep(0.1)
                        continue
                    r = h.post(f"/api/seat/{tokens['hostile']}/move",
                               json={"label": view["choices"][0], "version": view["version"]})
                    if r.status_code == 409:  # another thread moved first
                        continue
                    if r.status_code != 200 or "went past a budget" not in r.json()["error"]:
                        slow.append(f"move: {r.status_code} {r.text[:200]}")
                        return

        threads = [threading.Thread(target=hostile) for _ in range(6)]
        for t in threads:
            t.start()
        try:
            for _ in range(15):  # the other table answers all along, and without an error
                t = time.monotonic()
                r = http.get(f"/api/seat/{tokens['four']}")
                assert r.status_code == 200 and r.json()["error"] == "", r.text
                assert time.monotonic() - t < 3
                assert "game-error" not in http.get(f"/seat/{tokens['four']}").text
                time.sleep(0.1)
        finally:
            stop.set()
            for t in threads:
                t.join(60)
        assert not slow, slow


def test_a_table_whose_move_the_store_refuses_is_rebuilt_from_the_store(tmp_path: Path,
                                                                       ) -> None:
    """Two servers on one SQLite file, each with the game in memory: what one stores,
    the other's copy does not know. Its move at the version it still has is refused
    (409) rather than stored over the other's, and its next answer is the stored game:
    memory never tells another story than the store."""
    db = tmp_path / "games.sqlite3"
    a, b = client(db), client(db)
    token = start(a, "qwixx", ["human", "greedy"], seed=4)[0]
    old = view(b, token)  # b has it in memory now, at this version
    assert move(a, token, old["choices"][0], old["version"]).status_code == 200
    r = move(b, token, old["choices"][-1], old["version"])
    assert r.status_code == 409 and "moved on" in r.json()["error"]
    now = view(b, token)
    assert now == view(a, token) and now["version"] > old["version"]
    assert move(b, token, now["choices"][-1], now["version"]).status_code == 200
    stale = view(a, token)["version"]
    r = move(a, token, "pass", stale)
    assert r.status_code == 409
    assert view(a, token) == view(b, token) == view(client(db), token)
