"""The table server's speed on its SQLite store: bot moves per second with 1 and 2 workers, and
one table's move latency while another client floods hints.

    .venv/bin/python scripts/bench/serve_tables.py --seconds 20 --moves 200

Starts a real ``stichzoo serve --store FILE`` (scripts/served.py; its default
limits, ``synchronous=FULL``) for each measurement:

- **a kept move**: the time of one ``save_move`` (the UPDATE of a Wizard
  table in play) with ``synchronous=FULL`` - on the disk before the answer -
  and ``NORMAL``, without a server;
- **throughput**: ``--clients`` clients each play tables without pause (the
  person's first legal move; ``--opponents`` in the bot seats) for
  ``--seconds``, with ``--workers 1`` and then 2 (``--workers-list``);
  printed: bot moves per second (the decisions the bots made, as every
  answer's ``decisions`` counts them) and person moves per second.
- **latency under a hint flood**: one client plays ``--moves`` moves at its
  table one after another (heuristic bots), first alone, then while
  ``--flooders`` other clients ask for hints as fast as they can (each on
  its own table, from another address as a proxy would forward it:
  ``--trusted-proxy 127.0.0.1`` and ``X-Forwarded-For``), so the
  ``searches_per_minute`` limit (default 120: a burst of 20, then 2 a
  second) meets them; the moves are timed once every flooder has spent its
  burst (its first 429), so they meet the flood at its steady rate.  Printed: p50 /
  p99 of the moves alone and beside the flood, the hints answered and
  refused (429); once with the default limit, once with none
  (``--searches-per-minute 0``), to show what the limit does.  The
  bot-request latency beside big bodies is scripts/bench/serve_latency.py's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time

import httpx
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from served import Served

#: the tables both measurements play: a short game, so tables end and new ones start
TABLE = {"game": "wizard", "players": 4, "options": {"rounds": [1, 2, 3]}}
#: the flooders' tables: Geheimtrumpf's hint searches the longest of the five games
FLOOD_TABLE = {"game": "geheimtrumpf", "players": 4}
#: the throughput run's own limits off (its clients are one address)
OPEN = ["--max-tables-per-client", "0", "--creations-per-minute", "0", "--max-tables", "100000"]


def throughput(workers: int, clients: int, seconds: float, opponents: str, folder: str) -> dict:
    """Bot and person moves per second over ``seconds`` with ``clients`` busy clients."""
    store = os.path.join(folder, f"throughput-{workers}-{opponents}.sqlite")
    counts = {"bot": 0, "person": 0}
    lock, stop = threading.Lock(), threading.Event()

    def client(base: str) -> None:
        with httpx.Client(base_url=base, timeout=120) as http:
            while not stop.is_set():
                view = http.post("/tables", json={**TABLE, "opponents": [opponents]}).json()
                while not view["over"] and not stop.is_set():
                    before = view["decisions"]
                    r = http.post(f"/tables/{view['table_id']}/act",
                                  json={"move": view["moves"][0]["id"], "decisions": before})
                    assert r.status_code == 200, r.text
                    view = r.json()
                    if not stop.is_set():
                        with lock:
                            counts["person"] += 1
                            counts["bot"] += view["decisions"] - before - 1

    with Served("--levels", *OPEN, store=store, workers=workers) as server:
        threads = [threading.Thread(target=client, args=(server.base,), daemon=True)
                   for _ in range(clients)]
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join(timeout=120)
    return {"workers": workers, "opponents": opponents, "clients": clients,
            "bot_moves_per_s": counts["bot"] / seconds,
            "person_moves_per_s": counts["person"] / seconds}


def _moves(http: httpx.Client, count: int) -> np.ndarray:
    """Milliseconds of ``count`` moves at fresh tables of the mover, one after another."""
    out: list[float] = []
    view = {"over": True}
    while len(out) < count:
        if view["over"]:
            view = http.post("/tables", json={**TABLE, "opponents": ["heuristic"]}).json()
            continue
        t = time.perf_counter()
        r = http.post(f"/tables/{view['table_id']}/act",
                      json={"move": view["moves"][0]["id"], "decisions": view["decisions"]})
        out.append(time.perf_counter() - t)
        assert r.status_code == 200, r.text
        view = r.json()
    return np.array(out) * 1000


def hint_flood(moves: int, flooders: int, workers: int, folder: str, limit: bool) -> dict:
    """The mover's move latency alone and beside ``flooders`` clients asking for hints;
    ``limit``: the default ``searches_per_minute``, else none."""
    store = os.path.join(folder, f"flood-{workers}-{limit}.sqlite")
    # the mover starts many short tables: only the search limit is the server's own
    limits = ["--creations-per-minute", "0", "--max-tables-per-client", "0"]
    limits += [] if limit else ["--searches-per-minute", "0"]
    tally = {"answered": 0, "refused": 0}
    lock, stop = threading.Lock(), threading.Event()

    def flooder(base: str, k: int) -> None:
        headers = {"X-Forwarded-For": f"10.0.0.{k + 1}"}  # another person behind the proxy
        with httpx.Client(base_url=base, timeout=120, headers=headers) as http:
            view = http.post("/tables", json={**FLOOD_TABLE, "opponents": ["heuristic"]}).json()
            while not stop.is_set():
                r = http.post(f"/tables/{view['table_id']}/hint",
                              json={"decisions": view["decisions"]})
                with lock:
                    tally["answered" if r.status_code == 200 else "refused"] += 1
                if r.status_code == 429:  # a well-behaved client waits as told
                    stop.wait(float(r.headers.get("Retry-After", "1")))

    with Served("--levels", "--trusted-proxy", "127.0.0.1", *limits, store=store,
                workers=workers) as server, httpx.Client(base_url=server.base,
                                                         timeout=120) as http:
        _moves(http, 20)  # warm: the first tables and connections
        alone = _moves(http, moves)
        threads = [threading.Thread(target=flooder, args=(server.base, k), daemon=True)
                   for k in range(flooders)]
        for t in threads:
            t.start()
        # the flood at its steady rate: with the limit, after every flooder spent its burst
        # (its first 429); without, after a second
        started = time.monotonic()
        deadline = started + (30.0 if limit else 1.0)
        while time.monotonic() < deadline and (not limit or tally["refused"] < flooders):
            time.sleep(0.05)
        waited = time.monotonic() - started
        beside = _moves(http, moves)
        stop.set()
        for t in threads:
            t.join(timeout=120)
    return {"workers": workers, "moves": moves, "flooders": flooders, "limit": limit,
            "waited_s": waited,
            "alone_p50": float(np.percentile(alone, 50)),
            "alone_p99": float(np.percentile(alone, 99)),
            "flood_p50": float(np.percentile(beside, 50)),
            "flood_p99": float(np.percentile(beside, 99)), **tally}


def commit_cost(saves: int, folder: str) -> dict:
    """Milliseconds per kept move (``SqliteTables.save_move`` of a Wizard table in play) with
    ``synchronous=FULL`` and ``NORMAL``: what the sync to disk before every answer costs."""
    from stichzoo.policies.tables.store_sqlite import SqliteTables
    from stichzoo.policies.tables.table import Table

    table = Table(**{"game_name": TABLE["game"], "num_players": TABLE["players"],
                     "options": TABLE["options"]}, opponents=["heuristic"], seed=1)
    saved = table.saved()
    out = {}
    for sync in ("FULL", "NORMAL"):
        store = SqliteTables(os.path.join(folder, f"commit-{sync}.sqlite"), synchronous=sync)
        store.insert("t", saved)
        times = []
        at = saved["decisions"]
        for _ in range(saves):  # the same table, its count moved on each time
            t = time.perf_counter()
            assert store.save_move("t", at, {**saved, "decisions": at + 1})
            times.append(time.perf_counter() - t)
            at += 1
        store.close()
        out[sync] = np.array(times) * 1000
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=20.0, help="each throughput run")
    p.add_argument("--clients", type=int, default=4, help="busy clients in the throughput run")
    p.add_argument("--opponents", nargs="*", default=["heuristic", "pimc"],
                   help="bot seats of the throughput run's tables, one run each (none: no "
                        "throughput run)")
    p.add_argument("--workers-list", type=int, nargs="+", default=[1, 2])
    p.add_argument("--moves", type=int, default=200, help="moves timed alone and beside")
    p.add_argument("--flooders", type=int, default=2, help="clients flooding hints")
    p.add_argument("--saves", type=int, default=300, help="kept moves timed per synchronous")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="stichzoo-bench-") as folder:
        report(args, folder)
    return 0


def report(args: argparse.Namespace, folder: str) -> None:
    """Run both measurements with their store files in ``folder``; print the tables."""
    cost = commit_cost(args.saves, folder)
    print(f"a kept move (save_move, {args.saves} saves): " + ", ".join(
        f"synchronous={sync} p50 {np.percentile(ms, 50):.2f} ms, p99 "
        f"{np.percentile(ms, 99):.2f} ms" for sync, ms in cost.items()))
    print(f"\nthroughput: {args.clients} clients, {args.seconds:g} s each, {TABLE['game']} "
          f"{TABLE['options']}")
    print(f"{'opponents':<12}{'workers':>8}{'bot moves/s':>14}{'person moves/s':>16}")
    for opponents in args.opponents:
        for workers in args.workers_list:
            r = throughput(workers, args.clients, args.seconds, opponents, folder)
            print(f"{opponents:<12}{workers:>8}{r['bot_moves_per_s']:>14.1f}"
                  f"{r['person_moves_per_s']:>16.1f}")
    print(f"\nmove latency (ms) at one table, {args.moves} moves; {args.flooders} other "
          f"clients flooding hints")
    print(f"{'workers':<9}{'limit':<7}{'alone p50':>10}{'alone p99':>10}{'flood p50':>10}"
          f"{'flood p99':>10}{'p99 ratio':>10}{'hints 200':>10}{'hints 429':>10}"
          f"{'waited s':>10}")
    for workers in args.workers_list:
        for limit in (True, False):
            r = hint_flood(args.moves, args.flooders, workers, folder, limit)
            print(f"{workers:<9}{'120/min' if limit else 'off':<7}{r['alone_p50']:>10.1f}"
                  f"{r['alone_p99']:>10.1f}{r['flood_p50']:>10.1f}{r['flood_p99']:>10.1f}"
                  f"{r['flood_p99'] / r['alone_p99']:>10.2f}{r['answered']:>10}"
                  f"{r['refused']:>10}{r['waited_s']:>10.1f}")


if __name__ == "__main__":
    sys.exit(main())
