"""The batch trainer's chain (``algo: batch_ppo``): pretrain -> start -> expert -> PPO.

    stichzoo train configs/expert/wizard.yaml      (training/train.py calls train_batch)

Each stage is one config section and one algorithm module; this module runs them
in order on one network and keeps what each measured for the run's records (the
summary's ``pretrain`` and ``expert`` entries, their TensorBoard points):

1. ``pretrain`` - imitate a teacher in every seat of a batch of games
   (training/trainers/labels.py's data, pretrain.py's fit), with a critic of
   the run's own (``train.critic``) fitted to the same decisions' returns;
2. ``expert.start`` - a bot's network instead of the fresh or imitating one
   (training/trainers/from_bot.py);
3. ``expert`` - expert iteration (training/trainers/expert.py).  A start that
   bids from a trick model (Wizard, training/fit/bid_model.py) keeps its bids:
   each iteration's network is exported with them as the bot the run will ship,
   and that bot plays the learner's games and is evaluated;
4. PPO (training/trainers/ppo.py) for ``train.total_timesteps`` learner samples.

A stage whose section is off (``pretrain.steps: 0``, no ``expert.start``,
``expert.steps: 0``) is skipped; a resumed run goes straight to PPO, since its
checkpoint holds the network the stages made.  The recipes that make the
shipped bots (scripts/recipes/) run this chain through ``stichzoo train``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from stichzoo.training.runs import RunPaths
from stichzoo.training.trainers.ppo import BatchRun, open_run, train_ppo


def train_batch(cfg: dict, run_dir: str | None = None, resume: bool = False,
                progress_bar: bool = True, verbose: bool = True) -> str:
    """Train per ``cfg`` on the batch engine, every stage it names; returns the run folder."""
    run = open_run(cfg, run_dir, resume)
    run.stages = {"pretrain": None, "expert": None}  # the summary names both, run or not
    if run.checkpoint is None:
        pretrain(run, verbose)
        start(run)
        expert(run, verbose)
    return train_ppo(run, progress_bar, verbose)


def pretrain(run: BatchRun, verbose: bool) -> None:
    """The warm start (``pretrain``): the teacher's decisions in every seat, fitted on the
    CPU - the policy first, then a critic of the run's own (its fit leaves the policy's
    as it would be without one)."""
    from stichzoo.training.trainers.labels import teacher_data
    from stichzoo.training.trainers.pretrain import behaviour_clone

    cfg, policy, critic = run.cfg, run.policy, run.critic
    section = cfg["pretrain"]
    if section["steps"] <= 0:
        return
    began = time.time()
    data = teacher_data(cfg, section["steps"], seed=cfg["seed"] + 31337, critic=critic)
    if verbose:
        print(f"pretrain: {len(data['action'])} {section['teacher']} decisions (every seat) "
              f"in {time.time() - began:.0f} s", flush=True)
    policy.to("cpu")
    stats = behaviour_clone(policy, data, section["epochs"], section["batch_size"],
                            section["learning_rate"], verbose=verbose,
                            schedule=section["lr_schedule"])
    if critic is not None:
        critic.to("cpu")
        stats.update(critic.warm_start(data, section, verbose))
        critic.to(run.device)
    stats.update(seconds=time.time() - began, samples=float(len(data["action"])))
    policy.to(run.device)
    run.stages["pretrain"] = stats
    run.scalars += [(f"pretrain/{key}", value, 0) for key, value in stats.items()]


def start(run: BatchRun) -> None:
    """``expert.start``: the bot's network replaces the run's (Adam has taken no step yet:
    nothing to reset)."""
    from stichzoo.policies.runtimes.onnx_policy import bot_folder
    from stichzoo.training.trainers.from_bot import load_bot_actor

    if run.cfg["expert"]["start"]:
        load_bot_actor(run.policy.to("cpu"), bot_folder(run.cfg["expert"]["start"]), run.game)
        run.policy.to(run.device)


def expert(run: BatchRun, verbose: bool) -> None:
    """Expert iteration (``expert.steps`` labels per iteration), on the CPU; every number
    it logs goes to TensorBoard at its iteration."""
    from stichzoo.training.trainers.expert import expert_iteration

    if run.cfg["expert"]["steps"] <= 0:
        return
    run.policy.to("cpu")
    run.stages["expert"] = expert_iteration(run.policy, run.cfg, run.paths, run.game, verbose,
                                            lambda *row: run.scalars.append(row),
                                            as_player=start_bids(run.cfg, run.policy,
                                                                 run.game, run.paths))
    run.policy.to(run.device)


def start_bids(cfg: dict, policy, game, paths: RunPaths) -> Callable[[int, str], str] | None:
    """How expert iteration's network after ``k`` iterations plays, when the start bids
    from a trick model (Wizard): the network's card play with the start's bids, exported
    to ``expert/iteration_<k>/`` (training/fit/bid_model.py ``rebid``) - the bot the run
    will ship, so its games and its strength are that bot's.  None for any other start:
    the network plays as itself."""
    from stichzoo.policies.runtimes.onnx_policy import bot_folder
    from stichzoo.training.trainers.from_bot import has_trick_bids

    if not cfg["expert"]["start"]:
        return None
    bids = bot_folder(cfg["expert"]["start"])
    if not has_trick_bids(bids):
        return None

    def player(k: int, path: str) -> str:
        from stichzoo.training.fit.bid_model import rebid

        bot = rebid(policy, bids, os.path.join(paths.root, "expert", f"iteration_{k}"), game,
                    {"expert_iteration": k})
        return f"onnx:path={bot}"

    return player


__all__ = ["expert", "pretrain", "start", "start_bids", "train_batch"]
