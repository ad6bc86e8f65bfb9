"""A ten-line outside bot: `python:scripts/arena_examples/ten_line_bot.py:Bot` (docs/arena.md)."""
import random


class Bot:
    """Plays the first legal action half the time, else a random one (deliberately weak)."""

    def seed(self, seed):  # optional: the arena seeds each game, so the games replay
        self.rng = random.Random(seed)

    def act(self, decision):  # decision: {"seat", "view", "legal", "seed"}; answer a label
        legal = decision["legal"]
        return legal[0] if self.rng.random() < 0.5 else self.rng.choice(legal)
