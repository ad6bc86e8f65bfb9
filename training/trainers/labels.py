"""Imitation data: a teacher's decisions in every seat of a batch of games.

The warm start imitates the heuristic on them and expert iteration a
search (training/trainers/expert.py); a search's labels may carry the soft targets
of its action values (training/trainers/distil.py), and the games may be played by
another policy than the one labelling them (DAgger).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from stichzoo.policies import Decision
from stichzoo.training.config import opponent_specs
from stichzoo.training.trainers.distil import NEVER, advantage, soft_target

if TYPE_CHECKING:
    from stichzoo.training.trainers.critics import Critic


def teacher_data(cfg: dict, steps: int, seed: int, games: int = 64,
                 teacher: str | None = None, temperature: float | None = None,
                 player: str | None = None, critic: Critic | None = None,
                 phases: list[str] | None = None, opponent: str | list[str] | None = None,
                 opponent_seats: int = 0, opponent_share: float = 1.0
                 ) -> dict[str, np.ndarray]:
    """The warm start's data: the teacher in *every* seat of a batch of games.

    Every decision is a sample (the single-seat view keeps one seat's in
    ``n``), with that seat's own discounted return-to-go as the value
    target; only finished games are used, so every return is complete.
    ``teacher`` defaults to ``pretrain.teacher``.  With a ``temperature``
    the teacher must be a search (``values``): each decision also gets the
    soft target of its action values (``target``, training/trainers/distil.py); the
    teacher still plays its own choice, so the games are the same.  With a
    ``player`` (a policy spec) the player makes the moves in every seat and
    the teacher only labels them: the positions are the ones the player
    reaches (DAgger), the labels and targets the teacher's, and the value
    target the player's return.  With a ``critic`` of the run's own
    (``train.critic``, training/trainers/critics.py) each decision also gets
    that critic's input, read from the true state (``critic_input``): its warm
    start; the games and every other array are the same.

    With ``phases`` (and a ``temperature``) the teacher labels only the
    decisions of those phases; every other decision keeps an advantage of 0
    on each legal action - the prior's own policy is its target
    (``expert.phases``, training/trainers/expert.py) - and costs no teacher time when
    a ``player`` moves.  ``labelled`` marks the teacher's decisions.  A
    teacher that rates no actions (a rule bot) gives its choice as the only
    action with a finite advantage: an ``improve`` target of its choice.

    With an ``opponent`` (a policy spec) a share ``opponent_share`` of the
    games (drawn per game) seats it in ``opponent_seats`` random seats: its
    decisions are moves only - no teacher time, no sample - so the samples
    come from positions against a table unlike the player's own (the
    opponent's bids, leads and discards; expert.opponent, training/trainers/expert.py).
    A list of specs is a league: each such game seats one of them, drawn per
    game, so the samples come from positions against each (a single spec
    draws exactly as before, so its labels do not change).
    """
    from stichzoo.envs import BatchEnv
    from stichzoo.policies.specs import build_policy

    # the teacher reads every rules state: the Python core (see BatchEnv's core)
    engine = BatchEnv(cfg["game"], games, reward=cfg["env"]["reward"],
                      reward_scale=float(cfg["env"]["reward_scale"]), core="python",
                      **cfg["options"])
    game, n = engine.game, engine.num_players
    gamma = float(cfg["train"]["gamma"])
    teacher = build_policy(teacher or cfg["pretrain"]["teacher"], game, seed=seed)
    mover = None if player is None else build_policy(player, game, seed=seed + 1, cache=False)
    others = []
    if opponent:
        if not 0 < opponent_seats < n:
            raise ValueError(f"opponent_seats={opponent_seats}: a table of {n} needs 1 to "
                             f"{n - 1} opponent seats and at least one sampled seat")
        others = [build_policy(spec, game, seed=seed + 2 + 1000 * i, cache=False)
                  for i, spec in enumerate(opponent_specs(opponent))]
    seat_rng = np.random.default_rng(seed + 3)

    def foreign_seats() -> tuple[frozenset[int], int]:
        """The opponent's seats in one new game (none: a table of the player's own), and
        which of the league's opponents sits there."""
        if not others or seat_rng.random() >= opponent_share:
            return frozenset(), 0
        seats = frozenset(seat_rng.choice(n, size=opponent_seats, replace=False).tolist())
        return seats, (int(seat_rng.integers(len(others))) if len(others) > 1 else 0)

    foreign, seated = map(list, zip(*(foreign_seats() for _ in range(games))))
    obs, mask, to_act = engine.reset(seed=seed)
    # per game and seat: the decisions of the running game, [obs, mask, action, reward];
    # finished games are written straight into the output arrays (one copy of each
    # observation, not two: Geheimtrumpf's are 3,521 floats)
    chains: list[list[list[list]]] = [[[] for _ in range(n)] for _ in range(games)]
    out = {"obs": np.zeros((steps, engine.obs_size), np.float32),
           "mask": np.zeros((steps, engine.num_actions), bool),
           "action": np.zeros(steps, np.int64), "return": np.zeros(steps, np.float32)}
    if critic is not None:
        out["critic_input"] = np.zeros((steps, critic.width), np.float32)
    if temperature is not None:
        out["target"] = np.zeros((steps, engine.num_actions), np.float32)
        out["advantage"] = np.zeros((steps, engine.num_actions), np.float32)
        out["labelled"] = np.zeros(steps, bool)
    filled = 0
    # a game is *needed* while the samples it will give are still wanted; the others run on
    # with any legal move, unlabelled, until they end (all games step together): the games
    # of a batch end together where their length is fixed (Wizard), and labelling every
    # game of the last batch would spend the teacher on up to a batch of games thrown away
    needed = [True] * games
    per_game: list[int] = []  # the samples of each finished needed game
    idle_rng = np.random.default_rng(seed + 4)
    while filled < steps:
        targets: list[tuple | None] = [None] * len(engine.states)
        sampled = [needed[r] and int(to_act[r]) not in foreign[r]
                   for r in range(len(engine.states))]
        decisions = [Decision(game, s, s.current_player) for s in engine.states]
        actions = []
        for r, (s, decision) in enumerate(zip(engine.states, decisions)):
            if not needed[r]:  # a game whose samples are not wanted: any legal move
                actions.append(int(idle_rng.choice(np.flatnonzero(mask[r]))))
            elif not sampled[r]:  # an opponent's seat: its move, no sample
                actions.append(others[seated[r]].act(decision))
            elif temperature is None:
                actions.append(teacher.act(decision))
            elif phases and s.phase_name not in phases:
                actions.append(teacher.act(decision) if mover is None else -1)
                targets[r] = _prior_target(mask[r])
            else:
                action, targets[r] = _teacher_target(teacher, decision, engine.num_actions,
                                                     temperature)
                actions.append(action)
        extra = (critic.inputs(engine.states, to_act) if critic is not None
                 else [None] * len(actions))
        for r, a in enumerate(actions):
            if sampled[r]:
                chains[r][to_act[r]].append([obs[r].copy(), mask[r].astype(bool), a, 0.0,
                                             targets[r], extra[r]])
        if mover is not None:
            actions = [mover.act(decision) if sampled[r] else a
                       for r, (a, decision) in enumerate(zip(actions, decisions))]
            for r, a in enumerate(actions):  # an unlabelled decision's label: the move made
                if sampled[r] and chains[r][to_act[r]][-1][2] < 0:
                    chains[r][to_act[r]][-1][2] = a
        obs, mask, to_act, rewards, dones = engine.step(np.array(actions, np.int64))
        for r, s in zip(*np.nonzero(rewards)):
            if chains[r][s]:
                chains[r][s][-1][3] += float(rewards[r, s])
        finished = np.flatnonzero(dones).tolist()
        for r in finished:
            if needed[r]:
                per_game.append(sum(len(chain) for chain in chains[r]))
            for chain in chains[r]:
                g = 0.0
                returns = []
                for item in reversed(chain):
                    g = item[3] + gamma * g
                    returns.append(g)
                for item, ret in zip(chain, reversed(returns)):
                    if filled == steps:
                        break
                    out["obs"][filled], out["mask"][filled] = item[0], item[1]
                    out["action"][filled], out["return"][filled] = item[2], ret
                    if temperature is not None:
                        out["target"][filled], out["advantage"][filled], \
                            out["labelled"][filled] = item[4]
                    if critic is not None:
                        out["critic_input"][filled] = item[5]
                    filled += 1
            chains[r] = [[] for _ in range(n)]
            foreign[r], seated[r] = foreign_seats()
        for r in finished:  # the ended games are running no more
            needed[r] = False
        mean = float(np.mean(per_game)) if per_game else 0.0
        for r in finished:  # the new games: needed while the running ones fall short
            needed[r] = not per_game or filled + mean * sum(needed) < steps
    return out


def _teacher_target(teacher, decision: Decision, num_actions: int,
                    temperature: float) -> tuple[int, tuple]:
    """The teacher's action and (soft target, advantage, labelled) of one decision: a
    search's from its action values, a rule bot's its choice alone (advantage 0 there,
    NEVER elsewhere: the ``improve`` target is that choice)."""
    if not hasattr(teacher, "values"):
        action = teacher.act(decision)
        target = np.zeros(num_actions, np.float32)
        target[action] = 1.0
        adv = np.full(num_actions, NEVER, np.float32)
        adv[action] = 0.0
        return action, (target, adv, True)
    values = teacher.values(decision)
    return values.action, (soft_target(values, num_actions, temperature),
                           advantage(values, num_actions), True)


def _prior_target(mask: np.ndarray) -> tuple:
    """A decision outside the teacher's phases: advantage 0 on every legal action (the
    ``improve`` target is the prior's own policy), uniform soft target, not labelled."""
    legal = mask.astype(bool)
    adv = np.where(legal, 0.0, NEVER).astype(np.float32)
    return legal.astype(np.float32) / legal.sum(), adv, False


def _label_share(args: tuple) -> dict[str, np.ndarray]:
    cfg, teacher, steps, seed, games, temperature, player = args
    e = cfg["expert"]
    return teacher_data(cfg, steps, seed, games=games, teacher=teacher, temperature=temperature,
                        player=player, phases=e["phases"], opponent=e["opponent"] or None,
                        opponent_seats=e["opponent_seats"], opponent_share=e["opponent_share"])


def search_labels(cfg: dict, seed: int, player: str | None = None,
                  steps: int | None = None) -> dict[str, np.ndarray]:
    """Expert iteration's data: the search teacher in every seat, its choices as labels.

    With ``expert.targets: values`` each label also carries the soft target
    of the search's action values at ``expert.temperature``; with a
    ``player`` spec the player's games are labelled (``teacher_data``), and
    with ``expert.phases`` only those phases' decisions.

    A search decision costs a few hundred times a heuristic one (PIMC: about
    30 ms on one core), so the labels are made in ``expert.workers``
    processes, each playing ``expert.games`` games of its own seed; the
    shares are concatenated in worker order, so the data depends on the
    seed and the worker count only, never on which process finished first.
    """
    import multiprocessing as mp

    e = cfg["expert"]
    steps = e["steps"] if steps is None else steps
    workers = min(e["workers"], steps)
    shares = [steps // workers + (k < steps % workers) for k in range(workers)]
    # targets "values"/"improve": the search's action values as soft targets
    # (training/trainers/distil.py)
    temperature = e["temperature"] if e["targets"] in ("values", "improve") else None
    jobs = [(cfg, e["teacher"], share, seed + 7919 * k, e["games"], temperature, player)
            for k, share in enumerate(shares)]
    if workers == 1:
        parts = [_label_share(jobs[0])]
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_label_share, jobs)
    return {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
