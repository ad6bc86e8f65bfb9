"""Kill a table server at random moments and check that no accepted move is lost or doubled.

    .venv/bin/python scripts/checks/chaos_tables.py --kills 200 --out runs/chaos.json
    .venv/bin/python scripts/checks/chaos_tables.py --kills 3 --workers 2   # the test's size

Starts a real ``stichzoo serve --store FILE`` (scripts/served.py) and drives
tables with ``--clients`` concurrent clients (threads, httpx): half play
person-vs-bot tables with random legal moves (sometimes sending one move
twice at once), half bot-vs-bot ones whose human seat asks the server's
heuristic bot (``POST /bots/<game>-heuristic/act``) what to play.  A killer
SIGKILLs the server (its workers too) after a random 0.05-1 s of traffic
and restarts it, ``--kills`` times.  A client whose move got no answer
retries exactly that move (the same ``decisions``) once the server is
back: a 200 means the move had not been kept, a 409 that it had.  A client
knows which of its moves were played: the 200s, and the unanswered ones
whose retry got a 409.

At the end the server is stopped with SIGTERM and the store file is read
directly: every table must resume (its record replays strictly, its bots'
states load), and for every table the person's decisions in its record
must be exactly the moves its client knows were played.  Printed (and with
``--out`` written as JSON): kills, tables, moves answered 200, retries,
``lost`` (a 200 move missing from its record) and ``duplicated`` (a
person's decision in a record that its client did not play once: a move
kept twice), ``unreplayable`` tables and ``errors`` (5xx answers).  The
target is 0 for the last four; the exit status is 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time

import httpx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from served import Served

#: short games, so that tables end and new ones start during the run
GAMES = [{"game": "wizard", "players": 4, "options": {"rounds": [1, 2]}},
         {"game": "hoch_tief", "players": 3, "options": {"rounds": 1}},
         {"game": "wunder_punkt", "players": 4, "options": {"rounds": 1}},
         {"game": "geheimtrumpf", "players": 4, "options": {"round_limit": 1}}]
#: the server's own limits off: the clients are one address, and they are the test
SERVE_ARGS = ["--levels", "random", "heuristic", "--max-tables-per-client", "0",
              "--creations-per-minute", "0", "--searches-per-minute", "0",
              "--max-tables", "100000", "--max-memory-mb", "0"]


class Tally:
    """What the clients saw (shared by the threads, under ``lock``)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = 0         # moves answered 200 (retries included)
        self.retries = 0       # moves sent again after no answer
        self.retry_kept = 0    # ... that the server had kept before it died (409)
        self.retry_played = 0  # ... that it had not (200 to the retry)
        self.doubles = 0       # moves sent twice at once
        self.errors: list[str] = []  # 5xx and other surprises
        #: per table id: the (decision, action) moves its client knows were played
        self.played: dict[str, list] = {}
        #: per table id: the (decision, action) moves answered 200
        self.answered: dict[str, list] = {}


class Client(threading.Thread):
    """Plays its tables one after another until ``stop``; survives the server's deaths."""

    def __init__(self, k: int, base: str, tally: Tally, stop: threading.Event, bot: bool):
        super().__init__(daemon=True)
        self.k, self.base, self.tally, self.stop, self.bot = k, base, tally, stop, bot
        self.rng = random.Random(k)
        # one client each (making one builds an SSL context: too dear per request)
        self.http = httpx.Client(base_url=base, timeout=30)
        self.twin = httpx.Client(base_url=base, timeout=30)

    def call(self, method: str, path: str, body: dict | None = None) -> httpx.Response | None:
        """One request; None when the server gave no answer (it died, or is down)."""
        try:
            return self.http.request(method, path, json=body)
        except httpx.TransportError:  # the pool drops the broken connection itself
            return None

    def until_answered(self, method: str, path: str, body: dict | None = None) -> httpx.Response:
        while True:
            r = self.call(method, path, body)
            if r is not None:
                return r
            time.sleep(0.05)

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.play_table()
        except Exception as e:  # a client's own bug must show in the report
            with self.tally.lock:
                self.tally.errors.append(f"client {self.k}: {type(e).__name__}: {e}")

    def new_table(self) -> dict:
        while True:
            spec = self.rng.choice(GAMES)
            r = self.until_answered("POST", "/tables", {**spec, "opponents": ["heuristic"],
                                                        "seed": self.rng.randrange(1 << 40)})
            if r.status_code == 201:
                return r.json()
            self.note(r, "create")

    def note(self, r: httpx.Response, what: str) -> None:
        if r.status_code >= 500 or r.status_code not in (200, 201, 409):
            with self.tally.lock:
                self.tally.errors.append(f"{what}: {r.status_code} {r.text[:200]}")

    def choose(self, view: dict) -> int:
        if self.bot:
            r = self.call("POST", f"/bots/{view['game']}-heuristic/act", view["view"])
            if r is not None and r.status_code == 200:
                return r.json()["action_id"]
        return self.rng.choice(view["moves"])["id"]

    def play_table(self) -> None:
        view = self.new_table()
        tid = view["table_id"]
        with self.tally.lock:
            self.tally.played[tid] = []
            self.tally.answered[tid] = []
        while not view["over"] and not self.stop.is_set():
            d, action = view["decisions"], self.choose(view)
            body = {"move": action, "decisions": d}
            if not self.bot and self.rng.random() < 0.1:  # the same move twice at once
                view = self.double(tid, body) or view
                continue
            r = self.call("POST", f"/tables/{tid}/act", body)
            if r is None:  # no answer: send exactly this move again once the server is back
                r = self.until_answered("POST", f"/tables/{tid}/act", body)
                with self.tally.lock:
                    self.tally.retries += 1
                    if r.status_code == 409:
                        self.tally.retry_kept += 1
                    elif r.status_code == 200:
                        self.tally.retry_played += 1
                if r.status_code == 409:
                    self.played(tid, d, action, answered=False)
            if r.status_code == 200:
                self.played(tid, d, action, answered=True)
                view = r.json()
            else:
                self.note(r, "act")
                view = self.until_answered("GET", f"/tables/{tid}").json()

    def double(self, tid: str, body: dict) -> dict | None:
        """Send one move twice at once (two connections): one 200 at most, the other 409."""
        answers: list = [None, None]

        def send(i: int) -> None:
            try:
                answers[i] = (self.http, self.twin)[i].post(f"/tables/{tid}/act", json=body)
            except httpx.TransportError:
                answers[i] = None

        threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with self.tally.lock:
            self.tally.doubles += 1
        ok = [a for a in answers if a is not None and a.status_code == 200]
        if len(ok) > 1:
            with self.tally.lock:
                self.tally.errors.append("a move sent twice at once was answered 200 twice")
        if ok:
            self.played(tid, body["decisions"], body["move"], answered=True)
            return ok[0].json()
        view = self.until_answered("GET", f"/tables/{tid}").json()
        if view["decisions"] > body["decisions"]:  # kept, though no answer came back
            self.played(tid, body["decisions"], body["move"], answered=False)
        return view

    def played(self, tid: str, d: int, action: int, answered: bool) -> None:
        with self.tally.lock:
            self.tally.played[tid].append((d, action))
            if answered:
                self.tally.acked += 1
                self.tally.answered[tid].append((d, action))


def check_store(path: str, tally: Tally) -> dict:
    """Every table of the file resumes, and its person's decisions are its client's moves."""
    from stichzoo.policies.tables.store_sqlite import SqliteTables
    from stichzoo.policies.tables.table import Table, TableError

    saved = SqliteTables(path)
    lost = duplicated = unreplayable = 0
    moves = 0
    problems = []
    try:
        for tid in tally.played:
            row = saved.load(tid)
            if row is None:
                problems.append(f"table {tid[:6]}: not in the store")
                lost += len(tally.answered[tid])
                continue
            try:
                Table.resume(row)
            except TableError as e:
                unreplayable += 1
                problems.append(f"table {tid[:6]}: {e}")
            human = row["human_seat"]
            kept = [(i, d["action"]) for i, d in enumerate(row["record"]["decisions"])
                    if d["seat"] == human]
            moves += len(kept)
            missing = set(tally.answered[tid]) - set(kept)
            extra = [m for m in kept if m not in set(tally.played[tid])]
            lost += len(missing)
            duplicated += len(extra)
            if missing or extra:
                problems.append(f"table {tid[:6]}: missing {sorted(missing)}, "
                                f"not played by its client {extra}")
    finally:
        saved.close()
    return {"moves_in_records": moves, "lost": lost, "duplicated": duplicated,
            "unreplayable": unreplayable, "problems": problems[:20]}


def run(kills: int, clients: int = 6, workers: int = 1, store: str | None = None,
        seed: int = 0, log: str | None = None, traffic: float = 1.0,
        progress: bool = False) -> dict:
    """The chaos run; its figures (see the module's docstring).  ``traffic``: the longest
    time between a start and the next kill (seconds; each is drawn from 0.05 to it)."""
    rng = random.Random(seed)
    if store is None or log is None:
        folder = tempfile.mkdtemp(prefix="stichzoo-chaos-")
        store = store or os.path.join(folder, "tables.sqlite")
        log = log or os.path.join(folder, "serve.log")
    server = Served(*SERVE_ARGS, store=store, workers=workers, log=log)
    tally, stop = Tally(), threading.Event()
    started = time.monotonic()
    server.start()
    threads = [Client(k, server.base, tally, stop, bot=k % 2 == 1) for k in range(clients)]
    for t in threads:
        t.start()
    try:
        for k in range(1, kills + 1):
            time.sleep(rng.uniform(0.05, traffic))
            server.kill()
            server.start()
            if progress and k % 10 == 0:
                print(f"{k} kills, {tally.acked} moves answered 200, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        time.sleep(0.5)  # the last retries get their answers
        stop.set()
        for t in threads:
            t.join(timeout=120)
        code = server.terminate()
    finally:
        server.kill()
    result = {"kills": kills, "workers": workers, "clients": clients,
              "tables": len(tally.played), "moves_answered_200": tally.acked,
              "retries": tally.retries, "retries_kept_before": tally.retry_kept,
              "retries_played_now": tally.retry_played, "doubles_sent": tally.doubles,
              "sigterm_exit": code, "errors": tally.errors[:20],
              **check_store(store, tally), "seconds": round(time.monotonic() - started, 1)}
    # uvicorn stops gracefully, then ends by the signal it caught (-15), as a shell expects;
    # the store was closed when its WAL is gone
    result["stopped_cleanly"] = code in (0, -15) and not os.path.exists(store + "-wal")
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=20, help="SIGKILLs of the server (default: 20)")
    p.add_argument("--clients", type=int, default=6, help="concurrent clients (default: 6)")
    p.add_argument("--workers", type=int, default=1, help="server processes (default: 1)")
    p.add_argument("--store", help="the store file (default: a new one in a temp folder)")
    p.add_argument("--seed", type=int, default=0, help="seeds the kill times and the clients")
    p.add_argument("--out", help="also write the figures here as JSON")
    args = p.parse_args()
    result = run(args.kills, args.clients, args.workers, args.store, args.seed, progress=True)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    bad = (result["lost"] or result["duplicated"] or result["unreplayable"]
           or result["errors"] or not result["stopped_cleanly"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
