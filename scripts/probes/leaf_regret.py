"""How well a leaf value tells an action from its siblings, in the true world (Hoch & Tief).

    .venv/bin/python scripts/probes/leaf_regret.py --models policies/models/hoch_tief.onnx \\
        --depths 0 1 2 4 --rounds 25 --seed 5

A leaf value (``pimc:leaf=``) replaces PIMC's uniform play-out of a world by a
network's estimate of it.  Across positions the network explains much of
the outcome, but a search compares *sibling* actions in one world, which
differ by a card or two.  This probe asks how well each estimator ranks the
siblings where nothing is hidden: on positions of heuristic self-play (one
round, 4 players, every decision with two or more legal cards drawn with
chance 0.3; positions where a card ends the round are skipped, there every
estimator is exact), each legal card's reference value is the mean margin of
``--reference`` uniform play-outs from the true state after it - what PIMC's
evaluation estimates.  Then, with ``--samples`` samples per card:

- ``random``: that many uniform play-outs (PIMC's own estimate in one world);
- per model and depth: ``depth`` tricks of uniform play (``leaf.advance``),
  then the network's value.

Per estimator: the regret of its choice (the reference's best minus the
reference's value of the chosen card, points per decision), how often it
picks the reference's best, and the mean correlation of its values with the
reference's over the siblings.  Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from stichzoo.envs.hoch_tief.rules import HochTiefGame, HochTiefOptions
from stichzoo.policies.base import Decision
from stichzoo.policies.games.hoch_tief import Heuristic, uniform_playout
from stichzoo.policies.runtimes.leaf_value import LeafModel, advance, over, play, position, scores
from stichzoo.policies.search import margin


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", required=True, help="leaf value files (.onnx)")
    ap.add_argument("--depths", nargs="+", type=int, default=[0, 4])
    ap.add_argument("--rounds", type=int, default=25)
    ap.add_argument("--samples", type=int, default=36)
    ap.add_argument("--reference", type=int, default=400)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    game = HochTiefGame(HochTiefOptions(num_players=4, rounds=1))
    t = game.lookups
    models = [LeafModel.load(p) for p in args.models]
    rng = random.Random(args.seed)
    heuristic = Heuristic(game, seed=0)
    names = ["random"] + [f"{m} depth {d}" for m in args.models for d in args.depths]
    stats: dict[str, list] = {k: [0.0, 0, []] for k in names}
    n = 0

    def playouts(state, seat: int, k: int) -> float:
        return sum(margin(uniform_playout(state, rng), seat) for _ in range(k)) / k

    for _ in range(args.rounds):
        s = game.new_state(game.deal(rng))
        while not s.over:
            legal = s.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                seat = s.current_player
                after = []
                for a in legal:
                    c = s.clone()
                    c.apply(a)
                    after.append(c)
                if not any(c.over for c in after):
                    ref = np.array([playouts(c, seat, args.reference) for c in after])
                    estimates = {"random": [playouts(c, seat, args.samples) for c in after]}
                    for path, model in zip(args.models, models, strict=True):
                        for d in args.depths:
                            leaves = [advance(play(position(s), a, t), d, t, rng)
                                      for a in legal for _ in range(args.samples)]
                            vals = np.empty(len(leaves))
                            open_ = [i for i, p in enumerate(leaves) if not over(p)]
                            if open_:
                                pr = model.predict([leaves[i] for i in open_], seat)
                                vals[open_] = pr[:, 0] - pr[:, 1:].mean(axis=1)
                            for i, p in enumerate(leaves):
                                if over(p):
                                    vals[i] = margin(scores(p, t), seat)
                            estimates[f"{path} depth {d}"] = \
                                vals.reshape(len(legal), args.samples).mean(axis=1)
                    n += 1
                    for k, e in estimates.items():
                        e = np.asarray(e)
                        pick = int(np.argmax(e))
                        stats[k][0] += ref.max() - ref[pick]
                        stats[k][1] += pick == int(np.argmax(ref))
                        if e.std() > 0 and ref.std() > 0:
                            stats[k][2].append(float(np.corrcoef(ref, e)[0, 1]))
            s.apply(heuristic.act(Decision(game, s)))
    print(f"{n} positions, {args.samples} samples per card, reference: {args.reference} "
          f"uniform play-outs in the true world")
    print("| estimator | regret (points/decision) | picks the reference's best | "
          "correlation with the reference |")
    print("|---|---:|---:|---:|")
    for k in names:
        r, agree, corr = stats[k]
        print(f"| {k} | {r / n:.2f} | {agree / n:.2f} | {np.mean(corr):.2f} |")


if __name__ == "__main__":
    main()
