#!/usr/bin/env bash
# A lab probe (docs/lab/privileged_critic.md "A privileged critic (Hoch & Tief)"; not shipped):
# configs/lab/batch/hoch_tief.yaml twice per seed, train.critic observation and privileged,
# on the same sample budget (1.2M learner samples; max_minutes raised so the budget, not the
# clock, ends each run), then each final policy against the heuristic (duplicate, 1,000
# games, two seeds no training uses) and the critics' fit (scripts/probes/value_fit.py).
# About 16 minutes a run on 2 shared cores.  The privileged critic is a lab option
# (training/lab/privileged.py): both runs train through the lab's command,
# python -m stichzoo.training.lab train, which registers it (the product's stichzoo train
# refuses train.critic=privileged, naming that command).
#   bash scripts/probes/privileged_critic.sh [SEED...]      (default: 0)
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=("${@:-0}")
for seed in "${seeds[@]}"; do
    for critic in observation privileged; do
        run=runs/critic_${critic}_s${seed}
        .venv/bin/python -m stichzoo.training.lab train configs/lab/batch/hoch_tief.yaml \
            --run-dir "$run" --final-eval \
            --set seed="$seed" --set train.critic="$critic" \
            --set train.total_timesteps=1200000 --set train.max_minutes=60 \
            --set train.torch_threads=1 --set eval.every=0 --set 'eval.opponents=[heuristic]' \
            --set eval.workers=1
        for eval_seed in 271828 314159; do
            .venv/bin/stichzoo eval hoch_tief --players 4 \
                --policies "ppo:path=$run/policy.pt" heuristic --games 1000 \
                --seed "$eval_seed" --workers 1
        done
    done
    .venv/bin/python scripts/probes/value_fit.py "runs/critic_observation_s$seed" \
        "runs/critic_privileged_s$seed" --decisions 50000 --seed 4711
done
