"""A real ``stichzoo serve --store FILE``: SIGTERM finishes the moves in flight and closes the
store; two workers share the tables through a short chaos run (SIGKILLs at random moments:
no move answered 200 is lost, none is kept twice, every table resumes).  The long run is
scripts/checks/chaos_tables.py --kills 200 (docs/operations.md)."""

import os
import threading
import time

import httpx
import pytest

from stichzoo.policies.tables.store_sqlite import SqliteTables
from tests.helpers import load_script

served = load_script("scripts/served.py")
chaos = load_script("scripts/checks/chaos_tables.py")

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and signals")


def test_sigterm_finishes_the_moves_in_flight_and_closes_the_store(tmp_path):
    """Four clients play PIMC tables without pause; SIGTERM comes in the middle.  Each
    move answered 200 is in the file, some were answered after the signal (they were in
    flight), and the server leaves one closed file (its WAL checkpointed away)."""
    store = str(tmp_path / "t.sqlite")
    server = served.Served("--levels", "random", "--max-tables-per-client", "0",
                           store=store, log=str(tmp_path / "serve.log")).start()
    last: dict[str, int] = {}  # per table: the decisions of its last 200 answer
    after_signal = []
    signalled = threading.Event()
    lock = threading.Lock()

    def play(k: int) -> None:
        with httpx.Client(base_url=server.base, timeout=60) as http:
            view = http.post("/tables", json={"game": "geheimtrumpf", "players": 4,
                                              "opponents": ["pimc"], "seed": k}).json()
            while not view["over"]:
                try:
                    r = http.post(f"/tables/{view['table_id']}/act",
                                  json={"move": view["moves"][0]["id"],
                                        "decisions": view["decisions"]})
                except httpx.TransportError:
                    return  # the server stopped taking requests
                assert r.status_code == 200, r.text
                view = r.json()
                with lock:
                    last[view["table_id"]] = view["decisions"]
                    if signalled.is_set():
                        after_signal.append(view["decisions"])

    clients = [threading.Thread(target=play, args=(k,)) for k in range(4)]
    for c in clients:
        c.start()
    time.sleep(1.5)
    signalled.set()
    code = server.terminate()
    for c in clients:
        c.join(timeout=60)
    assert code in (0, -15)  # uvicorn stops gracefully, then ends by the signal it caught
    assert not os.path.exists(store + "-wal")  # closed: one file left
    assert last and after_signal, "no move was in flight when SIGTERM came"
    saved = SqliteTables(store)
    assert {tid: saved.decisions(tid) for tid in last} == last
    saved.close()


def test_two_workers_survive_sigkills_without_losing_or_doubling_a_move(tmp_path):
    result = chaos.run(kills=2, clients=4, workers=2, store=str(tmp_path / "t.sqlite"),
                       log=str(tmp_path / "serve.log"), traffic=0.6)
    assert result["errors"] == [] and result["problems"] == []
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["unreplayable"] == 0
    assert result["moves_answered_200"] > 20 and result["doubles_sent"] > 0
    assert result["stopped_cleanly"]
