"""How well a batch run's critic fitted: its value loss and explained variance over training.

    .venv/bin/python scripts/repro/value_fit.py runs/critic_obs runs/critic_priv

Reads each run's TensorBoard scalars (``tb/batch_ppo``: ``losses/value_loss``,
``losses/explained_variance`` - the rollout's own values against its GAE
returns, measured before the update - and ``charts/episode_return``) and
prints their mean over the first tenth, the last quarter and the whole run,
per rollout (every rollout weighs the same).

    .venv/bin/python scripts/repro/value_fit.py runs/critic_obs runs/critic_priv \
        --decisions 100000 --seed 4711

With ``--decisions`` each run's final critic (its last checkpoint: the
policy's value head, or the privileged critic) also predicts the returns of
the same fresh decisions - the warm-start teacher in every seat, games of
``--seed`` that no training used - against their true Monte Carlo
return-to-go: squared error and explained variance on one common test set;
a privileged critic once more with the hidden input of other decisions
(rows permuted), which tells how much of its fit comes from the deal.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

TAGS = ("losses/value_loss", "losses/explained_variance", "losses/policy_loss",
        "losses/entropy", "losses/approx_kl", "charts/episode_return")


def scalars(run: str) -> dict[str, np.ndarray]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(os.path.join(run, "tb", "batch_ppo"), size_guidance={"scalars": 0},
                           purge_orphaned_data=False)
    acc.Reload()
    have = set(acc.Tags()["scalars"])
    return {tag: np.array([e.value for e in sorted(acc.Scalars(tag), key=lambda e: e.step)])
            for tag in TAGS if tag in have}


def heldout(runs: list[str], decisions: int, seed: int) -> None:
    import torch as th

    from stichzoo.training import config as config_mod
    from stichzoo.training.batch_ppo import _logits_values, _policy
    from stichzoo.training.labels import teacher_data
    from stichzoo.training.privileged import PrivilegedCritic, privileged_size
    from stichzoo.training.runs import RunPaths

    th.set_num_threads(1)
    data = None
    print("| run | critic | decisions | MSE vs return-to-go | explained variance |")
    print("|---|---|---:|---:|---:|")
    for run in runs:
        cfg = config_mod.load(os.path.join(run, "config.yaml"))
        game = config_mod.game_of(cfg)
        if data is None:  # one test set for every run (the first run's game and teacher)
            data = teacher_data(cfg, decisions, seed=seed, privileged=True)
            obs, priv = th.as_tensor(data["obs"]), th.as_tensor(data["privileged"])
            ret = data["return"].astype(np.float64)
        ckpt = th.load(RunPaths(run).latest_checkpoint(".pt")[0], map_location="cpu",
                       weights_only=False)
        policy = _policy(cfg, game, "cpu")
        policy.load_state_dict(ckpt["policy"])
        critic = None
        if "critic" in ckpt:
            critic = PrivilegedCritic(obs.shape[1], privileged_size(game),
                                      cfg["train"]["net_arch"])
            critic.load_state_dict(ckpt["critic"])
        policy.set_training_mode(False)
        with th.no_grad():
            values = np.concatenate([
                _logits_values(policy, obs[i:i + 8192], critic, priv[i:i + 8192])[1].numpy()
                for i in range(0, len(ret), 8192)]).astype(np.float64)
        err = ret - values
        print(f"| {os.path.basename(os.path.normpath(run))} | {cfg['train']['critic']} | "
              f"{len(ret)} | {np.mean(err ** 2):.4f} | {1 - np.var(err) / np.var(ret):.4f} |")
        if critic is not None:  # does it read the deal? the same rows, others' hidden cards
            perm = th.as_tensor(np.random.default_rng(seed).permutation(len(ret)))
            with th.no_grad():
                wrong = np.concatenate([
                    critic(obs[i:i + 8192], priv[perm[i:i + 8192]]).numpy()
                    for i in range(0, len(ret), 8192)]).astype(np.float64)
            err = ret - wrong
            print(f"| {os.path.basename(os.path.normpath(run))} | privileged, another "
                  f"decision's hidden cards | {len(ret)} | {np.mean(err ** 2):.4f} | "
                  f"{1 - np.var(err) / np.var(ret):.4f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--decisions", type=int, default=0,
                    help="also test each final critic on this many fresh teacher decisions")
    ap.add_argument("--seed", type=int, default=4711, help="the test games' seed")
    args = ap.parse_args()
    print("| run | tag | first 10% | last 25% | whole run | rollouts |")
    print("|---|---|---:|---:|---:|---:|")
    for run in args.runs:
        for tag, v in scalars(run).items():
            n = len(v)
            head, tail = v[:max(1, n // 10)], v[-max(1, n // 4):]
            print(f"| {os.path.basename(os.path.normpath(run))} | {tag} | {np.nanmean(head):.4f} "
                  f"| {np.nanmean(tail):.4f} | {np.nanmean(v):.4f} | {n} |")
    if args.decisions:
        heldout(args.runs, args.decisions, args.seed)


if __name__ == "__main__":
    main()
