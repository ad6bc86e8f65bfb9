"""Tables share networks and stay within their limits (issue 31, item 2).

A trained bot's onnxruntime session is loaded once and shared by every seat
and table that plays it, and freed with the last of them; the store refuses
a client over its own limits (live tables, creations per minute) with 429
and ``Retry-After``, and the server over its total caps with 503, so one
client flooding creations cannot lock the others out or grow the memory
without bound.
"""

from __future__ import annotations

import gc
import os

import pytest

from stichzoo.policies.runtimes.onnx_policy import OnnxPolicy, loaded_models, shipped_bot
from stichzoo.policies.tables.table import Table, TableError, TableStore, resident_mb

#: a table with the trained Geheimtrumpf bot in every bot seat (its own game: 4 players)
BOT_TABLE = {"game": "geheimtrumpf", "players": 4,
             "options": {"round_limit": 50, "first_start": 0},
             "opponents": ["bot:geheimtrumpf"], "seat": 0}


def test_a_network_is_loaded_once_for_every_seat_and_table(tmp_path):
    import shutil

    folder = tmp_path / "bot"  # a copy no other test holds loaded
    shutil.copytree(shipped_bot("geheimtrumpf"), folder)
    spec = f"onnx:path={folder}"
    gc.collect()
    before = loaded_models()
    a = Table("geheimtrumpf", opponents=[spec], seed=1)
    b = Table("geheimtrumpf", opponents=[spec], seed=2)
    sessions = {id(p.session) for t in (a, b) for p in t._bots.values()}
    assert len(a._bots) >= 2 and len(sessions) == 1
    assert loaded_models() == before + 1
    rngs = {id(p.rng) for t in (a, b) for p in t._bots.values()}
    assert len(rngs) == len(a._bots) + len(b._bots)  # the per-seat state stays per seat
    del a, b, sessions
    gc.collect()
    assert loaded_models() == before  # freed with the last table that played it


def test_shared_sessions_play_as_separately_loaded_ones():
    """Same seed, same decisions: a policy on the shared session samples as a fresh one."""
    one = Table("geheimtrumpf", opponents=["bot:geheimtrumpf"], seed=5)
    two = Table("geheimtrumpf", opponents=["bot:geheimtrumpf"], seed=5)
    assert one.view() == two.view()
    p = OnnxPolicy.load(shipped_bot("wizard"), deterministic=False, seed=3)
    q = OnnxPolicy.load(shipped_bot("wizard"), deterministic=False, seed=3)
    assert p.session is q.session and p.rng is not q.rng
    probs = [0.25, 0.25, 0.5]
    assert [p.choose(probs, [1, 1, 1], True) for _ in range(20)] == \
        [q.choose(probs, [1, 1, 1], True) for _ in range(20)]


def test_a_changed_model_file_is_not_served_from_memory(tmp_path):
    import shutil

    folder = tmp_path / "wizard"
    shutil.copytree(shipped_bot("wizard"), folder)
    keep = OnnxPolicy.load(str(folder))
    data = bytearray((folder / "model.onnx").read_bytes())
    data[-1] ^= 1
    (folder / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(ValueError, match="SHA-256"):
        OnnxPolicy.load(str(folder))
    assert keep.session is not None


# -- the store's limits -------------------------------------------------------------------


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _refused(store, client, status, *words):
    with pytest.raises(TableError) as e:
        store.create("wizard", client=client, options={"rounds": [1]}, opponents="random")
    assert e.value.status == status, str(e.value)
    assert int(e.value.headers["Retry-After"]) >= 1
    for word in words:
        assert word in str(e.value)
    return e.value


def _create(store, client):
    return store.create("wizard", client=client, options={"rounds": [1]}, opponents="random")[0]


def test_live_tables_per_client():
    store = TableStore(max_tables_per_client=2, creations_per_minute=None)
    a = [_create(store, "10.0.0.1") for _ in range(2)]
    _refused(store, "10.0.0.1", 429, "max_tables_per_client (2)", "DELETE")
    _create(store, "10.0.0.2")  # another client is not affected
    _create(store, None)  # nor a table made in-process
    store.close(a[0])
    _create(store, "10.0.0.1")  # a closed table frees its place


def test_creations_per_minute_per_client():
    clock = _Clock()
    store = TableStore(creations_per_minute=3, max_tables_per_client=None, clock=clock)
    for _ in range(3):
        store.close(_create(store, "a"))  # closing does not give the creation back
    clock.now += 20
    e = _refused(store, "a", 429, "creations_per_minute (3)")
    assert e.headers["Retry-After"] == "40"  # when the first creation leaves the minute
    _create(store, "b")
    clock.now += 41
    _create(store, "a")
    assert store._created.keys() == {"a", "b"}
    clock.now += 61
    _create(store, "c")
    assert store._created.keys() == {"c"}  # a quiet client is forgotten


def test_total_cap_and_memory_cap_answer_503_with_retry_after():
    clock = _Clock()
    store = TableStore(max_tables=2, idle_timeout=100, clock=clock)
    _create(store, "a")
    clock.now += 30
    _create(store, "b")
    e = _refused(store, "c", 503, "at most 2", "max_tables")
    assert e.headers["Retry-After"] == "70"  # the oldest table expires then
    mb = [5000.0]
    store = TableStore(max_memory_mb=4096, memory=lambda: mb[0])
    _refused(store, "a", 503, "max_memory_mb (4096)", "5000 MiB")
    mb[0] = 100.0
    _create(store, "a")
    mb[0] = None  # not readable here (not Linux): the cap cannot apply
    _create(store, "a")


@pytest.mark.parametrize("kwargs", [{"max_tables_per_client": 0},
                                    {"creations_per_minute": -1},
                                    {"max_memory_mb": 0}, {"idle_timeout": True}])
def test_bad_limits_are_refused(kwargs):
    with pytest.raises(ValueError):
        TableStore(**kwargs)


# -- over HTTP: a flood, memory, and the others ------------------------------------------

fastapi = pytest.importorskip("fastapi")
from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from stichzoo.policies.serve.web_table import mount_web_table  # noqa: E402


def _client(app, host: str) -> TestClient:
    return TestClient(app, raise_server_exceptions=False, client=(host, 50000))


def _play_one_move(c: TestClient, view: dict) -> dict:
    r = c.post(f"/tables/{view['table_id']}/act",
               json={"move": view["moves"][0]["id"], "decisions": view["decisions"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_flood_of_creations_gets_429_and_another_client_still_plays():
    app = FastAPI()
    store = mount_web_table(app, TableStore())  # the defaults of stichzoo serve
    flood = _client(app, "203.0.113.7")
    answers = [flood.post("/tables", json={**BOT_TABLE, "seed": i}) for i in range(25)]
    codes = [r.status_code for r in answers]
    assert codes == [201] * 20 + [429] * 5
    refused = answers[-1]
    assert "max_tables_per_client (20)" in refused.json()["error"]
    assert int(refused.headers["Retry-After"]) >= 1
    other = _client(app, "198.51.100.9")
    r = other.post("/tables", json={**BOT_TABLE, "seed": 99})
    assert r.status_code == 201, r.text
    _play_one_move(other, r.json())
    limits = other.get("/tables/options").json()["limits"]
    assert limits == store.limits() and limits["max_tables_per_client"] == 20


@pytest.mark.skipif(resident_mb() is None, reason="resident memory is read from /proc")
def test_memory_stays_bounded_over_50_tables_with_the_trained_bot():
    """50 creations and deletions with the trained Geheimtrumpf bot: one network in memory.

    Before networks were shared, 194 such tables took a server from 1.5 to 4.7 GB (16 MB a
    table).  The bound is 0.32 MB a table, as it was over 200 tables (64 MB); today's
    tables leave 0.3 MB over 50 and 0.4 MB over 200, so 50 tables say as much in a quarter
    of the time.
    """
    app = FastAPI()
    mount_web_table(app, TableStore(max_tables_per_client=None, creations_per_minute=None))
    c = _client(app, "203.0.113.7")
    warm = c.post("/tables", json={**BOT_TABLE, "seed": 0}).json()  # imports, the network
    gc.collect()
    before = resident_mb()
    tables = 50
    for i in range(tables):
        r = c.post("/tables", json={**BOT_TABLE, "seed": i})
        assert r.status_code == 201, r.text
        assert c.delete(f"/tables/{r.json()['table_id']}").status_code == 200
    gc.collect()
    after = resident_mb()
    assert after - before < 0.32 * tables, (before, after)
    assert loaded_models() >= 1
    _play_one_move(c, warm)


def test_no_tables_leaves_the_bot_api_alone():
    from stichzoo.policies.serve import create_app

    app = create_app(shipped_bot("wizard").rsplit("/", 1)[0], levels=(), web_table=False)
    with TestClient(app, raise_server_exceptions=False) as c:
        assert c.post("/tables", json=BOT_TABLE).status_code == 404
        assert c.get("/tables/options").status_code == 404
        assert c.get("/").status_code == 404
        assert c.get("/bots").status_code == 200


def test_serve_options_reach_the_store(tmp_path):
    from stichzoo.training.cli import _serve_settings, _table_store, build_parser

    args = build_parser().parse_args(["serve", "--max-tables", "50", "--max-tables-per-client",
                                      "0", "--creations-per-minute", "5", "--max-memory-mb",
                                      "0", "--idle-timeout", "60", "--max-analyses", "3",
                                      "--no-tables"])
    assert args.no_tables
    store = _table_store(args)
    assert store.limits() == {"max_tables": 50, "max_tables_per_client": None,
                              "creations_per_minute": 5, "searches_per_minute": 120,
                              "max_memory_mb": None, "idle_timeout": 60.0, "max_analyses": 3}
    default = _table_store(build_parser().parse_args(["serve", "--store",
                                                      str(tmp_path / "t.sqlite")]))
    assert default.limits() == TableStore().limits() and default.saved is not None
    default.shutdown()
    # without --store: a SQLite file in the per-user data folder, kept 30 days
    settings = _serve_settings(build_parser().parse_args(["serve"]))
    assert settings["store"].endswith(os.path.join("stichzoo", "tables.sqlite"))
    assert settings["keep_days"] == 30 and settings["workers"] == 1
    assert _table_store(build_parser().parse_args(["serve", "--store", "memory"])).saved is None


def test_the_memory_cap_says_where_it_cannot_work():
    """Without /proc or psutil the cap cannot read the memory: the store says so once,
    naming both ways, and serves on; with the cap off it says nothing."""
    import warnings

    from stichzoo.policies.tables.table import MEMORY_CAP_OFF

    with pytest.warns(RuntimeWarning, match="memory cap"):
        TableStore(max_memory_mb=512, memory=lambda: None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TableStore(max_memory_mb=None, memory=lambda: None)
        TableStore(max_memory_mb=512, memory=lambda: 100.0)
    assert "/proc" in MEMORY_CAP_OFF and "psutil" in MEMORY_CAP_OFF


def test_searches_per_minute_per_client():
    """Hints and computed analyses count against their client: a token bucket - ten
    seconds' worth at once, then the rate - past it 429 with Retry-After, another client
    untouched; no client, no limit."""
    now = [0.0]
    store = TableStore(searches_per_minute=120, clock=lambda: now[0])
    assert store.search_burst() == 20
    for _ in range(20):  # a burst of ten seconds' worth
        store.charge_search("a")
    with pytest.raises(TableError, match="searches_per_minute") as e:
        store.charge_search("a")
    assert e.value.status == 429 and e.value.headers == {"Retry-After": "1"}  # 2 a second
    store.charge_search("b")
    store.charge_search(None)
    now[0] = 0.5
    store.charge_search("a")  # half a second: one more
    with pytest.raises(TableError):
        store.charge_search("a")
    now[0] = 60.5
    for _ in range(20):  # a quiet minute fills the bucket again, never beyond the burst
        store.charge_search("a")
    with pytest.raises(TableError):
        store.charge_search("a")
    slow = TableStore(searches_per_minute=3, clock=lambda: now[0])
    assert slow.search_burst() == 1
    slow.charge_search("a")
    with pytest.raises(TableError) as e:
        slow.charge_search("a")
    assert e.value.headers == {"Retry-After": "20"}
    assert TableStore(searches_per_minute=None).charge_search("a") is None


def test_a_hint_flood_gets_429_over_http():
    from stichzoo.policies.serve.web_table import mount_web_table

    app = FastAPI()
    mount_web_table(app, TableStore(searches_per_minute=12))  # two at once
    c = _client(app, "203.0.113.8")
    view = c.post("/tables", json={"game": "hoch_tief", "players": 4, "seat": 0,
                                   "opponents": ["random"]}).json()
    ask = {"decisions": view["decisions"]}
    for _ in range(2):
        assert c.post(f"/tables/{view['table_id']}/hint", json=ask).status_code == 200
    r = c.post(f"/tables/{view['table_id']}/hint", json=ask)
    assert r.status_code == 429 and "searches_per_minute" in r.json()["error"]
    assert int(r.headers["Retry-After"]) >= 1
    other = _client(app, "203.0.113.9")  # another client still gets its hints
    assert other.post(f"/tables/{view['table_id']}/hint", json=ask).status_code == 200
