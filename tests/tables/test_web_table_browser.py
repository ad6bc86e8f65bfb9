"""The browser table in a real browser: Playwright drives headless Chromium by clicking.

Each of the five games is set up in the page's form and played to its end by
clicking the highlighted cards and the move buttons (a seeded random choice
among the legal ones), at a desktop (1280x800) or a phone (390x844) size:
the seats show the game's screen lines at every decision, the final totals
the page shows must equal those of the engine's record (replayed by
``stichzoo.envs.core.record.replay``), the downloadable record must be that
record, and the record stepper must reach the same totals.  At the other
size the game is clicked to its mid-game picture and finished through the
table's API (what the page shows does not depend on the size; a whole game
of clicks at both sizes doubled the module's time).  The layout is checked
at both sizes, at the start, mid-game and at the end (no sideways scrolling,
the hand and the moves on the first screen, nothing over the hand).  Other
tests: a page follows a move made in a second tab or by a retried request, a
stale click plays nothing, the address drives the page (Back included), a
forced move plays itself after the trick pause, the rules button, a restart
of a server with a store under the page (the game goes on, a move sent
meanwhile is played once), a 429 asked again after its Retry-After.  A
screenshot per game and size (mid-game and the end) is written to
``runs/screenshots/`` (or ``$STICHZOO_SCREENSHOTS``) as a test artifact;
with ``STICHZOO_DOC_SCREENSHOTS=1`` (``scripts/screenshots.py``) the
mid-game ones also replace ``docs/img/table_<game>.png`` and
``docs/img/table_<game>_phone.png`` (docs/web_table.md's pictures).

Chromium is Debian's ``chromium`` package (installed by ``.ci/run``),
launched by path: ``playwright install`` is never needed.  Without
``/usr/bin/chromium`` these tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import random
import re
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

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("STICHZOO_SCREENSHOTS", ROOT / "runs" / "screenshots"))
DOC_IMAGES = ROOT / "docs" / "img"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               # two tabs at once: the one behind must run at full speed too
               "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
               "--disable-backgrounding-occluded-windows"]
VIEWPORT = {"width": 1280, "height": 800}
#: the sizes every game is played at: a desktop window and a phone (portrait)
SIZES = {"desktop": VIEWPORT, "phone": {"width": 390, "height": 844}}
#: the page's settings for the tests (kept in localStorage by the page): no pause after a
#: trick and no move played by itself, so that every move is a click of the test
QUICK = {"pause": 0, "auto": False, "poll": 1500}
#: the same, without looking for moves made elsewhere (for tests of a page that falls behind)
NO_POLL = {**QUICK, "poll": 600_000}

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

    from stichzoo.policies.serve.web_table import mount_web_table

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


def _context(browser, size: str = "desktop", settings: dict | None = None):
    """A browser context of a size, the page's settings set before its scripts run, every
    "leave this game?" question answered yes."""
    context = browser.new_context(viewport=SIZES[size], accept_downloads=False)
    context.add_init_script(f"localStorage.setItem('stichzoo.settings', "
                            f"{json.dumps(json.dumps(settings or QUICK))})")
    return context


def _new_page(context):
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    problems: list[str] = []
    pg.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
          if m.type == "error" and "404" not in m.text else None)
    # a question ("leave this game?") is noted and answered with pg.answer (yes unless set)
    pg.dialogs, pg.answer = [], True
    pg.on("dialog", lambda d: (pg.dialogs.append(d.message),
                               d.accept() if pg.answer else d.dismiss()))
    pg.problems = problems
    return pg


@pytest.fixture()
def page(browser, request):
    context = _context(browser, getattr(request, "param", "desktop"))
    yield _new_page(context)
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


def _table_id(page) -> str:
    return page.evaluate("decodeURIComponent(location.hash.split('=')[1])")


def _click_move(page, rng: random.Random) -> None:
    """Click one legal move: a highlighted card where the move is a card, else its button."""
    page.bring_to_front()  # the tab in front: Chromium slows the others down
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
    # looked for every 10 ms: the answer (the bots' moves included) takes about 50, and a
    # game is up to 40 clicks
    page.wait_for_function(
        "d => document.getElementById('table').dataset.decisions !== d && "
        "['your-turn', 'over'].includes(document.body.dataset.state)", arg=before, polling=10)


#: what the page shows of the game's screen lines: the title, each seat's columns and total,
#: the badges, each note's text (a card drawn as its name) and the hand's suit names
SHOWN = """() => {
  const text = node => {
    const copy = node.cloneNode(true);
    for (const c of copy.querySelectorAll('[data-card]')) c.replaceWith(c.dataset.card);
    return copy.textContent;
  };
  const cells = sel => [...document.querySelectorAll(sel + ' tr')]
    .map(tr => [...tr.children].filter(c => c.tagName !== 'CAPTION').map(text));
  const seats = [...document.querySelectorAll('#felt .seat')].map(s => ({
    seat: Number(s.dataset.seat), who: s.querySelector('.who').textContent,
    total: s.querySelector('.total').textContent, toAct: s.classList.contains('to-act'),
    columns: [...s.querySelectorAll('.cols-line')].map(
      c => [c.dataset.col, text(c.querySelector('.col-text'))])}));
  return {title: document.getElementById('table-title').textContent, seats,
          badges: [...document.querySelectorAll('#badges .badge')].map(text),
          notes: [...document.querySelectorAll('#info > [data-testid^=note-]')].map(text),
          suits: [...document.querySelectorAll('#hand .suit-name')].map(n => n.textContent),
          rounds: Object.fromEntries([...document.querySelectorAll('#rounds table')]
            .map(t => [t.dataset.testid, cells(`#rounds [data-testid=${t.dataset.testid}]`)]))};
}"""


def _check_screen(page, table) -> None:
    """The page shows the game's screen lines (bids, sore cards, tasks, trump, led suit, the
    Joker's gift, draft rows, open hands) as the server evaluates them for the person's seat:
    every seat around the table with its name, total and the game's columns, the badges, and
    the hand under the suit names the game declares."""
    from stichzoo.envs.registry import display_of
    from stichzoo.policies.serve.web_table import page_view, seat_names

    tv = page_view(table.view())
    screen, shown = tv["screen"], page.evaluate(SHOWN)
    assert f" - {screen['where']} - " in shown["title"]
    names = seat_names(tv)
    assert sorted(s["seat"] for s in shown["seats"]) == list(range(len(names)))
    assert shown["seats"][-1]["seat"] == table.human_seat  # the person sits at the bottom
    for seat in shown["seats"]:
        s = seat["seat"]
        assert seat["who"] == names[s]
        assert seat["total"] == str(tv["view"]["totals"][s])
        assert seat["toAct"] == (tv["to_act"] == s)
        assert seat["columns"] == [[c["title"], c["texts"][s]] for c in screen["seat_columns"]]
    assert shown["badges"] == [b["text"] for b in screen["badges"]]
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


#: the layout at the top of the page: sideways scrolling, the boxes of the hand, the moves
#: and what might cover the hand
LAYOUT = """() => {
  window.scrollTo(0, 0);
  const box = sel => { const n = document.querySelector(sel);
    if (!n || n.offsetParent === null) return null;
    const r = n.getBoundingClientRect();
    return {sel, top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const cards = [...document.querySelectorAll('#hand .card')].map(c => {
    const r = c.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
                                                 right: r.right}; });
  return {scrollWidth: document.scrollingElement.scrollWidth, innerWidth: innerWidth,
          innerHeight: innerHeight, hand: box('#hand'), moves: box('#moves'), cards,
          others: ['.top', '#table-title', '#felt', '#moves', '#info', '.col-side', '#gameover',
                   '.last-row', '#error', '#notice'].map(box).filter(Boolean)};
}"""


def _overlap(a: dict, b: dict) -> bool:
    return (min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
            and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5)


def _check_layout(page, playing: bool = True) -> None:
    """No sideways scrolling; the hand (and on the person's turn the moves) on the first
    screen; nothing over the hand; every card inside the window."""
    shown = page.evaluate(LAYOUT)
    assert shown["scrollWidth"] <= shown["innerWidth"], shown["scrollWidth"]
    hand = shown["hand"]
    assert hand is not None
    assert hand["top"] >= 0 and hand["bottom"] <= shown["innerHeight"], hand
    for card in shown["cards"]:
        assert card["left"] >= 0 and card["right"] <= shown["innerWidth"], card
    if playing:
        assert shown["moves"] and shown["moves"]["bottom"] <= shown["innerHeight"], shown["moves"]
    for other in shown["others"]:
        assert not _overlap(hand, other), (other, hand)


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
        if "reasons" in e:  # "how it scored" closes every row (issue 33, item 2)
            assert cells[0][-1] == "How it scored" and all(row[-1] for row in cells[1:])


def _mid_game(page) -> bool:
    """A good picture: three cards or more in hand and a card on the table."""
    return page.locator("#hand .card").count() >= 3 and \
        page.locator("#felt .slot .card").count() >= 1


def _shoot(page, name: str, doc_name: str | None = None) -> None:
    """The first screen (what a player sees without scrolling) as a picture."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.evaluate("window.scrollTo(0, 0)")  # clicking scrolled the page: show it from the top
    page.screenshot(path=str(path), animations="disabled")
    assert path.stat().st_size > 10_000  # a page, not a blank
    if doc_name and os.environ.get("STICHZOO_DOC_SCREENSHOTS") == "1":
        DOC_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOC_IMAGES / doc_name)


def _check_mid_game(page, table, game: str, size: str) -> None:
    """At the first moment with a hand and a trick: the highlighted cards are exactly the
    legal card moves, each card of the trick lies in front of the seat that played it, the
    layout holds, and the first screen is the game's picture at this size."""
    players = GAMES[game][0]
    legal = set(page.eval_on_selector_all("#hand button.card.legal",
                                          "bs => bs.map(b => b.dataset.card)"))
    view = table.view()
    assert legal == {m["card"] for m in view["moves"] if m["kind"] in ("card", "sore")}
    trick = view["view"]["trick"]
    seats = trick.get("seats") or [(trick["leader"] + k) % players
                                   for k in range(len(trick["cards"]))]
    for seat, card in zip(seats, trick["cards"]):
        assert page.get_attribute(f'#felt .slot[data-seat="{seat}"] .card',
                                  "data-card") == card
    _check_layout(page)
    suffix = "" if size == "desktop" else "_phone"
    _shoot(page, f"web_table_{game}{suffix}_mid.png", f"table_{game}{suffix}.png")


def _start(browser, server, game: str, size: str):
    """A page of ``size`` at a new table of ``game`` (set up in the form), the table, its id."""
    context = _context(browser, size)
    page = _new_page(context)
    _set_up(page, server.url, game)
    table_id = _table_id(page)
    table = server.store.get(table_id)
    assert table.game.name == game and table.human_seat == GAMES[game][1]
    # the title the game declares (envs/<game>/display.py), read from GET /tables/options
    from stichzoo.envs.registry import display_of

    assert page.text_content("#table-title").startswith(display_of(game).title + " - ")
    _check_layout(page)
    return context, page, table_id, table


#: the size each game is played to its end by clicking at; at the other size the clicks
#: stop at the mid-game picture (test_the_layout_at_the_other_size).  The phone takes the
#: games with the biggest hands (Silberne Ananas, Hoch & Tief, Geheimtrumpf).
WHOLE_GAME_SIZE = {"wizard": "desktop", "wunder_punkt": "desktop", "silberne_ananas": "phone",
                   "hoch_tief": "phone", "geheimtrumpf": "phone"}


@pytest.mark.parametrize("game", list(GAMES))
def test_play_a_whole_game_by_clicking(server, browser, game):
    """Every move clicked, to the end: at each decision the seats show the game's screen
    lines; then the totals, the record and its download, the round summaries, the log and
    the record stepper."""
    players = GAMES[game][0]
    size = WHOLE_GAME_SIZE[game]
    context, page, table_id, table = _start(browser, server, game, size)
    try:
        rng = random.Random(GAMES[game][4])
        shot, clicks = False, 0
        while _state(page) != "over":
            _check_screen(page, table)
            if not shot and _mid_game(page):
                _check_mid_game(page, table, game, size)
                shot = True
            _click_move(page, rng)
            clicks += 1
            assert clicks < 400
        assert shot, "no mid-game moment with a hand and a trick to show"
        page.wait_for_selector("#download-record[data-ready='1']")
        shown = [int(page.text_content(f"[data-testid=final-total-{s}]"))
                 for s in range(players)]
        with httpx.Client(base_url=server.url) as c:
            record = c.get(f"/tables/{table_id}/record").json()
            events = c.get(f"/tables/{table_id}/events", params={"after": -1}).json()["events"]
        _check_screen(page, table)
        _check_round_ends(page, events)
        assert page.evaluate(LAYOUT)["scrollWidth"] <= SIZES[size]["width"]
        assert replay(json.loads(json.dumps(record))).totals == shown == record["totals"]
        assert page.get_attribute("#verdict", "data-winners") == ",".join(
            map(str, table.summary()["winners"]))
        # the download link holds the record itself
        blob = page.evaluate("fetch(document.getElementById('download-record').href)"
                             ".then(r => r.json())")
        assert blob == record
        assert page.get_attribute("#download-record", "download") == \
            f"stichzoo-{game}-{table.seed}.json"
        # every round summary was shown; only the last one unfolded
        assert page.locator("#rounds table").count() == len(record["rounds"])
        assert page.locator("#rounds details[open]").count() == 1
        # the log draws cards as the hand does: no card name is left as plain text
        log = page.evaluate("""[...document.querySelectorAll('#log li')].map(li => {
            const copy = li.cloneNode(true);
            for (const c of copy.querySelectorAll('[data-card]')) c.remove();
            return copy.textContent; })""")
        cards = set(table.game.deck.names)
        assert page.locator("#log [data-card]").count() > 0
        assert not [w for line in log for w in re.findall(r"\w+", line) if w in cards]
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
        assert page.evaluate(LAYOUT)["scrollWidth"] <= SIZES[size]["width"]
        _shoot(page, f"web_table_{game}_{size}_end.png")
        assert not page.problems, page.problems
    finally:
        context.close()


@pytest.mark.parametrize("game", list(GAMES))
def test_the_layout_at_the_other_size(server, browser, game):
    """The same game at the size it is not played to its end at: clicked to the mid-game
    picture (layout, legal cards, the trick, the docs' picture), the rest of its moves sent
    to the table's API; reloaded at its end, the page has no sideways scrolling, nor has
    the record stepper at its last frame.  (What the end screen shows does not depend on
    the size: test_play_a_whole_game_by_clicking checks it.)"""
    size = next(s for s in SIZES if s != WHOLE_GAME_SIZE[game])
    context, page, table_id, table = _start(browser, server, game, size)
    try:
        rng = random.Random(GAMES[game][4])
        clicks = 0
        while not _mid_game(page):
            assert _state(page) != "over", "no mid-game moment with a hand and a trick to show"
            _click_move(page, rng)
            clicks += 1
            assert clicks < 400
        _check_screen(page, table)
        _check_mid_game(page, table, game, size)
        with httpx.Client(base_url=server.url) as c:
            while not table.over:
                view = table.view()
                move = rng.choice(view["moves"])["id"]
                r = c.post(f"/tables/{table_id}/act",
                           json={"move": move, "decisions": view["decisions"]})
                assert r.status_code == 200, r.text
        page.reload()
        page.wait_for_selector("body[data-state=over]")
        assert page.evaluate(LAYOUT)["scrollWidth"] <= SIZES[size]["width"]
        page.wait_for_selector("#replay:not([hidden])")
        page.click("#replay-last")
        assert page.evaluate(LAYOUT)["scrollWidth"] <= SIZES[size]["width"]
        _shoot(page, f"web_table_{game}_{size}_end.png")
        assert not page.problems, page.problems
    finally:
        context.close()


def test_a_gone_table_says_so_and_offers_a_new_one(browser):
    """The bot server's app with the table mounted: a table that expires (or a server that
    restarts) under the page gets the message and a button, not a wrong-move error."""
    from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
    from stichzoo.policies.serve import create_app

    app = create_app(SHIPPED_BOTS)
    store = app.state.table_store
    live = LiveServer(app)
    context = _context(browser, settings=NO_POLL)  # the click, not a poll, meets the gone table
    page = _new_page(context)
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
        # the values as the form writes them, never Python's (True, None)
        page.select_option("#game", "wunder_punkt")
        page.select_option("#players", "4")
        page.check('#options [data-option="larger_hands"]')
        page.fill("#seed", "1")
        page.click("#start")
        page.wait_for_function("document.getElementById('setup-error').textContent"
                               ".includes('larger_hands')")
        assert "larger_hands=on" in page.text_content("#setup-error")
        assert "True" not in page.text_content("#setup-error")
        # a list option in the page's syntax or the terminal's JSON; a word is refused here
        page.select_option("#game", "wizard")
        page.uncheck("#short")
        page.fill('#options [data-option="rounds"]', "1;2")
        page.click("#start")
        assert page.text_content("#setup-error") == "Options: rounds: whole numbers such as 1,2,3."
        page.select_option("#game", "hoch_tief")
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


def test_a_restart_resumes_the_table_and_a_move_sent_meanwhile_plays_once(browser, tmp_path):
    """A server with a store restarts under the page: a move clicked while it is down is
    sent again until the new server answers (the same decision: played once), and the page
    goes on at the same table without the person doing anything - never "gone"."""
    from fastapi import FastAPI

    from stichzoo.policies.serve.web_table import mount_web_table
    from stichzoo.policies.tables.store_sqlite import SqliteTables
    from stichzoo.policies.tables.table import TableStore

    path = str(tmp_path / "tables.sqlite")

    def serve(port=None):
        app = FastAPI()
        store = mount_web_table(app, TableStore(saved=SqliteTables(path)))
        return LiveServer(app, port=port), store

    live, store = serve()
    context = _context(browser, settings=NO_POLL)
    page = _new_page(context)
    try:
        _set_up(page, live.url, "hoch_tief")
        _click_move(page, random.Random(1))
        table_id = page.evaluate("decodeURIComponent(location.hash.split('=')[1])")
        seen = int(page.get_attribute("#table", "data-decisions"))
        live.stop()
        store.shutdown()
        page.locator("#hand button.card.legal").first.click()  # the server is down
        page.wait_for_function("document.getElementById('notice').textContent"
                               ".includes('sent again')")
        live, store = serve(live.port)  # the restarted server, on the same file
        page.wait_for_function(f"Number(document.getElementById('table').dataset.decisions)"
                               f" > {seen}")
        page.wait_for_selector("body[data-state=your-turn], body[data-state=over]")
        assert page.is_hidden("#gone") and page.is_hidden("#error")
        table = store.get(table_id)
        since = table._state.history[seen:]
        assert [seat for seat, _ in since].count(table.human_seat) == 1  # played once
        assert page.get_attribute("#table", "data-decisions") == str(table.decisions)
        # the browser logs each refused connection while the server was down; nothing else
        assert [p for p in page.problems if "ERR_CONNECTION_REFUSED" not in p] == []
    finally:
        live.stop()
        store.shutdown()
        context.close()


def test_a_429_is_asked_again_after_its_retry_after(server, page):
    """A hint refused with 429 and Retry-After: the page says it waits, asks again by
    itself after that many seconds, and shows the hint - the person does nothing."""
    _set_up(page, server.url, "hoch_tief")
    asked = []

    def limit_the_first(route):
        asked.append(time.monotonic())
        if len(asked) == 1:
            route.fulfill(status=429, content_type="application/json",
                          headers={"Retry-After": "1"},
                          body=json.dumps({"error": "too many searches"}))
        else:
            route.continue_()

    page.route("**/hint", limit_the_first)
    page.click("#hint-button")
    page.wait_for_function("document.getElementById('notice').textContent"
                           ".includes('trying again by itself')")
    page.wait_for_selector("#hint[data-state=shown]")
    assert len(asked) == 2 and asked[1] - asked[0] >= 0.9
    assert page.is_hidden("#notice")


def test_a_stale_tab_plays_nothing(browser):
    """Two tabs on one table, behind stichzoo serve's checks (Host, Origin, JSON): a move in
    the tab that fell behind is refused (409), nothing is played twice, and that tab shows
    the table as it is now with the reason."""
    from stichzoo.policies.runtimes.onnx_policy import SHIPPED_BOTS
    from stichzoo.policies.serve import create_app
    from stichzoo.policies.serve.guard import served_hosts

    port = _free_port()
    app = create_app(SHIPPED_BOTS, levels=(), allowed_hosts=served_hosts("127.0.0.1", port))
    store = app.state.table_store
    live = LiveServer(app, port=port)
    context = _context(browser, settings=NO_POLL)  # the second tab must not catch up by itself
    first, second = _new_page(context), _new_page(context)
    try:
        first.bring_to_front()
        _set_up(first, live.url, "hoch_tief")
        table_id = first.evaluate("decodeURIComponent(location.hash.split('=')[1])")
        second.bring_to_front()
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


def test_a_page_follows_moves_made_elsewhere(server, browser):
    """A move from a second tab, and one sent again by a client that retried, reach the first
    page by themselves (it polls GET /tables/ID/version): it shows the table as it is now and
    says why, without a click."""
    context = _context(browser, settings={**QUICK, "poll": 300})
    first, second = _new_page(context), _new_page(context)
    try:
        first.bring_to_front()
        _set_up(first, server.url, "hoch_tief")
        table_id = _table_id(first)
        second.bring_to_front()
        second.goto(f"{server.url}/#table={table_id}")
        second.wait_for_selector("body[data-state=your-turn]")
        _click_move(second, random.Random(3))
        now = server.store.get(table_id).view()["decisions"]
        first.bring_to_front()
        first.wait_for_function(f"document.getElementById('table').dataset.decisions === '{now}'",
                                polling=50)
        assert "moved on elsewhere" in first.text_content("#notice")
        assert first.is_hidden("#error")
        # a client's retried request (the same move for the same decision) lands once
        view = server.store.get(table_id).view()
        with httpx.Client(base_url=server.url) as c:
            body = {"move": view["moves"][0]["id"], "decisions": view["decisions"]}
            assert c.post(f"/tables/{table_id}/act", json=body).status_code == 200
            assert c.post(f"/tables/{table_id}/act", json=body).status_code == 409
        now = server.store.get(table_id).view()["decisions"]
        for pg in (first, second):
            pg.wait_for_function(
                f"document.getElementById('table').dataset.decisions === '{now}'", polling=50)
            _check_screen(pg, server.store.get(table_id))
        assert not first.problems and not second.problems, (first.problems, second.problems)
    finally:
        context.close()


def test_the_address_drives_the_page(server, browser):
    """#table=ID says which table the page shows: an edited address switches tables, Back
    returns to the one before; "New table" asks before it closes a running game."""
    context = _context(browser)
    page = _new_page(context)
    try:
        _set_up(page, server.url, "wizard")
        first_id = _table_id(page)
        with httpx.Client(base_url=server.url) as c:
            other = c.post("/tables", json={"game": "wunder_punkt", "options": {"rounds": 1},
                                            "seed": 2}).json()
        page.evaluate(f"location.hash = '#table={other['table_id']}'")
        page.wait_for_function("document.getElementById('table').dataset.game === "
                               "'wunder_punkt'")
        assert page.get_attribute("#table", "data-decisions") == str(other["decisions"])
        page.go_back()
        page.wait_for_function(f"document.getElementById('table').dataset.tableId === "
                               f"'{first_id}'")
        page.wait_for_selector("body[data-state=your-turn]")
        assert page.get_attribute("#table", "data-game") == "wizard"
        # leaving a running game asks first: "no" keeps it, "yes" closes it
        page.answer = False
        page.click("#new-table")
        assert page.dialogs and "still running" in page.dialogs[0]
        assert _state(page) == "your-turn" and _table_id(page) == first_id
        page.answer = True
        page.click("#new-table")
        page.wait_for_selector("body[data-state=setup]")
        assert len(page.dialogs) == 2 and "#table" not in page.url
        with httpx.Client(base_url=server.url) as c:
            deadline = time.monotonic() + 10
            while c.get(f"/tables/{first_id}/version").status_code != 404:
                assert time.monotonic() < deadline, "the left table was not closed"
                time.sleep(0.05)
        page.go_back()  # back to the closed table's address: it says it is gone
        page.wait_for_selector("body[data-state=gone]")
        assert not page.problems, page.problems
    finally:
        context.close()


def test_a_forced_move_plays_itself_after_the_trick_pause(server, browser):
    """With the settings on, a single possible move (Wizard's one card in round 1) is played
    by itself, and a completed trick stays on the table for the pause, saying who takes it."""
    context = _context(browser, settings={"pause": 600, "auto": True, "poll": 1500})
    page = _new_page(context)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-state=setup]")
        assert page.input_value("#set-pause") == "600" and page.is_checked("#set-auto")
        page.select_option("#game", "wizard")
        page.select_option("#players", "3")
        page.locator('#options [data-option="rounds"]').fill("[1]")  # the terminal's syntax
        page.fill("#seed", "4")
        page.click("#start")
        page.wait_for_selector("body[data-state=your-turn]")
        assert page.locator("#moves button.move").count() == 2  # bid 0 or 1
        page.click("#moves button.move >> nth=0")
        # no further click: the one card goes by itself, the trick shows who takes it
        page.wait_for_selector("#felt[data-trick-done='1']")
        caption = page.text_content("#trick-caption")
        assert "take" in caption and "the trick" in caption, caption
        assert page.locator("#felt .seat.took").count() == 1
        assert page.locator("#felt .slot .card").count() == 3
        page.wait_for_selector("body[data-state=over]")
        table = server.store.get(_table_id(page))
        assert table.over and table.view()["decisions"] == int(
            page.get_attribute("#table", "data-decisions"))
        assert not page.problems, page.problems
    finally:
        context.close()


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_the_rules_and_hint_buttons(server, page):
    """One click on Rules shows the game's rules from GET /tables/rules/GAME (its html,
    cleaned: no scripts), on the start page and at the table; where the server has no rules
    the panel says so.  Hint shows the search's move for the decision and marks it."""
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-state=setup]")
    with httpx.Client(base_url=server.url) as c:
        for game in GAMES:
            page.select_option("#game", game)
            page.click("#rules-button")
            page.wait_for_function("['shown', 'missing'].includes("
                                   "document.getElementById('rules-panel').dataset.state)")
            r = c.get(f"/tables/rules/{game}")
            body = page.text_content("#rules-body")
            assert r.status_code == 200  # the rules' route (issue 33, item 2)
            rules = r.json()
            assert page.get_attribute("#rules-panel", "data-state") == "shown"
            assert page.text_content("#rules-title") == rules["title"]
            assert len(body) > 200 and body.split()[0] in rules["markdown"]
            page.click("#rules-close")
            assert page.is_hidden("#rules-panel")
    # a server without the rules: the panel says so
    page.route("**/tables/rules/wizard", lambda route: route.fulfill(
        status=404, content_type="application/json", body=json.dumps({"error": "no rules"})))
    page.select_option("#game", "wizard")
    page.click("#rules-button")
    page.wait_for_selector("#rules-panel[data-state=missing]")
    assert "not available" in page.text_content("#rules-body")
    page.click("#rules-close")
    page.unroute("**/tables/rules/wizard")
    # what the panel does with a server's html: text and tables kept, scripts and handlers not
    page.route("**/tables/rules/hoch_tief", lambda route: route.fulfill(
        status=200, content_type="application/json",
        body=json.dumps({"game": "hoch_tief", "title": "Hoch & Tief: the rules",
                         "markdown": "# x", "html": "<h2>Tricks</h2><p onclick='boom()'>Play "
                         "<b>high</b></p><script>window.hacked = 1</script>"
                         "<img src=x onerror='window.hacked = 2'><table><tr><td>A1</td></tr>"
                         "</table><a href='javascript:boom()'>link</a>"})))
    _set_up(page, server.url, "hoch_tief")
    page.click("#rules-button")
    page.wait_for_selector("#rules-panel[data-state=shown]")
    assert page.text_content("#rules-title") == "Hoch & Tief: the rules"
    assert page.text_content("#rules-body h2") == "Tricks"
    assert page.text_content("#rules-body td") == "A1"
    assert page.locator("#rules-body script, #rules-body img, #rules-body [onclick]").count() == 0
    assert page.get_attribute("#rules-body a", "href") is None
    assert page.evaluate("window.hacked") is None
    # the panel sits over the table on a phone without sideways scrolling
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    box = page.locator("#rules-panel").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    page.keyboard.press("Escape")
    assert page.is_hidden("#rules-panel")
    # a hint: the search's move marked in the hand, the others with their estimated loss
    table = server.store.get(_table_id(page))
    page.click("#hint-button")
    page.wait_for_selector("#hint[data-state=shown]")
    hint = table.hint(table.view()["decisions"])
    assert page.get_attribute("#hint", "data-move") == str(hint["move"]["id"])
    assert page.locator(f'#hand button.hinted[data-move-id="{hint["move"]["id"]}"]').count() == 1
    assert page.locator("#hint li").count() == len(hint["values"]) - 1
    _check_layout(page)
    _click_move(page, random.Random(0))
    assert page.is_hidden("#hint")  # a hint is for one decision
    assert not page.problems, page.problems


@pytest.mark.parametrize("page", ["phone"], indirect=True)
def test_the_analysis_at_the_end(server, page):
    """At game over, Analysis shows each of the person's decisions with a choice beside the
    search's move, with the estimated loss (the table's own analysis), the biggest marked;
    on a phone without sideways scrolling."""
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-state=setup]")
    page.select_option("#game", "wizard")
    page.select_option("#players", "3")
    page.locator('#options [data-option="rounds"]').fill("1,2")
    page.fill("#seed", "4")
    page.click("#start")
    page.wait_for_selector("body[data-state=your-turn]")
    assert page.is_hidden("#analysis-button")  # in the game-over box only
    rng = random.Random(1)
    while _state(page) != "over":
        _click_move(page, rng)
    page.click("#analysis-button")
    page.wait_for_selector("#analysis[data-state=shown]")
    answer = server.store.get(_table_id(page)).analysis()
    rows = page.eval_on_selector_all("#analysis tr[data-decision]", """rs => rs.map(r => ({
        decision: Number(r.dataset.decision), big: r.classList.contains('big-loss'),
        cells: [...r.children].map(c => c.dataset.card ? c.dataset.card : c.textContent)}))""")
    entries = answer["decisions"]
    assert [r["decision"] for r in rows] == [e["decision"] for e in entries] and len(rows) >= 2
    losses = sorted((e["loss"] for e in entries if e["loss"]), reverse=True)[:3]
    for r, e in zip(rows, entries):
        assert r["cells"][0] == str(e["round"] + 1)
        assert float(r["cells"][3].split()[0]) == e["loss"]
        assert (r["cells"][2] == "the same") == e["same"]
        assert r["big"] == (e["loss"] is not None and e["loss"] in losses)
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "analysis_phone.png"), full_page=True)
    assert not page.problems, page.problems
