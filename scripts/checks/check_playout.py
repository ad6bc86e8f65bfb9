"""Check a game's fast play-out against the rules core (default 1M cards).

    python scripts/checks/check_playout.py                    # Hoch & Tief, 3 to 6 players
    python scripts/checks/check_playout.py --game wizard      # Wizard, 3 to 6 players
    python scripts/checks/check_playout.py --cards 100000 --seed 7

From random states of random games (every trick position, many rounds; in
Wizard also before the bids are in), the round is played out twice: by the
game's fast play-out on bare bitmasks (Hoch & Tief's
``uniform_playout``, Wizard's ``rollout_playout``) and card by card through
the rules core as PIMC's own play-out does (Hoch & Tief: a uniformly random
legal card, ``rng.choice(bit_list(legal))``; Wizard: its rollout player,
``FastHeuristic``), with one seed.  The round's scores and the rng's state
after it must be equal (so a search using the fast path chooses exactly
what it chose without it), and the state must be left as it was.  Exits 1
on the first difference, naming the state.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from stichzoo import envs
from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.base import Decision


def _players(game: str):
    """The game's fast play-out, the rules-core player it replaces, and how far to walk in."""
    if game == "wizard":
        from stichzoo.policies.games.wizard import FastHeuristic, rollout_playout

        def rules_move(state, rng):
            return FastHeuristic(state.game).act(Decision(state.game, state))

        return rollout_playout, rules_move, 40
    from stichzoo.policies.games.hoch_tief import uniform_playout

    def uniform_move(state, rng):
        return rng.choice(bit_list(state.legal_mask()))

    return uniform_playout, uniform_move, 30


def _snapshot(s) -> tuple:
    return (s.hands[:], s.totals[:], list(s.trick.cards), s.phase,
            getattr(s, "taken", [])[:], getattr(s, "tricks_won", [])[:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=("hoch_tief", "wizard"), default="hoch_tief")
    ap.add_argument("--cards", type=int, default=1_000_000, help="cards played out in all")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    fast_playout, rules_move, walk = _players(args.game)
    cls = envs.game_class(args.game)
    games = {n: cls(cls.Options(num_players=n)) for n in range(3, 7)}
    rng = random.Random(args.seed)
    cards = rollouts = 0
    start = time.perf_counter()
    while cards < args.cards:
        n = 3 + rollouts % 4
        game = games[n]
        game_seed = rng.getrandbits(32)
        s = game.new_game(game_seed)
        for _ in range(rng.randrange(0, walk * n)):  # into one of the first rounds
            if s.over:
                break
            s.apply(rng.choice(bit_list(s.legal_mask())))
        if s.over:
            continue
        seed = rng.getrandbits(32)
        fast_rng, slow_rng = random.Random(seed), random.Random(seed)
        before = _snapshot(s)
        fast = fast_playout(s, fast_rng)
        slow, r, totals = s.clone(), s.round_index, s.totals
        while not slow.over and slow.round_index == r:
            slow.apply(rules_move(slow, slow_rng))
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
        if before != _snapshot(s):
            print(f"the fast play-out changed its state ({where})")
            return 1
    print(f"ok: {args.game}, {rollouts:,} play-outs, {cards:,} moves, scores and draws equal "
          f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
