"""Check the batch engine against the AEC env on many random decisions (default 1M per game).

    python scripts/checks/check_batch.py                   # every game, 1,000,000 decisions each
    python scripts/checks/check_batch.py --game wizard --decisions 200000 --num-envs 64

For every decision of every game in the batch: the observation, the action
mask and the seat to act must equal, byte for byte, those of an AEC env
(``raw_env``) reset with the same episode seed and given the same actions;
after every step the per-seat rewards and episode ends must equal the AEC
env's.  The batch path uses each game's vectorised ``encode_many``; the AEC
env the scalar ``encode`` of the rules core, so this is the check of the
second, faster implementation against the first.  Exits 1 on the first
difference, naming it.  Takes a few minutes per game; the test suite runs
the same comparison on fewer decisions (tests/envs/test_batch.py).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from stichzoo import envs
from stichzoo.envs import BatchEnv
from stichzoo.envs.core.batch import episode_seed

PLAYERS = {"silberne_ananas": 3}


def check(game: str, players: int, decisions: int, num_envs: int, seed: int,
          **options) -> int:
    batch = BatchEnv(game, num_envs, num_players=players, **options)
    obs, mask, to_act = batch.reset(seed=seed)
    module = envs.env_module(game)
    aecs = [module.raw_env(num_players=players, **options) for _ in range(num_envs)]
    episodes = [0] * num_envs
    for i, e in enumerate(aecs):
        e.reset(seed=episode_seed(seed, i, 0))
    rng = np.random.default_rng(seed)
    done = 0
    while done < decisions:
        for i, e in enumerate(aecs):
            agent = e.agent_selection
            seen = e.observe(agent)
            if e.agent_name_mapping[agent] != to_act[i]:
                raise AssertionError(f"{game}: game {i}: seat to act differs at decision {done}")
            if seen["observation"].tobytes() != obs[i].tobytes():
                where = np.flatnonzero(seen["observation"] != obs[i])
                raise AssertionError(f"{game}: game {i}: observation differs at decision {done}, "
                                     f"entries {where[:10].tolist()}")
            if seen["action_mask"].tobytes() != mask[i].tobytes():
                raise AssertionError(f"{game}: game {i}: mask differs at decision {done}")
        actions = batch.sample_legal(rng)
        obs, mask, to_act, rewards, dones = batch.step(actions)
        for i, e in enumerate(aecs):
            e.step(int(actions[i]))
            want = np.array([e.rewards[a] for a in e.possible_agents], np.float32)
            if want.tobytes() != rewards[i].tobytes():
                raise AssertionError(f"{game}: game {i}: rewards differ at decision {done}")
            ended = all(e.terminations.values()) or all(e.truncations.values())
            if ended != bool(dones[i]):
                raise AssertionError(f"{game}: game {i}: episode end differs at decision {done}")
            if ended:
                episodes[i] += 1
                e.reset(seed=episode_seed(seed, i, episodes[i]))
        done += num_envs
    return sum(episodes)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", nargs="+", default=list(envs.GAMES), choices=list(envs.GAMES))
    p.add_argument("--decisions", type=int, default=1_000_000)
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for game in args.game:
        start = time.perf_counter()
        try:
            games = check(game, PLAYERS.get(game, 4), args.decisions, args.num_envs, args.seed)
        except AssertionError as e:
            print(f"FAILED: {e}", file=sys.stderr)
            return 1
        print(f"{game}: {args.decisions:,} decisions ({games:,} games) equal to the AEC env "
              f"in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
