"""Check Hoch & Tief's fast uniform play-out against the rules core (default 1M cards).

    python scripts/repro/check_playout.py                    # 3 to 6 players, 1,000,000 cards
    python scripts/repro/check_playout.py --cards 100000 --seed 7

From random mid-round states (every trick position, later rounds too), the
round is played out twice with one seed: by ``policies.hoch_tief.uniform_playout``
on bare bitmasks and card by card through the rules core, drawing
``rng.choice(bit_list(legal))`` as PIMC's own play-out does.  The round's
scores and the rng's state after it must be equal (so a search using the
fast path chooses exactly what it chose without it), and the state must be
left as it was.  Exits 1 on the first difference, naming the state.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from stichzoo import envs
from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.hoch_tief import uniform_playout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=1_000_000, help="cards played out in all")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cls = envs.game_class("hoch_tief")
    games = {n: cls(cls.Options(num_players=n)) for n in range(3, 7)}
    rng = random.Random(args.seed)
    cards = rollouts = 0
    start = time.perf_counter()
    while cards < args.cards:
        n = 3 + rollouts % 4
        game = games[n]
        game_seed = rng.getrandbits(32)
        s = game.new_game(game_seed)
        for _ in range(rng.randrange(0, 15 * n * 2)):  # into the first or second round
            if s.over:
                break
            s.apply(rng.choice(bit_list(s.legal_mask())))
        if s.over:
            continue
        seed = rng.getrandbits(32)
        fast_rng, slow_rng = random.Random(seed), random.Random(seed)
        before = (s.hands[:], s.taken[:], list(s.trick.cards), s.totals[:])
        fast = uniform_playout(s, fast_rng)
        slow, r, totals = s.clone(), s.round_index, s.totals
        while not slow.over and slow.round_index == r:
            slow.apply(slow_rng.choice(bit_list(slow.legal_mask())))
            cards += 1
        expected = [a - b for a, b in zip(slow.totals, totals, strict=True)]
        rollouts += 1
        where = f"{n} players, play-out {rollouts}, game seed {game_seed}, rng seed {seed}"
        if fast != expected:
            print(f"DIFFERENT scores ({where}): fast {fast}, rules core {expected}")
            return 1
        if fast_rng.getstate() != slow_rng.getstate():
            print(f"DIFFERENT draws ({where})")
            return 1
        if before != (s.hands, s.taken, s.trick.cards, s.totals):
            print(f"the fast play-out changed its state ({where})")
            return 1
    print(f"ok: {rollouts:,} play-outs, {cards:,} cards, scores and draws equal "
          f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
