"""Expert iteration: the network learns the search's judgement, round after round.

Each iteration plays games, has the search teacher (``expert.teacher``,
plain PIMC by default) label every decision with its choice and - with
``expert.targets: values`` - the soft target of its action values
(training/trainers/distil.py) or, with ``improve``, a prior policy reweighted by
those values (``expert.prior``: the network as it stands, or the start's
policy, a fixed anchor), adds them to all the labels so far (aggregation:
the network must not forget the positions of earlier rounds) and fits the
network on the whole set.  The games are the teacher's own
(``expert.positions: teacher``) or the network's own play (``learner``,
DAgger: the positions it reaches are the ones it must judge well, and the
search corrects it there - for a network that already plays, a start bot or
a warm start).

Each iteration logs to TensorBoard (``expert/`` at step = the iteration):
the fidelity *before* fitting on the new labels (how often the network
already plays the search's choice on positions it has not seen, and the
soft-target weight of its choice), the fitted losses, and its strength
against each ``eval.opponents`` (``expert_eval/vs_<opp>/...``, the
periodic evaluation's seed).  The run folder keeps every iteration's
network, ``expert/iteration_<k>.pt`` (after k iterations; 0 is the start).

The network it improves is the caller's: the batch pipeline
(training/trainers/pipeline.py) hands it a fresh, imitating or start bot's
network, and - for a start that bids from a trick model (Wizard) - the
``as_player`` that makes each iteration's network the bot the run will ship,
with the start's bids; that bot then plays the learner's games and is the
one evaluated.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable

import numpy as np
import torch as th

from stichzoo.training.evaluation.run_eval import (
    evaluate_policy_file,
    evaluation_line,
    evaluation_scalars,
)
from stichzoo.training.runs import RunPaths
from stichzoo.training.trainers.distil import improved_targets
from stichzoo.training.trainers.labels import search_labels
from stichzoo.training.trainers.pretrain import behaviour_clone


def fidelity(policy, data: dict[str, np.ndarray]) -> dict[str, float]:
    """How the network plays the labelled positions: agreement with the teacher's choice and,
    with soft targets, the mean target weight of the network's own choice (with
    ``expert.phases``, on the teacher's phases only)."""
    if "labelled" in data:  # expert.phases: the teacher's decisions only
        data = {key: value[data["labelled"]] for key, value in data.items()}
    with th.no_grad():
        dist = policy.get_distribution(th.as_tensor(data["obs"]), action_masks=data["mask"])
        choice = dist.distribution.probs.argmax(1).numpy()
    out = {"agreement": float((choice == data["action"]).mean())}
    if "target" in data:
        out["target_mass"] = float(data["target"][np.arange(len(choice)), choice].mean())
    return out


def masked_logits(policy, data: dict[str, np.ndarray], chunk: int = 4096) -> np.ndarray:
    """The network's log-probabilities of every action (illegal: a large negative)."""
    out = []
    with th.no_grad():
        for i in range(0, len(data["action"]), chunk):
            dist = policy.get_distribution(th.as_tensor(data["obs"][i:i + chunk]),
                                           action_masks=data["mask"][i:i + chunk])
            out.append(dist.distribution.logits.numpy())
    return np.concatenate(out)


def expert_iteration(policy, cfg: dict, paths: RunPaths, game, verbose: bool, log,
                     as_player: Callable[[int, str], str] | None = None) -> dict[str, float]:
    """Run ``expert.iterations`` rounds on ``policy`` (fitted in place, on the CPU).

    ``log(tag, value, iteration)`` receives every number; returns the last
    iteration's stats (the run summary's ``expert`` entry).  ``as_player(k, path)``
    is the policy spec of the network after ``k`` iterations, saved at ``path``
    (called once per network, after it is saved): the learner in its games
    (``positions: learner``) and in its evaluations; by default the network itself.
    """
    from stichzoo.policies.runtimes.torch_policy import save_policy

    e = cfg["expert"]
    folder = os.path.join(paths.root, "expert")
    os.makedirs(folder, exist_ok=True)
    data: dict[str, np.ndarray] | None = None
    stats: dict[str, float] = {}
    start = time.time()

    def saved(k: int) -> str:  # the network after k iterations (0: the start)
        path = os.path.join(folder, f"iteration_{k}.pt")
        save_policy(policy, game, path, {"expert_iteration": k})
        return path

    def spec(k: int, path: str) -> str:  # the network after k iterations, as a player
        return f"ppo:path={path}" if as_player is None else as_player(k, path)

    path = saved(0)
    player_spec = spec(0, path)
    # prior: start - every iteration improves the start's policy (a fixed anchor: the fits
    # cannot compound towards the search's surface); current - the network as it stands
    anchor = copy.deepcopy(policy) if e["prior"] == "start" else None
    anchor_logits: np.ndarray | None = None  # the anchor never moves: its logits, once per label
    for k in range(e["iterations"]):
        player = player_spec if e["positions"] == "learner" else None
        t0 = time.time()
        new = search_labels(cfg, seed=cfg["seed"] + 4242 + 1009 * k, player=player)
        stats = {f"before_{key}": v for key, v in fidelity(policy, new).items()}
        data = new if data is None else {key: np.concatenate([data[key], new[key]])
                                         for key in data}
        if verbose:
            print(f"expert iteration {k + 1}/{e['iterations']}: {len(new['action'])} "
                  f"{e['teacher']} labels of {'the learner' if player else 'its own'} games "
                  f"in {time.time() - t0:.0f} s; agreement before fitting "
                  f"{stats['before_agreement']:.3f}", flush=True)
        fit = data
        if e["targets"] == "improve":  # a prior network's policy, improved by the search
            if anchor is None:
                logits = masked_logits(policy, data)
            else:
                fresh = masked_logits(anchor, new)
                anchor_logits = logits = (fresh if anchor_logits is None
                                          else np.concatenate([anchor_logits, fresh]))
            fit = {**data, "target": improved_targets(logits, data["advantage"],
                                                      e["temperature"])}
        stats.update(behaviour_clone(policy, fit, e["epochs"], e["batch_size"],
                                     e["learning_rate"], verbose=False,
                                     schedule=e["lr_schedule"]))
        stats.update(samples=float(len(data["action"])), seconds=time.time() - start)
        path = saved(k + 1)
        player_spec = spec(k + 1, path)
        for key, value in stats.items():
            log(f"expert/{key}", value, k + 1)
        line = []
        for opp in cfg["eval"]["opponents"]:
            rep = evaluate_policy_file(cfg, path, opp, cfg["eval"]["games"],
                                       seed=cfg["seed"] + 7919, workers=cfg["eval"]["workers"],
                                       player=player_spec)
            for tag, value in evaluation_scalars(rep, cfg["game"], opp, "expert_eval").items():
                log(tag, value, k + 1)
            line.append(evaluation_line(rep, opp))
        if verbose:
            print(f"expert iteration {k + 1}: imitation accuracy {stats['accuracy']:.3f} on "
                  f"{len(data['action'])} labels" + "".join(f" | {x}" for x in line),
                  flush=True)
    return stats
