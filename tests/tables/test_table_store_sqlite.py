"""The tables on disk (policies/tables/store_sqlite.py, Table.saved/resume): a game resumed
after every move is the game played straight, byte for byte; a move is kept once; a store
file of an older schema opens, a newer one and a tampered game are refused by name."""

import json
import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from stichzoo.policies.tables.store_sqlite import SCHEMA_VERSION, SqliteTables, StoreError
from stichzoo.policies.tables.table import NOT_KEPT, Table, TableError, TableStore

#: a store file of schema version 1 with one Wizard table in progress
#: (made by tests/data/make_tables_v1.py; never rewritten: later versions must open it)
FIXTURE_V1 = Path(__file__).resolve().parents[1] / "data" / "tables_v1.sqlite"

#: every kind of random generator the rule bots keep (random.Random, PIMC's and its
#: rollout player's), at a small search budget
OPPONENTS = ["random", "heuristic", "pimc:worlds=3,rollouts=1"]
GAME = {"game_name": "wizard", "num_players": 4, "options": {"rounds": [1, 2, 3]}}


def _store(path, **kwargs) -> TableStore:
    return TableStore(saved=SqliteTables(str(path)), **kwargs)


def _play(stores: list[TableStore], seed: int) -> str:
    """A game whose person plays random legal moves, each move at the next store (another
    process on the same file); the record as JSON."""
    table_id, _ = stores[0].create(**GAME, opponents=OPPONENTS, seed=seed)
    rng = random.Random(seed)
    k = 0
    view = stores[0].view(table_id)
    while not view["over"]:
        k += 1
        store = stores[k % len(stores)]
        view = store.act(table_id, rng.choice(view["moves"])["id"], view["decisions"])
    return json.dumps(stores[0].record(table_id))


def test_a_game_resumed_after_every_move_is_the_game_played_straight(tmp_path):
    straight = _play([_store(tmp_path / "a.sqlite")], seed=11)
    # two stores on one file: each move is played by the other one, which resumes the
    # table from the file (a reload after every move)
    resumed = _play([_store(tmp_path / "b.sqlite"), _store(tmp_path / "b.sqlite")], seed=11)
    assert resumed == straight


def test_the_bots_generators_are_what_makes_it_the_same_game(tmp_path):
    """The check above can fail: resumed with fresh generators, random bots play otherwise."""
    table = Table(**GAME, opponents=["random"], seed=5)
    fresh = table.saved()["bots"]
    rng = random.Random(5)

    def finish(t: Table) -> str:
        while not t.over:
            v = t.view()
            t.act(rng.choice(v["moves"])["id"])
        return json.dumps(t.record())

    v = table.view()
    table.act(v["moves"][0]["id"])
    saved = table.saved()
    rng.seed(1)
    straight = finish(Table.resume(saved))
    rng.seed(1)
    assert finish(Table.resume({**saved, "bots": fresh})) != straight


def test_a_table_resumes_after_a_restart_and_is_kept_until_closed(tmp_path):
    path = tmp_path / "t.sqlite"
    first = _store(path)
    table_id, _ = first.create(**GAME, opponents=["heuristic"], seed=3, client="c1")
    view = first.view(table_id)
    view = first.act(table_id, view["moves"][0]["id"], view["decisions"])
    if os.name == "posix":  # every hand of every game is in it: for its owner only
        assert path.stat().st_mode & 0o777 == 0o600
    first.shutdown()
    assert not Path(str(path) + "-wal").exists()  # closed cleanly: one file left
    second = _store(path)  # a restarted server
    assert second.instance == first.instance  # the page sees the same server
    again = second.view(table_id)
    assert again["decisions"] == view["decisions"] and again["view"] == view["view"]
    assert again["events"] == view["events"]  # what the person saw last, the same
    with pytest.raises(TableError) as e:  # the move that was played is not played twice
        second.act(table_id, again["moves"][0]["id"], view["decisions"] - 1)
    assert e.value.status == 409
    second.close(table_id)
    with pytest.raises(TableError) as e:
        _store(path).view(table_id)
    assert e.value.status == 404 and str(e.value) == NOT_KEPT


def test_a_stale_copy_notices_the_file_moved_on(tmp_path):
    a, b = _store(tmp_path / "t.sqlite"), _store(tmp_path / "t.sqlite")
    table_id, _ = a.create(**GAME, opponents=["heuristic"], seed=4)
    view = b.view(table_id)  # b holds a copy now
    a.act(table_id, view["moves"][0]["id"], view["decisions"])
    with pytest.raises(TableError) as e:  # the same decision again, at the other process
        b.act(table_id, view["moves"][-1]["id"], view["decisions"])
    assert e.value.status == 409 and "played already" in str(e.value)
    assert b.view(table_id)["decisions"] == a.view(table_id)["decisions"]


def test_of_two_saves_from_one_decision_only_the_first_is_kept(tmp_path):
    saved = SqliteTables(str(tmp_path / "t.sqlite"))
    table = Table(**GAME, opponents=["heuristic"], seed=6)
    saved.insert("x", table.saved())
    before = table.decisions
    table.act(table.view()["moves"][0]["id"])
    assert saved.save_move("x", before, table.saved())
    assert not saved.save_move("x", before, table.saved())  # the loser learns it lost
    assert saved.decisions("x") == table.decisions
    assert not saved.save_move("nope", 0, table.saved())


def test_a_tampered_game_is_refused_whole(tmp_path):
    path = tmp_path / "t.sqlite"
    store = _store(path)
    table_id, _ = store.create(**GAME, opponents=["heuristic"], seed=8)
    view = store.view(table_id)
    store.act(table_id, view["moves"][0]["id"], view["decisions"])
    db = sqlite3.connect(path)
    good = db.execute("SELECT record, bots, seating FROM tables").fetchone()
    record = json.loads(good[0])
    record["totals"] = [99] * 4
    tampered = [("record", json.dumps(record), "totals"), ("record", "{", "JSON"),
                ("bots", "[]", "bot seats"), ("bots", '{"1": {}, "2": {}, "3": {}}', "generators"),
                ("seating", '[null, "x", "x", "x"]', "opponent")]
    for column, value, named in tampered:
        db.execute("UPDATE tables SET record = ?, bots = ?, seating = ?", good)
        db.execute(f"UPDATE tables SET {column} = ?", (value,))
        db.commit()
        with pytest.raises(TableError) as e:  # 409 naming the problem, never a 500
            _store(path).view(table_id)
        assert e.value.status == 409 and "does not resume" in str(e.value)
        assert named in str(e.value), (column, value, str(e.value))
    db.close()


def test_keep_days_deletes_old_tables_from_the_file(tmp_path):
    now = [1_000_000.0]
    saved = SqliteTables(str(tmp_path / "t.sqlite"), clock=lambda: now[0])
    store = TableStore(saved=saved, keep_days=2)
    old, _ = store.create(**GAME, opponents=["heuristic"], seed=1)
    now[0] += 1.5 * 86400
    new, _ = store.create(**GAME, opponents=["heuristic"], seed=2)
    now[0] += 1 * 86400
    assert store.purge() == 1
    assert saved.decisions(old) is None and saved.decisions(new) is not None
    with pytest.raises(ValueError, match="needs a store on disk"):
        TableStore(keep_days=2)


def test_a_version_1_file_opens_and_its_table_plays_on(tmp_path):
    path = tmp_path / "v1.sqlite"
    shutil.copy(FIXTURE_V1, path)
    saved = SqliteTables(str(path))
    assert saved.schema_version == SCHEMA_VERSION
    store = TableStore(saved=saved)
    table_id = sqlite3.connect(path).execute("SELECT id FROM tables").fetchone()[0]
    view = store.view(table_id)
    while not view["over"]:
        view = store.act(table_id, view["moves"][0]["id"], view["decisions"])
    assert store.record(table_id)["over"]


def test_a_newer_or_foreign_file_is_refused_by_name(tmp_path):
    newer = tmp_path / "newer.sqlite"
    shutil.copy(FIXTURE_V1, newer)
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1} was written by "
                                         f"a newer stichzoo"):
        SqliteTables(str(newer))
    foreign = tmp_path / "foreign.sqlite"
    db = sqlite3.connect(foreign)
    db.execute("CREATE TABLE songs (title TEXT)")
    db.close()
    with pytest.raises(StoreError, match="not a stichzoo table store"):
        SqliteTables(str(foreign))
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a SQLite database"):
        SqliteTables(str(junk))


def test_with_a_file_a_full_memory_makes_room_instead_of_refusing(tmp_path):
    """max_tables bounds the tables in memory; with a file the one used longest ago leaves
    memory (not the file) for a new one, and comes back at its next request."""
    store = _store(tmp_path / "t.sqlite", max_tables=2)
    first, _ = store.create(**GAME, opponents=["heuristic"], seed=1)
    second, _ = store.create(**GAME, opponents=["heuristic"], seed=2)
    store.view(second)
    third, _ = store.create(**GAME, opponents=["heuristic"], seed=3)
    assert len(store) == 2 and first not in store._tables and third in store._tables
    assert store.view(first)["seed"] == 1  # resumed from the file
    in_memory = TableStore(max_tables=1)
    in_memory.create(**GAME, opponents=["heuristic"], seed=1)
    with pytest.raises(TableError) as e:
        in_memory.create(**GAME, opponents=["heuristic"], seed=2)
    assert e.value.status == 503


def test_serve_stops_at_a_store_it_cannot_use(tmp_path, capsys):
    """stichzoo serve names the file and the reason, and does not start."""
    from stichzoo.training.cli import main

    newer = tmp_path / "newer.sqlite"
    shutil.copy(FIXTURE_V1, newer)
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    assert main(["serve", "--levels", "--store", str(newer), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert str(newer) in err and "newer stichzoo" in err and "Traceback" not in err
