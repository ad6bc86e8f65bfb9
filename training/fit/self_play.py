"""The fitters' one collector: self-play games of a table, seeded, each decision watched.

Every model ``stichzoo fit`` makes learns from games its config's players play among
themselves; the models differ only in what they keep of a game - every position (the
leaf value), the view at each trick's start (the tricks to come), every seat's view of
every state (the belief models), the deals' splits (the deal model).  So the games are
played here once, by the tournament's own loop
(:func:`stichzoo.training.evaluation.tournament.play_out`), and a fitter says what it keeps:
``watch(state)`` sees the live state before every decision (what it returns is kept, in
order), ``keep(seen, end)`` turns a game's kept values and its final state into the data.

Two ways of seeding, each kept as the models were fitted with it, so that a seed still
makes the same data, byte for byte:

- :func:`games`: one generator, ``random.Random(seed)``, through all the games in order -
  one process (the leaf value, the belief models);
- :func:`seeded_games`: game ``i`` seeded by ``(seed, i)``, so any number of worker
  processes plays the same games (the tricks to come, the deal model).

The Wizard bid model is the exception: its games are the batch engine's
(:class:`stichzoo.envs.core.batch.BatchEnv`, a network in every seat), collected in
``training/fit/bid_model.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from stichzoo.envs.core.cards import bit_list
from stichzoo.policies.base import Decision
from stichzoo.policies.specs import build_policy
from stichzoo.training.evaluation.tournament import play_out

Watch = Callable[[Any], Any]
Keep = Callable[[list, Any], Any]


@dataclass(frozen=True)
class Table:
    """Who plays the games: the game and its seats' policy specs (one for every seat, or one
    per seat).

    ``explore``: at every decision, with that chance, a random legal action instead of the
    bot's (drawn from the game's generator, so the positions a search reaches after an
    unusual card are in the data too; None: no draw at all).  ``log``: the states keep the
    game's record (its rounds' results).  ``deal_first``: the game's generator draws the
    deal's seed before the bots' (the belief models' data was made so), else after.
    """

    game: Any
    players: tuple[str, ...]
    explore: float | None = None
    log: bool = False
    deal_first: bool = False

    def __post_init__(self):
        n = self.game.num_players
        if len(self.players) not in (1, n):
            raise ValueError(f"players: {n} seats take 1 or {n} policy specs, not "
                             f"{len(self.players)}")

    def specs(self) -> list[str]:
        """Each seat's policy spec."""
        n = self.game.num_players
        return list(self.players) * n if len(self.players) == 1 else list(self.players)


class Exploring:
    """A seat's bot that, with chance ``explore``, plays a random legal action instead.

    The draw happens at every decision, whatever it decides, from the game's own
    generator ``rng`` - the seeds of later games come from it too.
    """

    def __init__(self, bot, rng: random.Random, explore: float):
        self.bot = bot
        self.rng = rng
        self.explore = explore

    def act(self, decision: Decision) -> int:
        legal = bit_list(decision.state.legal_mask())
        if self.rng.random() < self.explore:
            return self.rng.choice(legal)
        return self.bot.act(decision)


def play(table: Table, rng: random.Random, watch: Watch | None = None) -> tuple[list, Any]:
    """One game, its seeds (the bots', the deal's) drawn from ``rng``: what ``watch``
    returned before each decision, and the final state."""
    game = table.game
    deal = rng.getrandbits(31) if table.deal_first else None
    bots = [build_policy(spec, game, seed=rng.getrandbits(31)) for spec in table.specs()]
    if deal is None:
        deal = rng.getrandbits(31)
    if table.explore is not None:
        bots = [Exploring(bot, rng, table.explore) for bot in bots]
    state = game.new_game(deal, log=table.log)
    seen: list = []
    play_out(game, state, bots, None if watch is None else lambda s: seen.append(watch(s)))
    return seen, state


def games(table: Table, count: int, seed: int,
          watch: Watch | None = None) -> Iterator[tuple[list, Any]]:
    """``count`` games seeded by one generator in order: per game, :func:`play`'s answer."""
    rng = random.Random(seed)
    for _ in range(count):
        yield play(table, rng, watch)


def game_seeds(seed: int, count: int) -> list[int]:
    """Game ``i``'s seed, from ``(seed, i)`` alone."""
    return [random.Random(seed * 1_000_003 + i).getrandbits(31) for i in range(count)]


def _kept(job: tuple[Table, list[int], Keep, Watch | None]) -> list:
    table, seeds, keep, watch = job
    return [keep(*play(table, random.Random(s), watch)) for s in seeds]


def seeded_games(table: Table, count: int, seed: int, keep: Keep, watch: Watch | None = None,
                 workers: int = 1) -> list:
    """``count`` games, the ``i``-th seeded by ``(seed, i)`` whatever the number of worker
    processes; per game ``keep(seen, end)``.  ``keep`` and ``watch`` are module-level
    functions, so that the workers can be handed them."""
    seeds = game_seeds(seed, count)
    workers = min(workers, count)
    if workers <= 1:
        return _kept((table, seeds, keep, watch))
    chunks = [seeds[w::workers] for w in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(_kept, [(table, c, keep, watch) for c in chunks]))
    out: list = [None] * count
    for w, part in enumerate(parts):
        out[w::workers] = part
    return out
