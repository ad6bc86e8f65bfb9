"""A privileged critic for the batch trainer (``train.critic: privileged``), a lab option.

    python -m stichzoo.training.lab train configs/lab/batch/hoch_tief.yaml \\
        --set train.critic=privileged

During training the value network may see the whole deal (PerfectDou,
Suphx's oracle): it reads the seat's own observation *and* the hidden part
of the deal, taken from the batch engine's true rules state.  The actor -
the network that is saved to ``policy.pt`` and exported to ONNX - reads the
seat's observation only, so the bot plays from what its seat can see; the
critic only shapes the advantages it learns from (less variance: the value
of a position no longer has to average over the hands it cannot see).

The privileged input (:func:`privileged_features`), per decision of seat
``s``: every other seat's current hand as card bits (``game.deck.size``
bits each), in seat order relative to the learner (``s + 1``, ``s + 2``,
...: the observation's own convention).  In Hoch & Tief, Wizard, Silberne
Ananas and Wunder Punkt the other hands are the hidden part of the round
(Wunder Punkt's face-down picks and Geheimtrumpf's secret trump and tasks
are not encoded; Geheimtrumpf's hands are public, so there the critic
learns nothing new).  Numpy only; :class:`PrivilegedCritic` is the torch
module.

It plugs into the batch trainer through the table of critics
(training/trainers/critics.py): the lab's ``__init__`` registers :func:`build`
as ``privileged``, so ``python -m stichzoo.training.lab train`` has it (the
product's ``stichzoo train`` refuses the name, naming that command).
Measured on Hoch & Tief and not shipped: scripts/probes/privileged_critic.sh,
docs/lab/privileged_critic.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch as th
from torch import nn

from stichzoo.envs.core.batch import masks_into
from stichzoo.training.trainers.pretrain import lr_scheduler


def privileged_size(game) -> int:
    """Width of the privileged input: the other seats' hands, ``deck.size`` bits each."""
    return (game.num_players - 1) * game.deck.size


def privileged_features(game, states: Sequence, seats: Sequence[int],
                        out: np.ndarray | None = None) -> np.ndarray:
    """``(len(states), privileged_size(game))`` float32: row ``i`` is what seat ``seats[i]``
    of ``states[i]`` cannot see - the hands of seats ``seats[i] + 1, + 2, ...`` (mod n)."""
    n, size = game.num_players, game.deck.size
    rows = len(states)
    if out is None:
        out = np.zeros((rows, (n - 1) * size), np.float32)
    if rows == 0:
        return out
    masks = [state.hands[(seat + k) % n] for state, seat in zip(states, seats)
             for k in range(1, n)]
    bits = np.zeros((rows * (n - 1), size), np.int8)
    masks_into(bits, masks, size)
    out[:] = bits.reshape(rows, (n - 1) * size)
    return out


class PrivilegedCritic(nn.Module):
    """The value network of ``train.critic: privileged``: an MLP (``net_arch``, ReLU) over
    the observation and the privileged input, concatenated; one value per row.  A
    :class:`~stichzoo.training.trainers.critics.Critic` of ``game`` (which the trainer's
    :meth:`inputs` read; a critic only evaluated needs none)."""

    def __init__(self, obs_size: int, privileged: int, net_arch: Sequence[int], game=None):
        super().__init__()
        layers: list[nn.Module] = []
        width = obs_size + privileged
        for size in net_arch:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)
        self.obs_size, self.width, self.game = obs_size, privileged, game

    def forward(self, obs: th.Tensor, privileged: th.Tensor) -> th.Tensor:
        return self.net(th.cat([obs, privileged], dim=1)).flatten()

    def inputs(self, states: Sequence, seats: Sequence[int]) -> np.ndarray:
        """The other seats' hands at each decision (:func:`privileged_features`)."""
        return privileged_features(self.game, states, seats)

    def warm_start(self, data: dict[str, np.ndarray], section: dict,
                   verbose: bool) -> dict[str, float]:
        """:func:`fit_critic` on the warm start's decisions, by ``pretrain``'s settings."""
        fitted = fit_critic(self, data, section["epochs"], section["batch_size"],
                            section["learning_rate"], section["lr_schedule"], verbose)
        return {"critic_value_loss": fitted["value_loss"]}


def build(cfg: dict, game, obs_size: int) -> PrivilegedCritic:
    """The table's builder: the run's ``net_arch`` over the observation and the hands."""
    return PrivilegedCritic(obs_size, privileged_size(game), cfg["train"]["net_arch"], game)


def fit_critic(critic: PrivilegedCritic, data: dict[str, np.ndarray], epochs: int,
               batch_size: int, lr: float, schedule: str = "constant",
               verbose: bool = True) -> dict[str, float]:
    """The warm start's value regression for the privileged critic: the teacher's
    return-to-go from (observation, privileged input: ``data["critic_input"]``), squared
    error - what ``behaviour_clone`` does for the observation critic, on the same
    decisions."""
    optimizer = th.optim.Adam(critic.parameters(), lr=lr)
    n = len(data["return"])
    scheduler = lr_scheduler(optimizer, schedule, epochs * -(-n // batch_size))
    obs, priv = th.as_tensor(data["obs"]), th.as_tensor(data["critic_input"])
    returns = th.as_tensor(data["return"])
    gen = np.random.default_rng(0)
    loss_v = 0.0
    for epoch in range(epochs):
        order = gen.permutation(n)
        loss_v = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            loss = nn.functional.mse_loss(critic(obs[idx], priv[idx]), returns[idx])
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(critic.parameters(), 0.5)
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            loss_v += loss.item() * len(idx) / n
        if verbose:
            print(f"privileged critic epoch {epoch + 1}/{epochs}: value loss {loss_v:.4f}",
                  flush=True)
    return {"value_loss": loss_v}


__all__ = ["PrivilegedCritic", "build", "fit_critic", "privileged_features", "privileged_size"]
