"""Per-seat and per-game metrics of the learner, instead of RLlib's summed returns.

RLlib's headline ``episode_return_mean`` adds up every agent of an episode;
at a competitive table that sum says nothing (in Wizard it is roughly the
table's total score).  The env reports, in each learner seat's last info,
what the other trainers log from their finished games (see
:meth:`stichzoo.training.rllib.env.StichzooMultiAgentEnv._final_info`):
the seat's own return, its win share and the game's own metrics
(``envs/<game>/metrics.py``: bid hit rate, task success...).  This callback
logs them per learner seat into RLlib's metrics, under the names the other
trainers give them in TensorBoard, so the driver writes them unchanged:

- ``charts/episode_return``, ``charts/episode_length`` (the seat's decisions),
  ``charts/win_share``, ``charts/learner_seats``;
- ``charts/win_share_seat<s>``: the same per table position (seat 0 leads
  the first trick, which matters in these games);
- ``<game>/train_<metric>``.
"""

from __future__ import annotations

from typing import Any

from stichzoo.training.rllib import require_ray

require_ray()

from ray.rllib.callbacks.callbacks import RLlibCallback  # noqa: E402

from stichzoo.training.rllib.env import LEARNER, module_for_agent  # noqa: E402

#: results come back from RLlib under ``env_runners/<this>/...``
GROUP = "stichzoo"
#: the learner's decisions sampled in an iteration (what ``train.total_timesteps`` counts;
#: RLlib's ``num_module_steps_sampled`` also counts each seat's final observation)
DECISIONS = "learner_decisions"
WINDOW = 200  # finished learner seats each mean is taken over


def learner_infos(episode: Any) -> list[dict]:
    """The final infos of the learner's seats in a finished multi-agent episode."""
    infos = episode.get_infos(-1)
    return [info for agent, info in infos.items()
            if module_for_agent(agent) == LEARNER and "win_share" in info]


class StichzooMetrics(RLlibCallback):
    """Logs each finished learner seat's return, win share and game metrics."""

    def on_sample_end(self, *, samples: list | None = None, metrics_logger: Any = None,
                      **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        n = sum(len(sa) for episode in samples or []
                for agent, sa in episode.agent_episodes.items()
                if module_for_agent(agent) == LEARNER)
        metrics_logger.log_value((GROUP, DECISIONS), n, reduce="sum")

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, env: Any = None,
                       **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        game = self._game(env)
        for info in learner_infos(episode):
            values = {"charts/episode_return": info["return"],
                      "charts/episode_length": info["length"],
                      "charts/win_share": info["win_share"],
                      f"charts/win_share_seat{info['seat']}": info["win_share"],
                      "charts/learner_seats": info["learner_seats"],
                      **{f"{game}/train_{k}": v for k, v in info["metrics"].items()}}
            for key, value in values.items():
                metrics_logger.log_value((GROUP, key), float(value), reduce="mean",
                                         window=WINDOW)

    @staticmethod
    def _game(env: Any) -> str:
        sub = getattr(env, "envs", [env])[0]
        return getattr(sub, "unwrapped", sub).game_name


def flat_metrics(result: dict) -> dict[str, float]:
    """``{tag: value}`` of the seat metrics :class:`StichzooMetrics` logged, from ``train()``."""
    return {k: float(v) for k, v in result.get("env_runners", {}).get(GROUP, {}).items()
            if k != DECISIONS}


def learner_decisions(result: dict) -> int:
    """The learner's decisions sampled in the iteration ``result`` reports."""
    return int(result.get("env_runners", {}).get(GROUP, {}).get(DECISIONS, 0))


__all__ = ["DECISIONS", "GROUP", "StichzooMetrics", "flat_metrics", "learner_decisions",
           "learner_infos"]
