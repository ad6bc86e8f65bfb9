"""How well a batch run's critic fitted: its value loss and explained variance over training.

    .venv/bin/python scripts/probes/value_fit.py runs/critic_obs runs/critic_priv

Reads each run's TensorBoard scalars (``tb/batch_ppo``: ``losses/value_loss``,
``losses/explained_variance`` - the rollout's own values against its GAE
returns, measured before the update - and ``charts/episode_return``) and
prints their mean over the first tenth, the last quarter and the whole run,
per rollout (every rollout weighs the same).

    .venv/bin/python scripts/probes/value_fit.py runs/critic_obs runs/critic_priv \
        --decisions 50000 --seed 4711

With ``--decisions`` each run's final critic (its last checkpoint: the
policy's value head, or the privileged critic) also predicts the returns of
the same fresh decisions - the warm-start teacher in every seat, games of
``--seed`` that no training used - against their true Monte Carlo
return-to-go: squared error and explained variance on one common test set;
a privileged critic once more with the hidden cards of a re-deal the seat
could not tell apart (``game.determinize``): what the true deal adds to its fit.
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


def heldout(runs: list[str], count: int, seed: int) -> None:
    import torch as th

    from stichzoo.training import config as config_mod
    from stichzoo.training.lab.privileged import build
    from stichzoo.training.runs import RunPaths
    from stichzoo.training.trainers.ppo import build_network, logits_values

    th.set_num_threads(1)
    data = None
    print("| run | critic | decisions | MSE vs return-to-go | explained variance |")
    print("|---|---|---:|---:|---:|")
    for run in runs:
        cfg = config_mod.load(os.path.join(run, "config.yaml"))
        game = config_mod.game_of(cfg)
        if data is None:  # one test set for every run (the first run's game and teacher)
            data = decisions(cfg, count, seed)
            obs, priv = th.as_tensor(data["obs"]), th.as_tensor(data["privileged"])
            redealt = th.as_tensor(data["redealt"])
            ret = data["return"].astype(np.float64)
        ckpt = th.load(RunPaths(run).latest_checkpoint(".pt")[0], map_location="cpu",
                       weights_only=False)
        policy = build_network(cfg, game, "cpu")
        policy.load_state_dict(ckpt["policy"])
        critic = None
        if "critic" in ckpt:
            critic = build(cfg, game, obs.shape[1])
            critic.load_state_dict(ckpt["critic"])
        policy.set_training_mode(False)
        with th.no_grad():
            values = np.concatenate([
                logits_values(policy, obs[i:i + 8192], critic, priv[i:i + 8192])[1].numpy()
                for i in range(0, len(ret), 8192)]).astype(np.float64)
        err = ret - values
        print(f"| {os.path.basename(os.path.normpath(run))} | {cfg['train']['critic']} | "
              f"{len(ret)} | {np.mean(err ** 2):.4f} | {1 - np.var(err) / np.var(ret):.4f} |")
        if critic is not None:  # does the true deal help? the same rows, hands re-dealt
            with th.no_grad():
                other = np.concatenate([
                    critic(obs[i:i + 8192], redealt[i:i + 8192]).numpy()
                    for i in range(0, len(ret), 8192)]).astype(np.float64)
            err = ret - other
            moved = np.sqrt(np.mean((values - other) ** 2))
            print(f"| {os.path.basename(os.path.normpath(run))} | privileged, the hidden "
                  f"cards re-dealt (its values move by {moved:.4f} RMS) | {len(ret)} | "
                  f"{np.mean(err ** 2):.4f} | {1 - np.var(err) / np.var(ret):.4f} |")


def decisions(cfg: dict, steps: int, seed: int, games: int = 64) -> dict[str, np.ndarray]:
    """The teacher in every seat of ``games`` games (as the warm start's data): observation,
    true hidden cards, the hidden cards of a re-deal the seat could not tell apart
    (``game.determinize``), and the seat's return-to-go; finished games only."""
    import random

    from stichzoo.envs import BatchEnv
    from stichzoo.policies import Decision
    from stichzoo.policies.specs import build_policy
    from stichzoo.training.lab.privileged import privileged_features

    engine = BatchEnv(cfg["game"], games, reward=cfg["env"]["reward"],
                      reward_scale=float(cfg["env"]["reward_scale"]), core="python",
                      **cfg["options"])
    game, n = engine.game, engine.num_players
    teacher = build_policy(cfg["pretrain"]["teacher"], game, seed=seed)
    rng = random.Random(seed)
    obs, _, to_act = engine.reset(seed=seed)
    chains: list[list[list]] = [[[] for _ in range(n)] for _ in range(games)]
    rows: list[tuple] = []
    while len(rows) < steps:
        states = engine.states
        true = privileged_features(game, states, to_act)
        worlds = [game.determinize(s, int(seat), rng) for s, seat in zip(states, to_act)]
        redealt = privileged_features(game, worlds, to_act)
        actions = [teacher.act(Decision(game, s, s.current_player)) for s in states]
        for r in range(games):
            chains[r][to_act[r]].append([obs[r].copy(), true[r], redealt[r], 0.0])
        obs, _, to_act, rewards, dones = engine.step(np.array(actions, np.int64))
        for r, seat in zip(*np.nonzero(rewards)):
            if chains[r][seat]:
                chains[r][seat][-1][3] += float(rewards[r, seat])
        for r in np.flatnonzero(dones):
            for chain in chains[r]:
                g = 0.0
                for item in reversed(chain):  # gamma 1 as the recipe; the return-to-go
                    g = item[3] + float(cfg["train"]["gamma"]) * g
                    item[3] = g
                rows.extend(tuple(item) for item in chain)
            chains[r] = [[] for _ in range(n)]
    rows = rows[:steps]
    return {"obs": np.stack([r[0] for r in rows]), "privileged": np.stack([r[1] for r in rows]),
            "redealt": np.stack([r[2] for r in rows]),
            "return": np.array([r[3] for r in rows], np.float32)}


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
