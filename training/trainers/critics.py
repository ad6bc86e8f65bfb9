"""The table of critics apart from the policy: ``train.critic`` names one.

PPO's critic is the policy's own value head over the seat's observation
(``train.critic: observation``, the product's only one).  A critic that reads
more than the observation - the lab's privileged critic sees the whole deal
(training/lab/privileged.py) - is a trainer option tried for strength, so it
lives where it was tried and plugs in here: its module registers a builder
under its name, and the batch trainer (training/trainers/ppo.py) then records
the critic's own input at every learner decision, takes the values from it and
steps its weights beside the policy's.  The product registers none, so an
observation run pays one ``is None`` test per engine step for the hook.

This module imports neither torch nor the lab: the config check reads the table
(a name that is neither ``observation`` nor registered is refused there, a lab
critic with the command that registers it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import torch as th


class Critic(Protocol):
    """What the batch trainer asks of a critic apart from the policy (an ``nn.Module``).

    Its values replace the policy's value head in the advantages and the value
    loss; the actor - what ``policy.pt`` and the exported bot hold - never
    reads its input, so the bot still plays from what its seat can see.
    """

    #: columns of the critic's own input per decision
    width: int

    def inputs(self, states: Sequence, seats: Sequence[int]) -> np.ndarray:
        """``(len(states), width)`` float32: its input for seat ``seats[i]`` of the true
        rules state ``states[i]`` (the batch engine's, during self-play)."""

    def __call__(self, obs: th.Tensor, inputs: th.Tensor) -> th.Tensor:
        """One value per row, from the observation and the critic's input."""

    def warm_start(self, data: dict[str, np.ndarray], section: dict,
                   verbose: bool) -> dict[str, float]:
        """Fit to the warm start's returns (``data["critic_input"]`` holds its input);
        ``section`` is the config's ``pretrain``.  Its stats, for the run summary."""

    # and nn.Module's own: parameters, state_dict, load_state_dict, to


#: (config, game, observation size) -> the critic, its first weights drawn from torch's
#: global generator (the trainer builds it right after the seeded policy)
CriticBuilder = Callable[[dict, Any, int], Critic]

#: ``train.critic`` name -> builder; filled by the modules that define one when imported
CRITICS: dict[str, CriticBuilder] = {}

#: the lab's critics, by name: the product refuses them with the command that has them
LAB_CRITICS = {"privileged": "training/lab/privileged.py"}


def register_critic(name: str, builder: CriticBuilder) -> None:
    """Make ``train.critic: <name>`` build a critic with ``builder``."""
    CRITICS[name] = builder


def check_critic(name: str, algo: str = "batch_ppo") -> None:
    """Refuse a ``train.critic`` no module registered; a lab critic by its lab command.

    Under another ``algo`` than the batch trainer's a lab critic passes here: that
    trainer's own check refuses any critic but ``observation``, and its reason (SB3's
    policy, RLlib's module read the observation alone) is the one that helps.
    """
    if name == "observation" or name in CRITICS:
        return
    if name in LAB_CRITICS:
        if algo != "batch_ppo":
            return
        raise ValueError(f"config: train.critic={name!r} is a lab option "
                         f"({LAB_CRITICS[name]}): run it as python -m stichzoo.training.lab "
                         f"train ...")
    lab = [n for n in LAB_CRITICS if n not in CRITICS]
    raise ValueError(f"config: train.critic={name!r}; choose one of "
                     f"{['observation', *CRITICS]}"
                     + (f" (the lab's {', '.join(lab)}: python -m stichzoo.training.lab)"
                        if lab else ""))


def build_critic(cfg: dict, game, obs_size: int) -> Critic | None:
    """The critic ``cfg``'s ``train.critic`` names; None for the policy's own value head."""
    name = cfg["train"]["critic"]
    if name == "observation":
        return None
    check_critic(name)
    return CRITICS[name](cfg, game, obs_size)


__all__ = ["CRITICS", "LAB_CRITICS", "Critic", "build_critic", "check_critic",
           "register_critic"]
