"""`rulekit serve` in a real headless Chromium (Debian's, driven by Playwright): a Qwixx
game, a level of Domino 7 and a Connect Four game played to the end by clicks (on buttons,
sheet cells, tiles and a board's columns), two people at one table seeing each other's
moves live, and screenshots of what a person sees."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the optional extra web is not installed")
pytest.importorskip("uvicorn", reason="the optional extra web is not installed")
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright is not installed (the test extra has it)")

import httpx  # noqa: E402
from webserver import running  # noqa: E402

import rulekit  # noqa: E402
from rulekit.web.app import create_app  # noqa: E402

GAMES = Path(__file__).resolve().parent.parent / "games"
FILES = {k: str(GAMES / f"{k}.yaml") for k in ("qwixx", "domino7")}
FILES["connect-four"] = str(GAMES / "examples" / "connect-four.yaml")
#: Debian's Chromium, which .ci/run installs; Playwright's own download cannot run here
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: flags that keep a headless Chromium off the network it cannot reach, and root-safe
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: the most clicks a game may take before the test gives up
MAX_CLICKS = 400


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: .ci/run installs Debian's chromium package")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    with running(create_app(FILES, str(db))) as url:
        yield url


def play_to_the_end(page: Any) -> int:
    """Click the first choice whenever it is this seat's turn, until the game is over;
    returns the clicks made. Each click waits for the page to show the game moved on."""
    for clicks in range(MAX_CLICKS):
        page.wait_for_selector("button.choice, section.result", timeout=15_000)
        if page.query_selector("section.result"):
            return clicks
        click_and_wait(page, "button.choice >> nth=0")
    raise AssertionError(f"the game was not over after {MAX_CLICKS} clicks")


def click_and_wait(page: Any, selector: str) -> None:
    """Click, and wait for the page to show that the game moved on."""
    version = page.get_attribute("#game", "data-version")
    page.click(selector)
    page.wait_for_selector(f'#game:not([data-version="{version}"])', timeout=15_000)
    assert page.inner_text("#error") == ""


def screenshot(page: Any, path: Path) -> None:
    page.screenshot(path=str(path), full_page=True)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a real picture


def test_qwixx_is_started_from_the_form_and_played_to_the_end(browser: Any, server: str,
                                                              tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(server + "/")
    page.click("a.game[href='/new/qwixx']")
    page.select_option("select[name=seat1]", "greedy")
    page.fill("input[name=seed]", "3")
    page.click("form.new button[type=submit]")
    page.wait_for_selector("#game")
    # the game as a person sees it: six dice, two sheets of four coloured rows, choices
    assert page.locator("figure.die").count() == 6
    for i in range(6):  # each die drawn as a die: its face's pips on a square
        die = page.locator("figure.die").nth(i)
        face = int(die.get_attribute("data-face"))
        assert die.locator("svg rect").count() == 1
        assert die.locator("svg circle").count() == face and 1 <= face <= 6
    assert page.locator("table.sheet").count() == 2
    assert page.locator("table.sheet tr.row[data-row=red]").count() == 2
    assert page.locator("button.choice").count() >= 2
    # a cell of one's own sheet that a choice names is clicked instead of its button
    label = page.get_attribute("button.choice >> nth=0", "data-label")
    assert label != "pass" and page.locator("td.pickable").count() >= 2
    click_and_wait(page, f'td.pickable[data-pick="{label}"]')
    assert page.locator(f'td.cell.crossed[data-pick="{label}"]').count() == 1
    clicks = play_to_the_end(page)
    assert clicks > 5
    assert page.inner_text("section.result .end").strip()
    assert page.inner_text("section.result .winners").startswith(("winner", "winners"))
    assert page.locator("td.cell.crossed").count() > 0
    assert page.locator("a.log").count() == 1
    screenshot(page, tmp_path / "qwixx.png")
    page.close()


def test_domino_7_level_1_is_played_to_the_end_and_opens_level_2(browser: Any, server: str,
                                                                 tmp_path: Path) -> None:
    r = httpx.post(server + "/api/games", json={
        "game": "domino7", "seats": ["human", "greedy", "greedy", "greedy"], "seed": 12,
        "level": 1})
    token = r.json()["seats"]["0"]["token"]
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(f"{server}/seat/{token}")
    # the level and its bots (the file's: random for Novice), my hand face up, the
    # three others face down, the line of play
    levels = len(rulekit.load_game(GAMES / "domino7.yaml").levels)
    assert page.inner_text("p.level") == \
        f"level 1 of {levels}: Novice; score more than 0 to pass"
    assert page.locator("section.player h2", has_text="(random)").count() == 3
    own = page.locator("section.player.you .hand:not(.hidden) svg.tile").count()
    assert own > 0 and page.locator(".hand.hidden").count() == 3
    assert page.locator(".hand.hidden svg.tile:not(.back)").count() == 0
    # clicking a tile of the hand: the opening double (one choice) is laid at once; then
    # 1|11 fits both ends, and the click marks its two choices for the person to pick
    click_and_wait(page, 'svg.tile.pickable[data-pick="12|12"]')
    assert page.locator('.line svg.tile[data-tile="12|12"]').count() == 1
    assert page.locator('.you svg.tile[data-tile="12|12"]').count() == 0
    # a tile drawn as a tile: two halves on one face, pips up to 6, the number above
    tile = page.locator('.you svg.tile[data-tile="1|11"]')
    assert tile.locator("rect").count() == 1 and tile.locator("line").count() == 1
    one, eleven = tile.locator("g.half").nth(0), tile.locator("g.half").nth(1)
    assert one.locator("circle.pip").count() == 1 and one.locator("text").count() == 0
    assert eleven.locator("circle").count() == 0 and eleven.text_content() == "11"
    double = page.locator('.line svg.tile[data-tile="12|12"] g.half')
    assert double.count() == 2 and double.nth(0).text_content() == "12"
    page.click('svg.tile.pickable[data-pick="1|11"]')
    picked = page.locator("button.choice.picked")
    assert [picked.nth(i).get_attribute("data-label") for i in range(picked.count())] \
        == ["1|11 left", "1|11 right"]
    click_and_wait(page, "button.choice.picked >> nth=1")
    assert page.locator('.line svg.tile[data-tile="1|11"]').count() == 1
    play_to_the_end(page)
    assert page.locator(".line svg.tile").count() > 10
    assert page.inner_text("section.result .end").strip()
    assert "scores:" in page.inner_text("section.result .scores")
    # with this seed the level is passed (the API test checks a failed one)
    assert page.inner_text(".verdict.passed").startswith("level 1 (Novice) passed: level score")
    screenshot(page, tmp_path / "domino7.png")
    page.click("form.next button")
    page.locator("p.level", has_text=f"level 2 of {levels}: Apprentice").wait_for(
        timeout=15_000)
    assert page.url != f"{server}/seat/{token}"
    assert page.locator("section.player h2", has_text="(greedy)").count() == 1
    page.close()


def test_two_people_see_each_others_moves_live(browser: Any, server: str) -> None:
    r = httpx.post(server + "/api/games", json={
        "game": "qwixx", "seats": ["human", "human"], "seed": 12})
    seats = r.json()["seats"]
    first, second = browser.new_context(), browser.new_context()
    a, b = first.new_page(), second.new_page()
    a.goto(server + seats["0"]["page"])
    b.goto(server + seats["1"]["page"])
    # the white sum is everyone's at once: both pages have their choices
    assert "your choice (at the same time as player 0)" in b.inner_text(".status")
    label = a.get_attribute("button.choice >> nth=0", "data-label")
    a.click("button.choice >> nth=0")
    # without a reload: the second page learns that player 0 chose, not what
    b.locator(".events li", has_text="player 0: has chosen").wait_for(timeout=10_000)
    events = b.inner_text(".events")
    assert "player 0: has chosen" in events and label not in events
    b.click("button.choice:text-is('pass')")
    a.locator(".events li", has_text="player 1: pass").wait_for(timeout=10_000)
    first.close()
    second.close()


def test_connect_four_is_played_to_the_end_by_clicking_the_boards_columns(
        browser: Any, server: str, tmp_path: Path) -> None:
    from PIL import Image

    r = httpx.post(server + "/api/games", json={
        "game": "connect-four", "seats": ["human", "random"], "seed": 3})
    token = r.json()["seats"]["0"]["token"]
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(f"{server}/seat/{token}")
    # an empty board of 6 x 7 cells; each column is clicked to drop a piece into it
    assert page.locator("figure.grid circle.hole").count() == 42
    assert page.locator("figure.grid g.column.pickable").count() == 7
    clicks = 0
    while True:
        page.wait_for_selector("g.column.pickable, section.result", timeout=15_000)
        if page.query_selector("section.result"):
            break
        middle = 'g.column.pickable[data-column="3"]'  # the middle while it is open
        click_and_wait(page, middle if page.query_selector(middle)
                       else "g.column.pickable >> nth=0")
        clicks += 1
        assert page.locator('circle.piece[data-piece="x"]').count() == clicks
        assert clicks <= 21
    ours = page.locator('circle.piece[data-piece="x"]').count()
    theirs = page.locator('circle.piece[data-piece="o"]').count()
    assert ours == clicks and theirs in (clicks - 1, clicks)
    assert "player 0 (you): x3" in page.inner_text(".events")
    end = page.inner_text("section.result .end")
    assert end in ("player 0 (x) has 4 in a line", "player 1 (o) has 4 in a line",
                   "the board is full: a draw")
    assert page.locator("figure.grid g.column.pickable").count() == 0
    screenshot(page, tmp_path / "connect-four.png")
    # the board's picture: each piece a disc in its colour (x the first of the palette's,
    # o the second) on the blue board
    page.locator("figure.grid svg").screenshot(path=str(tmp_path / "board.png"))
    counts = Image.open(tmp_path / "board.png").convert("RGB").getcolors(1 << 24)

    def pixels(colour: tuple[int, int, int]) -> int:
        return sum(n for n, p in counts if all(abs(a - b) <= 24 for a, b in zip(p, colour)))

    disc = 500  # a disc of radius 15 inside its rim, antialiased
    assert pixels((204, 51, 51)) >= disc * ours and pixels((229, 184, 0)) >= disc * theirs
    assert pixels((204, 51, 51)) < disc * 2 * ours  # nothing else is red
    assert pixels((47, 95, 168)) > 20_000  # the board
    page.close()


def test_two_people_decide_qwixx_s_white_sum_at_once_in_either_order(browser: Any,
                                                                      server: str) -> None:
    r = httpx.post(server + "/api/games", json={"game": "qwixx", "seats": ["human", "human"],
                                                "seed": 5})
    tokens = [r.json()["seats"][str(s)]["token"] for s in (0, 1)]
    pages_ = []
    for token in tokens:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(f"{server}/seat/{token}")
        pages_.append(page)
    first, second = pages_
    # the white sum: both seats see their choices at once, whoever the engine asks first
    for page in pages_:
        page.wait_for_selector("button.choice")
        assert "white sum" in page.inner_text("h2.title")
        assert "your choice" in page.inner_text("p.status")
    # seat 1 chooses first: it is kept, unseen by seat 0, and played when seat 0 chooses
    label = second.get_attribute("button.choice[data-label=pass]", "data-label")
    second.click(f'button.choice[data-label="{label}"]')
    second.wait_for_selector("p.status:has-text('you have chosen (pass)')")
    assert second.locator("button.choice").count() == 0
    assert "has chosen" not in first.inner_text("section.events")
    # each choice tells what it would score: a cross +1, a pass nothing
    cross = first.locator("button.choice:not([data-label=pass])").first
    label = cross.get_attribute("data-label")
    assert cross.locator("span.points").inner_text() == "+1"
    assert first.locator("button.choice[data-label=pass] span.points").count() == 0
    click_and_wait(first, f'button.choice[data-label="{label}"]')
    # the window resolved: both choices are in the event list, with the points made
    second.wait_for_selector("section.events li:has-text('player 1 (you): pass')")
    second.wait_for_selector(f"section.events li:has-text('player 0: {label} (+1, score 1)')")
    assert first.locator(f"section.events li:has-text('player 0 (you): {label} "
                         "(+1, score 1)')").count() == 1
    assert second.inner_text("#error") == "" and first.inner_text("#error") == ""
    for page in pages_:
        page.close()


def test_a_lost_connection_is_told_and_mended_when_the_server_is_back(
        browser: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    with running(create_app(FILES, db)) as url:
        r = httpx.post(url + "/api/games", json={"game": "qwixx", "seats": ["human", "human"],
                                                 "seed": 4})
        token = r.json()["seats"]["0"]["token"]
        page = browser.new_page()
        page.goto(f"{url}/seat/{token}")
        page.wait_for_selector("button.choice")
        assert page.locator("#connection").is_hidden()
    # the server is gone: the page says so by itself, and a click says so in words
    page.wait_for_selector("#connection", state="visible", timeout=10_000)
    assert page.inner_text("#connection") == "connection lost, reconnecting..."
    page.click("button.choice >> nth=0")
    page.wait_for_selector("#error:has-text('not sent')")
    message = page.inner_text("#error")
    assert "the server cannot be reached" in message and "TypeError" not in message
    # a server on the same port and store: the page reconnects, and the game goes on
    port = int(url.rsplit(":", 1)[1])
    with running(create_app(FILES, db), port=port):
        page.wait_for_selector("#connection", state="hidden", timeout=15_000)
        assert page.inner_text("#error") == ""
        click_and_wait(page, "button.choice >> nth=0")
        page.close()


def test_the_invite_links_are_full_addresses_copied_by_a_click(browser: Any,
                                                              server: str) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(server + "/new/qwixx")
    page.select_option("select[name=players]", "3")
    page.select_option("select[name=seat1]", "human")
    page.select_option("select[name=seat2]", "human")
    page.click("form.new button[type=submit]")
    page.wait_for_selector("#game")
    links = page.locator("a.invite")
    assert links.count() == 2
    for i in range(2):
        text = links.nth(i).inner_text()
        assert text.startswith(server + "/seat/") and text == \
            server + links.nth(i).get_attribute("href")
    page.click("button.copy >> nth=1")
    page.wait_for_selector("button.copy:text-is('copied')")
    assert page.evaluate("navigator.clipboard.readText()") == links.nth(1).inner_text()
    # the link copied is the other person's page
    other = context.new_page()
    other.goto(page.evaluate("navigator.clipboard.readText()"))
    assert other.inner_text("section.player.you h2").startswith("player 2 (you)")
    context.close()
