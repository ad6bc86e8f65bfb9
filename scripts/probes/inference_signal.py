"""Is there a signal to infer from?  Rollout-player agreement in the true deal vs in sampled worlds.

    .venv/bin/python scripts/probes/inference_signal.py [--games wizard geheimtrumpf bids]

Before an inference is built on a model of the other players (issue 29,
item 3), this measures whether the model separates the true hidden state
from the uniform worlds PIMC samples.  PIMC at its defaults plays every
seat; at sampled decisions, each other seat's earlier decisions are
compared with what the game's rollout player would have decided:

* **wizard** (one 8-card round, 4 players, 30 deals): at every 6th
  decision from the ninth card played on, the share of the other seats'
  plays this round (two or more legal cards) that ``FastHeuristic`` would
  have made, replayed in the true deal and in 5 uniform worlds
  (``determinize``) - mean over decisions;
* **geheimtrumpf** (4 players, 3 rounds, 8 games): at every card-draft pick
  of the start player (who alone knows the trumps), whether the rollout
  player's pick (``Rollout.take``) under each trump draw that agrees with
  the announced row winners equals the real pick - the true draw against
  the others.

* **bids**: the spread of PIMC's Wizard bids (4 players, 6 whole games) around
  ``estimate_tricks`` of the bidder's hand, per hand size - the fit behind
  ``policies.wizard.BID_SPREAD``.

An agreement that barely differs between the true state and the worlds
means an inference built on that model would weight the worlds almost
alike (docs/lab/inference.md).
"""

from __future__ import annotations

import argparse
import random
import statistics

from stichzoo.envs.registry import game_class
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision


def wizard(deals: int = 30) -> str:
    from stichzoo.policies.games.wizard import FastHeuristic

    cls = game_class("wizard")
    game = cls(cls.Options(num_players=4, rounds=[8]))
    rollout = FastHeuristic(game)

    def agreements(world, seat: int) -> list[bool]:
        replay = game.new_state(world.deck_orders)
        out = []
        for p, a in world.history:
            if p != seat and replay.phase_name == "play" and len(replay.legal_actions()) > 1:
                out.append(rollout.act(Decision(game, replay)) == a)
            replay.apply(a)
        return out

    true, uniform = [], []
    for d in range(deals):
        bots = [make_policy("pimc", game, seed=d * 4 + i) for i in range(4)]
        s = game.new_state(game.deal(random.Random(d)))
        k = 0
        while not s.over:
            p = s.current_player
            if s.phase_name == "play" and k % 6 == 0 and s.played.bit_count() >= 8:
                seen = agreements(s, p)
                if seen:
                    true.append(statistics.fmean(seen))
                    worlds = [agreements(game.determinize(s, p, random.Random(j)), p) or [0]
                              for j in range(5)]
                    uniform.append(statistics.fmean(statistics.fmean(w) for w in worlds))
            s.apply(bots[p].act(Decision(game, s)))
            k += 1
    return (f"wizard: {len(true)} decisions; the other seats' plays agree with FastHeuristic "
            f"{statistics.fmean(true):.3f} in the true deal, {statistics.fmean(uniform):.3f} "
            f"in uniform worlds")


def geheimtrumpf(games: int = 8) -> str:
    from stichzoo.envs.geheimtrumpf.rules import CARD_DRAFT, consistent_trumps
    from stichzoo.policies.games.geheimtrumpf import Rollout

    cls = game_class("geheimtrumpf")
    game = cls(cls.Options(num_players=4, round_limit=3))
    rollout = Rollout(game, seed=0)
    true, other = [], []
    for d in range(games):
        bots = [make_policy("pimc", game, seed=d * 4 + i) for i in range(4)]
        s = game.new_state(game.deal(random.Random(d)))
        while not (s.over or s.truncated):
            p = s.current_player
            a = bots[p].act(Decision(game, s))
            if s.phase == CARD_DRAFT and p == s.start and len(s.legal_actions()) > 1:
                card = a - game.TAKE0
                real = (s.trumps.suit, s.trumps.value)
                for key in consistent_trumps(s):
                    c = s.clone()
                    c.set_trumps(*key)
                    (true if key == real else other).append(rollout.take(c, p) == card)
            s.apply(a)
    return (f"geheimtrumpf: {len(true)} start-player picks; the rollout player's pick agrees "
            f"{statistics.fmean(true):.3f} under the true trumps, {statistics.fmean(other):.3f} "
            f"under the other consistent draws ({len(other)} pairs)")


def bids(games: int = 6) -> str:
    """The spread of PIMC's Wizard bids around ``estimate_tricks`` (``BID_SPREAD``'s fit)."""
    from stichzoo.policies.games.wizard import ALL, estimate_tricks

    cls = game_class("wizard")
    game = cls(cls.Options(num_players=4))
    by_size: dict[int, list[float]] = {}
    for g in range(games):
        bots = [make_policy("pimc", game, seed=1000 + g * 4 + i) for i in range(4)]
        s = game.new_state(game.deal(random.Random(777 + g)))
        while not s.over:
            p = s.current_player
            a = bots[p].act(Decision(game, s))
            if s.phase_name == "bid":
                h = s.hands[p]
                seen = h | (1 << s.trump_card if s.trump_card >= 0 else 0)
                est = estimate_tricks(h, ALL & ~seen, s.trump if s.trump >= 0 else -1, 4)
                by_size.setdefault(s.hand_size, []).append(a - game.bid0 - est)
            s.apply(a)
    spread = ", ".join(f"{r}: {statistics.pstdev(d):.2f}" for r, d in sorted(by_size.items()))
    return (f"bids: {sum(map(len, by_size.values()))} PIMC bids; spread of bid - estimate by "
            f"cards in hand: {spread}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    measures = {"wizard": wizard, "geheimtrumpf": geheimtrumpf, "bids": bids}
    ap.add_argument("--games", nargs="+", default=list(measures), choices=list(measures))
    args = ap.parse_args()
    for name in args.games:
        print(measures[name](), flush=True)


if __name__ == "__main__":
    main()
