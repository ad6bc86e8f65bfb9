"""The browser table in a real browser: Playwright drives headless Chromium by clicking.

Each of the five games is set up in the page's form and played to its end by
clicking the highlighted cards and the move buttons (a seeded random choice
among the legal ones); the final totals the page shows must equal those of
the engine's record (replayed by ``stichzoo.envs.core.record.replay``), the
downloadable record must be that record, and the record stepper must reach
the same totals.  A screenshot per game (mid-game and the end) is written to
``runs/screenshots/`` (or ``$STICHZOO_SCREENSHOTS``) as a test artifact;
with ``STICHZOO_DOC_SCREENSHOTS=1`` the mid-game one also replaces
``docs/img/table_<game>.png`` (the README's pictures).

Chromium is Debian's ``chromium`` package (installed by ``.ci/run``),
launched by path: ``playwright install`` is never needed.  Without
``/usr/bin/chromium`` these tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("STICHZOO_CHROMIUM", "/usr/bin/chromium")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package "
                f"(.ci/run does) to run the browser tests", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

from stichzoo.envs.core.record import replay  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("STICHZOO_SCREENSHOTS", ROOT / "runs" / "screenshots"))
DOC_IMAGES = ROOT / "docs" / "img"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1000, "height": 700}

#: per game: players, the person's seat, the bots, the option fields to fill in, the seed
GAMES = {
    "wizard": (4, 1, ["heuristic", "random", "pimc"], {"rounds": "1,4"}, 7),
    "wunder_punkt": (3, 0, ["random", "heuristic"], {"rounds": "1"}, 5),
    "silberne_ananas": (3, 2, ["heuristic", "random"], {"match": False}, 4),
    "hoch_tief": (3, 1, ["heuristic", "random"], {"rounds": "1"}, 3),
    "geheimtrumpf": (3, 0, ["random", "heuristic"], {"round_limit": "1"}, 6),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """An app served by uvicorn in a background thread on a free loopback port."""

    def __init__(self, app, port: int | None = None):
        import uvicorn

        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "no server"
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)


def _table_app():
    from fastapi import FastAPI

    from stichzoo.policies.tables.web import mount_web_table

    app = FastAPI()
    store = mount_web_table(app)
    return app, store


@pytest.fixture(scope="module")
def server():
    app, store = _table_app()
    live = LiveServer(app)
    live.store = store
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=False)
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    problems: list[str] = []
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
          if m.type == "error" else None)
    pg.problems = problems
    yield pg
    context.close()


def _state(page) -> str:
    return page.get_attribute("body", "data-state")


def _set_up(page, url: str, game: str) -> None:
    players, seat, bots, fields, seed = GAMES[game]
    page.goto(url + "/")
    page.wait_for_selector("body[data-state=setup]")
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    page.select_option("#seat", str(seat))
    for k, bot in enumerate(bots):
        page.select_option(f"[data-testid=opponent-{k}]", bot)
    page.check("#short")
    for name, value in fields.items():
        box = page.locator(f'#options [data-option="{name}"]')
        if isinstance(value, bool):
            box.set_checked(value)
        else:
            box.fill(value)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn], body[data-state=over]")


def _click_move(page, rng: random.Random) -> None:
    """Click one legal move: a highlighted card where the move is a card, else its button."""
    ids = page.eval_on_selector_all("#moves button.move",
                                    "bs => bs.map(b => b.dataset.moveId)")
    assert ids, "no legal moves shown on the person's turn"
    move = rng.choice(ids)
    before = page.get_attribute("#table", "data-decisions")
    card = page.locator(f'#hand button.card.legal[data-move-id="{move}"], '
                        f'#info button.card.legal[data-move-id="{move}"]')
    if card.count():
        card.first.click()
    else:
        page.click(f'#moves button.move[data-move-id="{move}"]')
    page.wait_for_function(
        "d => document.getElementById('table').dataset.decisions !== d && "
        "['your-turn', 'over'].includes(document.body.dataset.state)", arg=before)


#: what the page shows of the game's screen lines: the title, the scoreboard's cells, each
#: note's text (a card drawn as its name) and the hand's suit names
SHOWN = """() => {
  const text = node => {
    const copy = node.cloneNode(true);
    for (const c of copy.querySelectorAll('[data-card]')) c.replaceWith(c.dataset.card);
    return copy.textContent;
  };
  const cells = sel => [...document.querySelectorAll(sel + ' tr')]
    .map(tr => [...tr.children].filter(c => c.tagName !== 'CAPTION').map(text));
  return {title: document.getElementById('table-title').textContent,
          scoreboard: cells('#scoreboard'),
          notes: [...document.querySelectorAll('#info > [data-testid^=note-]')].map(text),
          suits: [...document.querySelectorAll('#hand .suit-name')].map(n => n.textContent),
          rounds: Object.fromEntries([...document.querySelectorAll('#rounds table')]
            .map(t => [t.dataset.testid, cells(`#rounds [data-testid=${t.dataset.testid}]`)]))};
}"""


def _check_screen(page, table) -> None:
    """The page shows the game's screen lines (bids, sore cards, tasks, trump, led suit, the
    Joker's gift, draft rows, open hands) as the server evaluates them for the person's seat,
    and the hand under the suit names the game declares."""
    from stichzoo.envs.registry import display_of
    from stichzoo.policies.tables.web import page_view

    tv = page_view(table.view())
    screen, shown = tv["screen"], page.evaluate(SHOWN)
    assert f" - {screen['where']} - " in shown["title"]
    titles = [c["title"] for c in screen["seat_columns"]]
    assert shown["scoreboard"][0] == ["", "Seat", "Player", *titles, "Total"]
    for s, row in enumerate(shown["scoreboard"][1:]):
        assert row[3:3 + len(titles)] == [c["texts"][s] for c in screen["seat_columns"]]
    assert len(shown["notes"]) == len(screen["notes"])
    for note, text in zip(screen["notes"], shown["notes"]):
        if note["kind"] == "note":
            assert text == note["text"]
        else:  # a grid: its title, its column titles, one row per row
            assert text.startswith(note["title"].rstrip(":"))
            assert all(c in text for c in note["columns"])
    assert set(shown["suits"]) <= {s.name for s in display_of(table.game.name).suits}
    assert len(shown["suits"]) == len({s for s in map(display_of(table.game.name).suit_of,
                                                       tv["view"]["hand"])})


def _check_round_ends(page, events: list[dict]) -> None:
    """Every round summary shows the game's round columns (bids, sore cards, tasks met, ...)."""
    rounds = page.evaluate(SHOWN)["rounds"]
    for e in events:
        if e["type"] != "round_end":
            continue
        cells = rounds[f"round-{e['round']}"]
        titles = [c["title"] for c in e["columns"]]
        assert cells[0][1:1 + len(titles)] == titles
        for s, row in enumerate(cells[1:]):
            assert row[1:1 + len(titles)] == [c["texts"][s] for c in e["columns"]]


def _mid_game(page) -> bool:
    """A good picture: three cards or more in hand and a card on the table."""
    return page.locator("#hand .card").count() >= 3 and page.locator("#trick .played").count() >= 1


def _shoot(page, name: str, doc_game: str | None = None) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.evaluate("window.scrollTo(0, 0)")  # clicking scrolled the page: show it from the top
    height = min(page.evaluate("document.documentElement.scrollHeight"), 1000)
    page.screenshot(path=str(path), full_page=True,
                    clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height})
    assert path.stat().st_size > 10_000  # a page, not a blank
    if doc_game and os.environ.get("STICHZOO_DOC_SCREENSHOTS") == "1":
        DOC_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOC_IMAGES / f"table_{doc_game}.png")


@pytest.mark.parametrize("game", list(GAMES))
def test_play_a_whole_game_by_clicking(server, page, game):
    players = GAMES[game][0]
    _set_up(page, server.url, game)
    table_id = page.evaluate("decodeURIComponent(location.hash.split('=')[1])")
    table = server.store.get(table_id)
    assert table.game.name == game and table.human_seat == GAMES[game][1]
    # the title the game declares (envs/<game>/display.py), read from GET /tables/options
    from stichzoo.envs.registry import display_of

    assert page.text_content("#table-title").startswith(display_of(game).title + " - ")
    rng = random.Random(GAMES[game][4])
    shot, clicks = False, 0
    while _state(page) != "over":
        _check_screen(page, table)
        if not shot and _mid_game(page):
            # the highlighted cards are exactly the legal card moves
            legal = set(page.eval_on_selector_all("#hand button.card.legal",
                                                  "bs => bs.map(b => b.dataset.card)"))
            view = table.view()
            assert legal == {m["card"] for m in view["moves"] if m["kind"] in ("card", "sore")}
            _shoot(page, f"web_table_{game}_mid.png", doc_game=game)
            shot = True
        _click_move(page, rng)
        clicks += 1
        assert clicks < 400
    assert shot, "no mid-game moment with a hand and a trick to show"
    page.wait_for_selector("#download-record[data-ready='1']")
    shown = [int(page.text_content(f"[data-testid=final-total-{s}]")) for s in range(players)]
    with httpx.Client(base_url=server.url) as c:
        record = c.get(f"/tables/{table_id}/record").json()
        events = c.get(f"/tables/{table_id}/events", params={"after": -1}).json()["events"]
    _check_screen(page, table)
    _check_round_ends(page, events)
    assert replay(json.loads(json.dumps(record))).totals == shown == record["totals"]
    assert page.get_attribute("#verdict", "data-winners") == ",".join(
        map(str, table.summary()["winners"]))
    # the download link holds the record itself
    blob = page.evaluate("fetch(document.getElementById('download-record').href)"
                         ".then(r => r.json())")
    assert blob == record
    assert page.get_attribute("#download-record", "download") == \
        f"stichzoo-{game}-{table.seed}.json"
    # every round summary was shown
    assert page.locator("#rounds table").count() == len(record["rounds"])
    # step through the record: the start has zeros, the end the record's totals
    page.wait_for_selector("#replay:not([hidden])")
    page.click("#replay-last")
    assert [int(page.text_content(f"[data-testid=replay-total-{s}]"))
            for s in range(players)] == record["totals"]
    page.click("#replay-first")
    assert [page.text_content(f"[data-testid=replay-total-{s}]")
            for s in range(players)] == ["0"] * players
    page.click("#replay-trick")
    k = int(page.get_attribute("#replay", "data-frame"))
    assert 0 < k <= len(record["decisions"])
    assert page.locator("#replay-last-trick .played").count() == len(
        record["rounds"][0]["tricks"][0]["cards"])
    page.click("#replay-prev")
    assert page.get_attribute("#replay", "data-frame") == str(k - 1)
    page.click("#replay-next")
    assert page.get_attribute("#replay", "data-frame") == str(k)
    page.click("#replay-last")
    _shoot(page, f"web_table_{game}_end.png")
    assert not page.problems, page.problems


def test_a_gone_table_says_so_and_offers_a_new_one(browser):
    """The bot server's app with the table mounted: a table that expires (or a server that
    restarts) under the page gets the message and a button, not a wrong-move error."""
    from stichzoo.policies.onnx_bot import SHIPPED_BOTS
    from stichzoo.policies.serve import create_app

    app = create_app(SHIPPED_BOTS)
    store = app.state.table_store
    live = LiveServer(app)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        with httpx.Client(base_url=live.url) as c:
            assert c.get("/bots").status_code == 200  # the bot API is still there
        _set_up(page, live.url, "hoch_tief")
        table_id = page.evaluate("decodeURIComponent(location.hash.split('=')[1])")
        store.close(table_id)  # what expiry does
        page.locator("#hand button.card.legal").first.click()
        page.wait_for_selector("body[data-state=gone]")
        assert page.is_visible("#gone")
        assert "gone (expired, or the server restarted)" in page.text_content("#gone-text")
        assert page.is_hidden("#error")  # not reported as a bad move
        _shoot(page, "web_table_gone.png")
        page.click("#gone-new")
        page.wait_for_selector("body[data-state=setup]")
        # a bad setting is the server's one-line refusal in the form, and nothing starts
        page.fill("#seed", str(2**60))
        page.click("#start")
        page.wait_for_function("document.getElementById('setup-error').textContent !== ''")
        assert "seed" in page.text_content("#setup-error")
        page.fill("#seed", "1")
        page.click("#start")
        page.wait_for_selector("body[data-state=your-turn]")
        table_id = page.evaluate("decodeURIComponent(location.hash.split('=')[1])")
    finally:
        live.stop()
    # a restart: a new server on the same port knows no old table; reloading the page says so
    app2, _ = _table_app()
    live2 = LiveServer(app2, port=live.port)
    try:
        page.goto(f"{live2.url}/?reloaded#table={table_id}")  # a new document, not a hash change
        page.wait_for_selector("body[data-state=gone]")
        assert page.is_visible("#gone-new")
    finally:
        live2.stop()
        context.close()


def test_a_stale_tab_plays_nothing(browser):
    """Two tabs on one table, behind stichzoo serve's checks (Host, Origin, JSON): a move in
    the tab that fell behind is refused (409), nothing is played twice, and that tab shows
    the table as it is now with the reason."""
    from stichzoo.policies.onnx_bot import SHIPPED_BOTS
    from stichzoo.policies.serve import create_app
    from stichzoo.policies.serve.guard import served_hosts

    port = _free_port()
    app = create_app(SHIPPED_BOTS, levels=(), allowed_hosts=served_hosts("127.0.0.1", port))
    store = app.state.table_store
    live = LiveServer(app, port=port)
    context = browser.new_context(viewport=VIEWPORT)
    first, second = context.new_page(), context.new_page()
    try:
        for pg in (first, second):
            pg.set_default_timeout(20_000)
        _set_up(first, live.url, "hoch_tief")
        table_id = first.evaluate("decodeURIComponent(location.hash.split('=')[1])")
        second.goto(f"{live.url}/#table={table_id}")
        second.wait_for_selector("body[data-state=your-turn]")
        seen = store.get(table_id).view()["decisions"]
        _click_move(first, random.Random(1))
        _click_move(second, random.Random(2))  # stale: the page catches up instead
        assert "nothing was played" in second.text_content("#error")
        now = store.get(table_id).view()["decisions"]
        assert second.get_attribute("#table", "data-decisions") == str(now)
        human = store.get(table_id).human_seat
        since = store.get(table_id)._state.history[seen:]
        assert [seat for seat, _ in since].count(human) == 1
    finally:
        live.stop()
        context.close()
