"""How well can the network imitate a teacher, and how strong is the imitation?

    .venv/bin/python scripts/probes/probe_imitation.py configs/lab/batch/hoch_tief.yaml \
        --samples 600000 --arch 256,256 512,512 [--feature suit_state] [--games 200]
    .venv/bin/python scripts/probes/probe_imitation.py configs/lab/batch/hoch_tief.yaml \
        --samples 600000 --distil pimc --labels 80000    # expert iteration's first step
    .venv/bin/python scripts/probes/probe_imitation.py configs/geheimtrumpf.yaml \
        --samples 300000 --distil pimc --labels 40000 --targets values  # soft targets

The questions issue 16 asks before a 60-minute run is spent on a lever:

* **Fidelity**: the warm start's data (the teacher in every seat,
  ``training.batch_ppo.teacher_data``), 90% to fit and the last 10% held
  out; the held-out agreement per game phase, for each network size.
* **Strength**: each imitation in a duplicate tournament against the
  heuristic (seed 555, never a training seed).
* **Input pieces** (``--feature``): the same with one candidate
  observation piece appended - computed here from the seat's own view,
  never the hidden state - so a piece is measured before it becomes an env
  version.  The Geheimtrumpf pieces measured here first (``play_state``,
  ``trump_candidates``) became ``geheimtrumpf_v1``'s reading
  (envs/geheimtrumpf/reading.py); ``ananas_reading`` (taker values, best
  takers, per own card the takers and their value) became
  ``silberne_ananas_v1``'s (envs/silberne_ananas/reading.py: play agreement
  0.738 -> 0.861, gifts 0.588 -> 1.000, win rate -0.311 -> +0.019 against
  the heuristic, 300,000 decisions).  ``task_need`` (Geheimtrumpf, on top of
  it): per seat, whether its chosen task still wants tricks, must take no
  more, or is already missed.  ``draft_values`` (in the card draft, per row
  card the heuristic's projected chance of its best open task if it takes
  the card, per open task its best chance over the row, per card its chance
  to win a trick as the seat sees the trumps: card-draft agreement 0.774 ->
  0.836) became ``geheimtrumpf_v2``'s draft reading (take_chances,
  task_chances, win_chances; envs/geheimtrumpf/chances.py).
  ``trick_reading`` (Geheimtrumpf v3: per legal card, who takes the trick
  when the later seats answer as the heuristic, the suits in it: card-play
  agreement 0.804 -> 0.830) became ``geheimtrumpf_v4``'s trick reading
  (envs/geheimtrumpf/steering.py).  ``suit_state``
  (Hoch & Tief): per relative seat and suit, the count of taken cards (0,
  1, 2, 3+) and what they score; per own card, the shares of the unseen
  cards of its suit above and below it; the unseen cards per suit.
* **Expert iteration** (``--distil SPEC``): ``--labels`` decisions of the
  search bot in every seat (``training.batch_ppo.search_labels``, two
  processes), the imitation fine-tuned on them (the ``expert:`` config
  stage), and a network fitted on them alone; agreement with the search
  bot's held-out choices and strength, as above (with ``--feature`` the
  labels are made in this one process: the piece exists only here).
  ``--targets values`` fits the search's action values as soft targets
  (training/trainers/distil.py) instead of its choice.

Nothing is written but ``--out`` (the networks, playable as ``ppo:path=``).
"""

from __future__ import annotations

import argparse
import copy
import os
import time

import numpy as np
import torch as th

from stichzoo.envs.core.observation import Layout, Piece
from stichzoo.envs.registry import env_module
from stichzoo.policies.base import encoder_for
from stichzoo.policies.runtimes.torch_policy import save_policy
from stichzoo.training import config as config_mod
from stichzoo.training.config import game_of
from stichzoo.training.evaluation.report import format_interval
from stichzoo.training.evaluation.tournament import TournamentConfig, default_lineup, run_tournament
from stichzoo.training.trainers.expert import fidelity
from stichzoo.training.trainers.labels import search_labels, teacher_data
from stichzoo.training.trainers.ppo import build_network
from stichzoo.training.trainers.pretrain import behaviour_clone


class _Extended:
    """An encoder with one extra piece after the env's own: a probe, not an env version."""

    piece: Piece

    def __init__(self, game):
        self.inner = self.base_cls(game)
        self.game = game
        self.base = self.inner.layout.size
        self.layout = Layout([*self.inner.layout.pieces, self.piece_for(game)])

    def encode(self, s, seat, out):
        self.inner.encode(s, seat, out[:self.base])
        out[self.base:] = 0.0
        self.extra(s, seat, out[self.base:])

    def encode_many(self, states, seats, out):
        head = np.empty((len(states), self.base), np.float32)
        self.inner.encode_many(states, seats, head)
        out[:, :self.base] = head
        out[:, self.base:] = 0.0
        for i, (s, seat) in enumerate(zip(states, seats)):
            self.extra(s, seat, out[i, self.base:])


def _suit_state():
    from stichzoo.envs.hoch_tief.encode import HochTiefEncoder
    from stichzoo.envs.hoch_tief.rules import GAME_OVER, NUM_SUITS
    from stichzoo.policies.games.hoch_tief import suit_score

    class SuitState(_Extended):
        base_cls = HochTiefEncoder

        def piece_for(self, game):
            n, size = game.num_players, game.lookups.size
            return Piece("suit_state", n * NUM_SUITS * 5 + 2 * size + NUM_SUITS)

        def extra(self, s, seat, row):
            if s.phase == GAME_OVER:
                return
            tb, n = self.game.lookups, s.num_players
            k = 0
            for rel in range(n):
                taken = s.taken[(seat + rel) % n]
                for su in range(NUM_SUITS):
                    t = taken & tb.suit_mask[su]
                    row[k + min(t.bit_count(), 3)] = 1.0
                    row[k + 4] = suit_score(t, tb.number) / (2 * tb.numbers)
                    k += 5
            hand = s.hands[seat]
            unseen = ((1 << tb.size) - 1) & ~(hand | s.played_mask())
            nums = [[tb.number[c] for c in range(tb.size)
                     if unseen >> c & 1 and tb.suit[c] == su] for su in range(NUM_SUITS)]
            for su in range(NUM_SUITS):
                row[k + 2 * tb.size + su] = len(nums[su]) / tb.numbers
            for c in range(tb.size):
                u = nums[tb.suit[c]]
                if hand >> c & 1 and u:
                    v = tb.number[c]
                    row[k + c] = sum(x > v for x in u) / len(u)
                    row[k + tb.size + c] = sum(x < v for x in u) / len(u)

    return SuitState


def _task_need():
    from stichzoo.envs.geheimtrumpf.encode import GeheimtrumpfEncoder
    from stichzoo.envs.geheimtrumpf.rules import (
        FEWEST_TRICKS,
        MOST_TRICKS,
        NO_TRICK,
        PLAY,
        THREE_TRICKS,
    )

    class TaskNeed(_Extended):
        base_cls = GeheimtrumpfEncoder

        def piece_for(self, game):
            return Piece("task_need", 4 * game.num_players,
                         doc="per relative seat, its chosen task: wants tricks, must take "
                             "no more, already missed; tricks still needed / 3")

        def extra(self, s, seat, row):
            if s.phase != PLAY:
                return
            n = s.num_players
            for rel in range(n):
                p = (seat + rel) % n
                t, won = s.chosen[p], s.tricks_won[p]
                if t < 0:
                    continue
                if NO_TRICK <= t <= THREE_TRICKS:
                    need = t - won
                    row[4 * rel + (0 if need > 0 else 1 if need == 0 else 2)] = 1.0
                    row[4 * rel + 3] = max(need, 0) / 3
                elif t == MOST_TRICKS:
                    row[4 * rel] = 1.0
                elif t == FEWEST_TRICKS:
                    row[4 * rel + 1] = 1.0

    return TaskNeed


FEATURES = {"task_need": ("geheimtrumpf", _task_need),
            "suit_state": ("hoch_tief", _suit_state)}


def split(data: dict, share: float = 0.9) -> tuple[dict, dict]:
    cut = int(len(data["action"]) * share)
    return ({k: v[:cut] for k, v in data.items()}, {k: v[cut:] for k, v in data.items()})


def agreement(policy, test: dict, phase_slice: slice) -> tuple[float, dict[int, float]]:
    with th.no_grad():
        dist = policy.get_distribution(th.as_tensor(test["obs"]), action_masks=test["mask"])
        hit = dist.distribution.probs.argmax(1).numpy() == test["action"]
    phase = test["obs"][:, phase_slice].argmax(1)
    return float(hit.mean()), {int(p): round(float(hit[phase == p].mean()), 3)
                               for p in np.unique(phase)}


def strength(game, path: str, games: int) -> str:
    n = game.num_players
    deals = max(1, games // n)
    report = run_tournament(TournamentConfig(
        game.name, n, default_lineup([f"ppo:path={path}", "heuristic"], n), deals=deals,
        seed=555, options=game.options.as_dict(), workers=1), progress=False)
    diff = report["versus_baseline"][f"ppo:path={path}"]
    return (f"vs heuristic ({report['games']} games): score "
            f"{format_interval(diff['score_difference'], '+.2f')}, win rate "
            f"{format_interval(diff['win_rate_difference'], '+.3f')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--samples", type=int, default=600_000, help="teacher decisions")
    ap.add_argument("--arch", nargs="+", default=["256,256"], help="layer sizes, one per net")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--feature", choices=sorted(FEATURES), help="a candidate extra piece")
    ap.add_argument("--distil", metavar="SPEC", help="search teacher for expert iteration")
    ap.add_argument("--labels", type=int, default=80_000, help="search decisions (--distil)")
    ap.add_argument("--targets", choices=("choice", "values"), default="choice",
                    help="imitate the search's choice or its action values (soft targets)")
    ap.add_argument("--temperature", type=float, default=1.0,
                    help="soft targets' temperature in standard errors (--targets values)")
    ap.add_argument("--games", type=int, default=200, help="games against the heuristic")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default="runs/probe")
    args = ap.parse_args()
    th.set_num_threads(args.threads)
    cfg = config_mod.load(args.config)
    game = game_of(cfg)
    if args.feature:
        name, make = FEATURES[args.feature]
        if name != game.name:
            ap.error(f"--feature {args.feature} is a {name} piece, the config plays {game.name}")
        env_module(name).raw_env.encoder_cls = make()
    layout = encoder_for(game).layout
    phases = slice(layout.offsets["phase"], layout.offsets["phase"] + layout.piece("phase").size)
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    train, test = split(teacher_data(cfg, args.samples, seed=cfg["seed"] + 31337))
    print(f"{game.name}: {args.samples} {cfg['pretrain']['teacher']} decisions, observation "
          f"{layout.size} floats, in {time.time() - start:.0f} s", flush=True)
    nets = {}
    for arch in args.arch:
        c = copy.deepcopy(cfg)
        c["train"]["net_arch"] = [int(x) for x in arch.split(",")]
        th.manual_seed(cfg["seed"])  # each network's start as the first: a rerun repeats it
        policy = build_network(c, game, "cpu")
        start = time.time()
        behaviour_clone(policy, train, args.epochs, cfg["pretrain"]["batch_size"],
                        cfg["pretrain"]["learning_rate"], verbose=False,
                        schedule=cfg["pretrain"]["lr_schedule"])
        path = os.path.join(args.out, f"{game.name}_{arch.replace(',', 'x')}.pt")
        save_policy(policy, game, path)
        nets[arch] = (policy, path)
        total, per_phase = agreement(policy, test, phases)
        print(f"[{arch}] fitted in {time.time() - start:.0f} s; held-out agreement "
              f"{total:.3f}, per phase {per_phase}; {strength(game, path, args.games)}",
              flush=True)
    if args.distil:
        c = copy.deepcopy(cfg)
        # a probe piece exists in this process only: label here, not in fresh workers
        c["expert"].update(teacher=args.distil, steps=args.labels,
                           workers=1 if args.feature else 2, targets=args.targets,
                           temperature=args.temperature)
        start = time.time()
        fit, held = split(search_labels(c, seed=cfg["seed"] + 4242))
        print(f"{args.labels} {args.distil} decisions in {time.time() - start:.0f} s", flush=True)
        policy, _ = nets[args.arch[0]]
        e = c["expert"]
        th.manual_seed(cfg["seed"])
        variants = [("imitation + search labels", policy, fit),
                    ("search labels alone", build_network(cfg, game, "cpu"), fit)]
        if "target" in fit:  # the same labels' choices too: the soft targets' own share
            choices = {k: v for k, v in fit.items() if k != "target"}
            variants.append(("imitation + search choices", copy.deepcopy(policy), choices))
            variants[0], variants[2] = variants[2], variants[0]  # both from the imitation
        for label, net, data in variants:
            before = agreement(net, held, phases)[0]
            behaviour_clone(net, data, e["epochs"], e["batch_size"], e["learning_rate"],
                            verbose=False, schedule=e["lr_schedule"])
            path = os.path.join(args.out, f"{game.name}_{label.replace(' ', '_')}.pt")
            save_policy(net, game, path)
            soft = ""
            if "target" in held:
                soft = f", soft-target mass of its choice {fidelity(net, held)['target_mass']:.3f}"
            print(f"[{label}] agreement with held-out search choices {before:.3f} -> "
                  f"{agreement(net, held, phases)[0]:.3f}{soft}; "
                  f"{strength(game, path, args.games)}", flush=True)

if __name__ == "__main__":
    main()
