"""Where does a candidate network lose (or win) head to head? One phase at a time.

A candidate that loses head to head to the shipped bot loses somewhere: in
the bids, the draft, the task choice or the card play.  For each phase named,
the candidate's network makes that phase's decisions and the reference bot
every other one (``policies/mix.py``'s :class:`PhaseMix`), against the
reference bot in every other seat (or ``--opponent``, e.g. ``pimc``: where
a gain against it lies) - a duplicate tournament on the same deals for every
row, so the rows compare.  ``all`` is the candidate alone; ``a+b`` swaps
phases a and b together (a hybrid of two networks).  The
``mix:`` spec does the same for shipped bots only (its parts take no
arguments); this script takes any bot folder (docs/lab/expert_iteration.md, Geheimtrumpf's
third generation).

    python scripts/probes/phase_swap.py geheimtrumpf runs/gt_pimc3b/bot --deals 250 \
        --seed 412312 --phases all card_draft task_choice play task_choice+play
"""

from __future__ import annotations

import argparse

from stichzoo.policies.base import check_phases
from stichzoo.policies.mix import PhaseMix
from stichzoo.training.evaluation import tournament


def swap_policy_builder(candidate: str, reference: str):
    """``build_policy`` that also builds ``swap:<phases>``: the candidate in those phases
    (``a+b``; ``all``: every phase), the reference bot in the others."""
    real = tournament.build_policy

    def build(spec, game, seed, cache=True):
        if not spec.startswith("swap:"):
            return real(spec, game, seed=seed, cache=cache)
        phases = spec[len("swap:"):].split("+")
        cand = real(f"onnx:path={candidate}", game, seed=seed, cache=False)
        if phases == ["all"]:
            return cand
        check_phases(game, phases, also="all", meaning="for every phase")
        return PhaseMix({p: cand for p in phases}, real(reference, game, seed=seed, cache=False))

    return build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("candidate", help="the candidate's bot folder (model.onnx + manifest.json)")
    ap.add_argument("--reference", default=None, help="the bot it is measured against "
                    "(default bot:<game>, the shipped bot)")
    ap.add_argument("--opponent", default=None, help="the other seats (default: the reference)")
    ap.add_argument("--phases", nargs="+", default=["all"],
                    help="phases of the game (stichzoo.policies.base.decision_phases), a+b for "
                         "two together, or all")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=250)
    ap.add_argument("--seed", type=int, required=True)
    args = ap.parse_args()
    reference = args.reference or f"bot:{args.game}"
    opponent = args.opponent or reference
    # in this process (one worker): the builder is patched here, not in spawned workers
    tournament.build_policy = swap_policy_builder(args.candidate, reference)
    for phase in args.phases:
        try:
            cfg = tournament.TournamentConfig(
                args.game, args.players, [f"swap:{phase}"] + [opponent] * (args.players - 1),
                args.deals, seed=args.seed, baseline=opponent, workers=1)
        except ValueError as e:  # a phase, bot folder or spec that is not there: one line
            raise SystemExit(f"phase_swap: {e}") from None
        report = tournament.run_tournament(cfg, progress=False)
        versus = report["versus_baseline"][f"swap:{phase}"]
        cells = []
        for key in ("score_difference", "win_rate_difference"):
            s = versus[key]
            lo, hi = (f"{s['lo']:+.3f}", f"{s['hi']:+.3f}") if s["lo"] is not None else ("-", "-")
            cells.append(f"{s['mean']:+.3f} [{lo}, {hi}]")
        print(f"| {phase} | {cells[0]} | {cells[1]} | {report['games']} |", flush=True)


if __name__ == "__main__":
    main()
