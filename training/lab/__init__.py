"""The lab wing of training: fitters and trainer options tried for strength and not
shipped (belief models, the learned match standing, the privileged critic).  No module
outside a lab folder imports this package (tests/test_imports.py); it is not installed
with the wheel.  Its verdicts: ``docs/lab/index.md``.

Importing it registers the lab's pieces with the product's tables, so that
``python -m stichzoo.training.lab`` (this package's ``__main__``: the ``stichzoo``
command with the lab joined) runs them:

- ``fit belief <game>`` and ``fit standing silberne_ananas``
  (:data:`stichzoo.training.fit.MODELS`; belief.py, standing.py);
- ``train.critic: privileged`` (:data:`stichzoo.training.trainers.critics.CRITICS`;
  privileged.py, imported - with torch - only when a run builds the critic).
"""

from __future__ import annotations

from stichzoo import envs
from stichzoo.training.fit import Flag, ModelFit, register
from stichzoo.training.trainers.critics import register_critic

register(ModelFit(
    "belief", tuple(envs.GAMES), "lab/belief", "stichzoo.training.lab.belief",
    "where each unseen card lies (Geheimtrumpf: the hidden trumps and tasks), "
    "for PIMC's worlds: pimc:belief=<model>", ".npz",
    flags=(Flag("data", "collect", "keep the played training data here: read back when it "
                "holds the same config's games, else played and written", "FILE.npz"),
           Flag("temper", "evaluate", "measure the walk's weights (p / prior) ** TEMPER, as "
                "pimc:belief=...,temper= (default 1)", "TEMPER", float))))
register(ModelFit(
    "standing", ("silberne_ananas",), "lab/standing", "stichzoo.training.lab.standing",
    "how a deal's tricks fall, for the learned match standing: pimc:standing=<model>",
    ".json", "deals"))


def _privileged(cfg: dict, game, obs_size: int):
    """The privileged critic (privileged.py), its torch loaded when a run builds it."""
    from stichzoo.training.lab.privileged import build

    return build(cfg, game, obs_size)


register_critic("privileged", _privileged)
