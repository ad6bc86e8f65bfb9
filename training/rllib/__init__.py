"""RLlib backend: multi-agent PPO on a local Ray or a Ray cluster (``algo: rllib_ppo``).

    stichzoo train --backend rllib configs/wizard.yaml                    # local Ray
    stichzoo train --backend rllib configs/wizard.yaml --address HEAD:6379  # a cluster

The modules, smallest first:

- :mod:`~stichzoo.training.rllib.keys` - which YAML keys mean what under RLlib,
  and the refusals (pure Python: the config checks run without Ray);
- :mod:`~stichzoo.training.rllib.env` - each game as an RLlib ``MultiAgentEnv``
  with the observation keys RLlib's action masking expects, registered with
  ``register_env``; rule-bot seats are played inside it;
- :mod:`~stichzoo.training.rllib.module` - the RLModule: our SB3 network, masked;
- :mod:`~stichzoo.training.rllib.callbacks` - per-seat and per-game metrics;
- :mod:`~stichzoo.training.rllib.algo` - the ``PPOConfig`` built from a config;
- :mod:`~stichzoo.training.rllib.run` - the run folder, as the other trainers write it.

Everything but ``keys`` needs Ray: ``pip install 'stichzoo[rllib]'`` (or
``bash scripts/setup_rllib.sh``, which keeps Ray's gymnasium pin in its own venv).
"""

from __future__ import annotations

MISSING_RAY = ("the RLlib backend needs Ray's RLlib, which is not installed here: "
               "pip install 'stichzoo[rllib]' (or bash scripts/setup_rllib.sh, then use "
               ".venv-rllib/bin/stichzoo)")


def require_ray() -> None:
    """Import RLlib, or fail with the one line that says how to install it."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        if (e.name or "").split(".")[0] != "ray":
            raise
        raise ImportError(MISSING_RAY, name="ray") from None
