"""The kernel's exact endgames against their Python referees, position by position.

    python scripts/checks/check_endgame.py                      # every configuration
    python scripts/checks/check_endgame.py --positions 2000 --json build/check_endgame.json

For Wizard and Hoch & Tief at every player count, seeded random positions in a
round's play (random bids and cards), with 1 to ``--max-cards`` cards in the
hand of the seat to act and at a random point of the trick: the kernel's
``solve`` (max^n, envs/kernel/src/<game>_search.c - Wizard's prunes runs of
cards) against the game's ``endgame_values`` (policies/games/<game>.py) for
every seat, every legal card; and, on every fifth position with a choice, PIMC with
``endgame=`` on the kernel against the Python loop: the values, the
standard errors and the search's generator afterwards.  Exits 1 on the first
difference, naming it; prints the positions, cards and searches checked per
configuration.  tests/policies/test_endgame_search_*.py check fewer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

#: (game, players, cards a hand at most): the referee's time bounds the cards
CONFIGS = [("wizard", n, 4 if n <= 4 else 3) for n in (3, 4, 5, 6)] + \
          [("hoch_tief", n, 3) for n in (3, 4, 5, 6)]


def check(game_name: str, n: int, max_cards: int, count: int, seed: int) -> dict:
    import random

    import stichzoo.policies.lab  # noqa: F401 - registers the lab's pimc:endgame=
    from stichzoo import envs
    from stichzoo.envs import kernel
    from stichzoo.envs.core.cards import bit_list
    from stichzoo.policies.base import Decision
    from stichzoo.policies.specs import build_policy, game_policy_module

    cls = envs.game_class(game_name)
    rounds = [60 // n] if game_name == "wizard" else 1
    game = cls(cls.Options(num_players=n, rounds=rounds))
    k = kernel.load(game, force=True)
    referee = game_policy_module(game_name).endgame_values
    rng = random.Random(seed)
    cards_checked = searches = 0
    start = time.perf_counter()
    for i in range(count):
        s = game.new_game(rng.randrange(1 << 30))
        while s.phase_name != "play":
            s.apply(rng.choice(s.legal_actions()))
        cards = 1 + i % max_cards
        hand = s.hands[s.current_player].bit_count()
        for _ in range((hand - cards) * n + rng.randrange(n)):
            s.apply(rng.choice(bit_list(s.legal_mask())))
        rows = kernel.twin(k, s)
        legal = bit_list(s.legal_mask())
        for seat in range(n):
            values, _ = k.solve(rows, 0, 10**12, seat)
            want = referee(s, legal, seat)
            got = [values[a] for a in legal]
            if got != want:
                raise SystemExit(f"{game_name} {n}p position {i} seat {seat}: kernel {got}, "
                                 f"referee {want}")
            cards_checked += len(legal)
        if i % 5 == 0 and len(legal) > 1:
            spec = f"pimc:endgame={max_cards},worlds=3,rollouts=2"
            sides = []
            for kern in (1, 0):
                p = build_policy(f"{spec},kernel={kern}", game, seed=i)
                v = p.values(Decision(game, s))
                sides.append(([(x.action, x.value, x.stderr) for x in v.values],
                              p.rng.getstate()))
            if sides[0] != sides[1]:
                raise SystemExit(f"{game_name} {n}p position {i}: pimc endgame kernel "
                                 f"{sides[0][0]} != loop {sides[1][0]}")
            searches += 1
    return {"game": game_name, "players": n, "max_cards": max_cards, "positions": count,
            "cards": cards_checked, "searches": searches, "mismatches": 0,
            "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    rows = []
    print("game         players  cards<=  positions  cards x seats  searches  mismatches")
    for j, (game, n, cards) in enumerate(CONFIGS):
        row = check(game, n, cards, a.positions, a.seed * 100 + j)
        rows.append(row)
        print(f"{game:12} {n:7} {cards:8} {row['positions']:10} {row['cards']:14} "
              f"{row['searches']:9} {row['mismatches']:11}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    sys.exit(0)


if __name__ == "__main__":
    main()
