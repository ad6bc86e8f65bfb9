# Sourced by the recipes that train (scripts/recipes/*.sh): the evaluations they run beside
# the training; makes nothing itself.
# By default every run keeps its curves - the periodic evaluations (eval.every), expert
# iteration's evaluation of each iteration's network (eval.opponents) and the final one
# (--final-eval). NO_EVAL=1 leaves them all out: issue 30's pipelines are labels, training
# and export, and the networks are the same to the bit without them (they draw no random
# number the training draws: tests/training/test_batch_ppo.py), so a timed pipeline runs that way.
#   "${EVALS[@]}" after a run's --sets; "${FINAL_EVAL[@]}" where --final-eval stood
if [ "${NO_EVAL:-0}" = 1 ]; then
    EVALS=(--set eval.every=0 --set 'eval.opponents=[]')
    FINAL_EVAL=()
else
    EVALS=()
    FINAL_EVAL=(--final-eval)
fi
