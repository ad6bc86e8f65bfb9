"""Latency of small bot requests, alone and beside a heavy neighbour.

    .venv/bin/python scripts/bench/serve_latency.py --requests 300 --neighbours 2

Starts ``stichzoo serve`` (trained bots only) in a subprocess (scripts/served.py), then times
small ``POST /bots/<game>/act`` requests one after another: first alone,
then while ``--neighbours`` clients keep posting bodies just under the body
limit (JSON the server must parse before it can refuse the view).  Prints
p50 / p99 of both runs side by side.  Request work runs in worker threads,
so the neighbour should cost the small requests little.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import sys
import threading
import time

import httpx
import numpy as np

from stichzoo import envs

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from served import Served


def _views(game_name: str, count: int) -> list[dict]:
    cls = envs.game_class(game_name)
    game = cls(cls.Options())
    module = importlib.import_module(f"stichzoo.envs.{game_name}.view")
    rng, out = random.Random(0), []
    state = game.new_game(seed=0)
    while len(out) < count:
        if state.over or state.truncated:
            state = game.new_game(seed=rng.randrange(1 << 30))
        out.append(module.to_view(state, state.current_player))
        state.step(rng.choice(state.legal_actions()))
    return out


def _time(base: str, game: str, views: list[dict]) -> np.ndarray:
    out = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for view in views:
            t = time.perf_counter()
            r = client.post(f"/bots/{game}/act", json=view)
            out.append(time.perf_counter() - t)
            assert r.status_code == 200, r.text
    return np.array(out) * 1000


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="wizard", choices=list(envs.GAMES))
    p.add_argument("--requests", type=int, default=300)
    p.add_argument("--neighbours", type=int, default=2)
    p.add_argument("--body-bytes", type=int, default=(1 << 20) - 1024,
                   help="size of each heavy body (default: just under the 1 MiB limit)")
    args = p.parse_args()

    server = Served(store="memory").start()  # the trained bots only (--levels with none)
    base = server.base
    try:
        views = _views(args.game, args.requests)
        alone = _time(base, args.game, views)

        heavy = json.dumps({"game": args.game, "pad": [0] * ((args.body_bytes - 40) // 3)})
        assert len(heavy) <= args.body_bytes
        stop, heavy_done = threading.Event(), [0]

        def neighbour():
            with httpx.Client(base_url=base, timeout=60) as client:
                while not stop.is_set():
                    client.post(f"/bots/{args.game}/act", content=heavy,
                                headers={"Content-Type": "application/json"})
                    heavy_done[0] += 1

        threads = [threading.Thread(target=neighbour, daemon=True)
                   for _ in range(args.neighbours)]
        for t in threads:
            t.start()
        time.sleep(0.5)
        beside = _time(base, args.game, views)
        stop.set()
        for t in threads:
            t.join(timeout=30)
    finally:
        server.terminate()

    print(f"{args.requests} small {args.game} requests; heavy neighbour: {args.neighbours} "
          f"client(s), {len(heavy)} B bodies, {heavy_done[0]} sent")
    print(f"{'':24}{'p50 ms':>10}{'p99 ms':>10}")
    for label, ms in (("alone", alone), ("beside heavy neighbour", beside)):
        print(f"{label:24}{np.percentile(ms, 50):>10.1f}{np.percentile(ms, 99):>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
