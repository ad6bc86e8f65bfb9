"""One TensorBoard vocabulary for every trainer: SB3's names translated into ours.

The batch trainer and the RLlib driver write their scalars under the tags
that docs/training.md lists (``charts/``, ``losses/``, ``time/``...), so two
runs of two trainers overlay in one TensorBoard.  SB3 logs its own names
(``train/entropy_loss`` = *minus* the entropy, ``rollout/ep_rew_mean``...);
:class:`TagWriter` is the TensorBoard output of the SB3 path's logger and
writes each of SB3's scalars under our tag with our sign, and leaves out
SB3's duplicates of what the loop logs itself.  ``tests/training/test_tensorboard.py``
runs both trainers and compares the tag sets.
"""

from __future__ import annotations

from typing import Any

from stable_baselines3.common.logger import Logger, TensorBoardOutputFormat

#: SB3's key -> (our tag, factor): the sign and meaning the other trainers log
SB3_TAGS: dict[str, tuple[str, float]] = {
    "train/policy_gradient_loss": ("losses/policy_loss", 1.0),
    "train/value_loss": ("losses/value_loss", 1.0),
    "train/entropy_loss": ("losses/entropy", -1.0),  # SB3 logs the loss term, -entropy
    "train/approx_kl": ("losses/approx_kl", 1.0),
    "train/clip_fraction": ("losses/clip_fraction", 1.0),
    "train/explained_variance": ("losses/explained_variance", 1.0),
    "train/learning_rate": ("charts/learning_rate", 1.0),
    "time/fps": ("time/fps", 1.0),
}
#: SB3's own groups: a key in them that :data:`SB3_TAGS` does not name is left out
#: (``train/loss`` is the last minibatch's total only, ``train/clip_range`` a constant,
#: ``rollout/ep_rew_mean`` and ``ep_len_mean`` what ``charts/`` already holds)
SB3_GROUPS = ("train/", "rollout/")


def translate(key: str, value: Any) -> tuple[str, Any] | None:
    """The (tag, value) our vocabulary logs for SB3's ``key``, or None to leave it out."""
    if key in SB3_TAGS:
        tag, factor = SB3_TAGS[key]
        return tag, value * factor if factor != 1.0 else value
    if key.startswith(SB3_GROUPS):
        return None
    return key, value


class TagWriter(TensorBoardOutputFormat):
    """SB3's TensorBoard output, writing our tags (:func:`translate`) instead of SB3's."""

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]],
              step: int = 0) -> None:
        values: dict[str, Any] = {}
        excluded: dict[str, tuple[str, ...] | None] = {}
        for key, value in key_values.items():
            out = translate(key, value)
            if out is not None:
                values[out[0]], excluded[out[0]] = out[1], key_excluded.get(key)
        super().write(values, excluded, step)


def sb3_logger(folder: str) -> Logger:
    """The logger the SB3 path gives its model: TensorBoard in ``folder``, our tags."""
    return Logger(folder=folder, output_formats=[TagWriter(folder)])


__all__ = ["SB3_GROUPS", "SB3_TAGS", "TagWriter", "sb3_logger", "translate"]
