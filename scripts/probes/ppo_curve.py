"""Learning per sample of batch PPO variants from one shared warm start (docs/lab/ppo.md).

    python scripts/probes/ppo_curve.py warm                                 # the shared start
    python scripts/probes/ppo_curve.py train old 900000                     # dense first layers
    python scripts/probes/ppo_curve.py train new_e2 900000 train.n_epochs=2
    python scripts/probes/ppo_curve.py eval runs/ppo_speed/new_e2/snapshots/<file>.pt 1000

``train``: ``configs/wizard.yaml`` for a fixed sample budget (one torch thread, no
evaluation) from ``runs/ppo_speed/warm.pt``, the variant's ``--set`` overrides after
its name; ``old`` turns the sparse first layers off (the dense forward of before).
``eval``: the policy file against the heuristic, duplicate games on seed 104729 (never
used in training), appended to ``runs/ppo_speed/evals.jsonl``.
"""

from __future__ import annotations

import json
import sys
import time

import torch as th

from stichzoo.training import config
from stichzoo.training.trainers import pipeline, ppo

WARM = "runs/ppo_speed/warm.pt"


def train(variant: str, samples: int, sets: list[str]) -> None:
    if variant.startswith("old"):
        ppo._SparseTrunks.of = staticmethod(lambda *a: None)
    cfg = config.load("configs/wizard.yaml", [
        f"train.total_timesteps={samples}", "train.max_minutes=400", "eval.every=0",
        "train.torch_threads=1", *sets])
    run = ppo.open_run(cfg, f"runs/ppo_speed/{variant}")
    run.stages = {"pretrain": None, "expert": None}
    if variant == "warm":
        pipeline.pretrain(run, True)
        th.save(run.policy.state_dict(), WARM)
        return
    run.policy.load_state_dict(th.load(WARM))
    ppo.train_ppo(run, progress_bar=False, verbose=True)


def evaluate(path: str, games: int) -> None:
    from stichzoo.training.evaluation.run_eval import evaluate_policy_file

    cfg = config.load("configs/wizard.yaml")
    if path == WARM:  # the bare state dict: as a policy file
        from stichzoo.policies.runtimes.torch_policy import save_policy

        policy = ppo.build_network(cfg, config.game_of(cfg))
        policy.load_state_dict(th.load(path))
        path = "runs/ppo_speed/warm_policy.pt"
        save_policy(policy, config.game_of(cfg), path, {"steps": 0})
    start = time.time()
    rep = evaluate_policy_file(cfg, path, "heuristic", games, seed=104729, workers=1)
    me = next(p for p in rep["policies"] if p != rep["baseline"])
    v = rep["versus_baseline"][me]
    row = {"path": path, "games": games, "score_diff": v["score_difference"],
           "win_rate_diff": v["win_rate_difference"], "seconds": time.time() - start}
    print(json.dumps(row))
    with open("runs/ppo_speed/evals.jsonl", "a") as f:
        f.write(json.dumps(row) + "\n")


def main(argv: list[str]) -> None:
    if argv[:1] == ["warm"]:
        train("warm", 0, [])
    elif argv[:1] == ["train"]:
        train(argv[1], int(argv[2]), argv[3:])
    elif argv[:1] == ["eval"]:
        evaluate(argv[1], int(argv[2]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
