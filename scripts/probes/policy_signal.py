"""How well the shipped Wizard network's likelihood picks out the true deal (issue 29 item 3).

    .venv/bin/python scripts/probes/policy_signal.py [--games 24] [--seed 2000] [--candidates 63]

Rounds of 8 cards, 4 PIMC players at their defaults.  At the play decisions
after 0, 4, 12 and 20 cards played (two or more legal cards), the acting
seat's view: the true hidden hands and ``--candidates`` uniform re-deals
(the candidates ``pimc:policy`` draws) are scored by the log-likelihood of
the other seats' decisions this round under the shipped network - the bids
alone, their last 8 card plays alone, and both.  Printed per stage and
likelihood: the true deal's rank among the candidates (0.5: no signal, 1:
always the likeliest; ties count half) and its log-likelihood minus the
candidates' mean (nats).  Deterministic for its arguments.
"""

from __future__ import annotations

import argparse
import random
import statistics

import numpy as np

from stichzoo.envs.registry import game_class
from stichzoo.envs.wizard.rules import PLAY
from stichzoo.policies import make_policy
from stichzoo.policies.base import Decision
from stichzoo.policies.lab.policy_inference import PolicyInference

STAGES = (0, 4, 12, 20)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--seed", type=int, default=2000)
    ap.add_argument("--candidates", type=int, default=63)
    args = ap.parse_args(argv)
    cls = game_class("wizard")
    game = cls(cls.Options(num_players=4, rounds=[8]))
    bids = PolicyInference(game, 1.0)
    plays = PolicyInference(game, 1.0, plays=8)
    rng = random.Random(args.seed)
    res: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for g in range(args.games):
        s = game.new_game(args.seed + g)
        bots = [make_policy("pimc", game, seed=args.seed * 10 + g * 4 + i) for i in range(4)]
        while not s.over:
            c = s.played.bit_count()
            if s.phase == PLAY and c in STAGES and len(s.legal_actions()) > 1:
                seat = s.current_player
                hands, _ = bids.candidate_hands(s, seat, rng, args.candidates)
                hs = [s.hands, *hands]
                lb = bids.log_likelihoods(bids.decisions(s, seat), hs)
                lp = plays.log_likelihoods(plays.decisions(s, seat), hs) - lb
                scored = (("bids", lb), ("last 8 plays", lp), ("bids + last 8 plays", lb + lp))
                for name, ll in scored:
                    rank = float(np.mean(ll[1:] < ll[0]) + 0.5 * np.mean(ll[1:] == ll[0]))
                    res.setdefault((c, name), []).append((rank, float(ll[0] - ll[1:].mean())))
            s.apply(bots[s.current_player].act(Decision(game, s)))
    print("| cards played | likelihood | decisions | rank of the true deal | "
          "true - mean candidate (nats) |")
    print("|---|---|---|---|---|")
    for (c, name), v in sorted(res.items()):
        ranks, gaps = zip(*v)
        print(f"| {c} | {name} | {len(v)} | {statistics.fmean(ranks):.3f} | "
              f"{statistics.fmean(gaps):+.2f} |")


if __name__ == "__main__":
    main()
