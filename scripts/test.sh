#!/usr/bin/env bash
# Install everything the tests need, then run the whole suite: lint + pytest, and build
# the docs site strictly (a broken link or a missing page fails; bash scripts/docs.sh).
# Budget: 5 minutes on a quiet two-core machine with the venvs made (issue 67, item 9).
#
# - Setup runs when what it installs changed: each venv keeps a stamp of pyproject.toml
#   and its setup script (.venv/.stichzoo-setup, .venv-rllib/.stichzoo-setup); delete the
#   stamp, or the venv, to install again.  Installing nothing new took 13-17 s a run.
# - Without arguments (CI), the RLlib backend's tests run in their own venv, .venv-rllib
#   (Ray pins gymnasium 1.2.2, the main venv has 1.4: docs/cluster.md), beside the main
#   pytest: they wait on Ray's start-up for most of their time, so on two cores they
#   overlap the main suite instead of following it.  The docs build runs beside it too.
#   Their output (build/rllib-tests.log, build/docs.log) is printed after the main
#   pytest, and any of them failing fails the run.  So does the kernel's sanitizer run
#   (scripts/checks/kernel_sanitize.sh: tests/envs/kernel on an ASan+UBSan build).  With arguments
#   (bash scripts/test.sh tests/test_x.py -k y), only the main venv's pytest runs, with them.
# - pytest-xdist's worksteal: a worker that runs out of tests takes half of the other's
#   queue, so the run does not end on one worker's tail.
# - Python's bytecode cache stays on (PYTHONDONTWRITEBYTECODE unset; __pycache__ is
#   ignored by git): without it every pytest worker compiled the package and rewrote
#   every test module's asserts afresh, 15 s of collection instead of 9.
# - Each test's setup, call and teardown seconds and the run's wall time go to
#   build/test-durations.json (the RLlib leg's to build/rllib-test-durations.json;
#   tests/conftest.py), and the end prints each stage's wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
unset PYTHONDONTWRITEBYTECODE
mkdir -p build
start=$SECONDS
stages=()
jobs_running=()

timed() {  # timed NAME COMMAND...: run it, note its wall time (and a failure)
    local name=$1 began=$SECONDS status=0
    shift
    "$@" || status=$?
    stages+=("$name: $((SECONDS - began)) s$([ "$status" = 0 ] || echo ", FAILED ($status)")")
    return "$status"
}

setup() {  # setup VENV SCRIPT ARGS...: the script, unless the venv's stamp says it is done
    local venv=$1 script=$2 want
    shift 2
    want=$(cat pyproject.toml "$script" | sha256sum)
    if [ -f "$venv/.stichzoo-setup" ] && [ "$(cat "$venv/.stichzoo-setup")" = "$want" ]; then
        return
    fi
    bash "$script" "$@" || return  # (set -e does not reach into a function run by timed)
    echo "$want" > "$venv/.stichzoo-setup"
}

beside() {  # beside LOG COMMAND...: in the background, in a process group of its own
    local log=$1
    shift
    # the last line of the log: how long it ran (finish reports it)
    setsid -w bash -c 'began=$SECONDS; status=0; "$@" || status=$?
                       echo "ran $((SECONDS - began)) s"; exit "$status"' beside "$@" \
        > "$log" 2>&1 &
    jobs_running+=("$!")
}

finish() {  # finish PID NAME LOG: wait for a job started beside pytest, show its output
    local pid=$1 name=$2 log=$3 began=$SECONDS status=0 left=() other
    wait "$pid" || status=$?
    for other in "${jobs_running[@]}"; do
        [ "$other" = "$pid" ] || left+=("$other")
    done
    jobs_running=("${left[@]}")
    stages+=("$name (beside pytest): $(tail -n 1 "$log"), $((SECONDS - began)) s waited for")
    echo "--- $name ($log):"
    cat "$log"
    return "$status"
}

on_exit() {
    local pid
    for pid in "${jobs_running[@]}"; do  # a failing stage stops what runs beside it
        kill -- "-$pid" 2>/dev/null || true
    done
    echo "--- wall time per stage:"
    local line
    for line in "${stages[@]}"; do
        echo "    $line"
    done
    echo "    the whole run: $((SECONDS - start)) s"
}
trap on_exit EXIT

timed setup setup .venv scripts/setup.sh dev
timed "setup (browser)" bash scripts/setup_browser.sh
if [ "$#" -eq 0 ]; then
    timed "setup (rllib)" setup .venv-rllib scripts/setup_rllib.sh
    beside build/rllib-tests.log env STICHZOO_TEST_DURATIONS=build/rllib-test-durations.json \
        .venv-rllib/bin/python -m pytest -q -p no:xdist tests/training/test_rllib.py tests/training/test_rllib_keys.py
    rllib=$!
fi
timed ruff .venv/bin/ruff check .
# the compiled kernel, rebuilt when its sources changed; the tests then require all five games
timed kernel env STICHZOO_KERNEL_CHECK=0 .venv/bin/python setup.py -q build_ext --inplace
export STICHZOO_REQUIRE_KERNEL=1
if [ "$#" -eq 0 ]; then
    beside build/docs.log bash scripts/docs.sh --quiet
    docs=$!
    beside build/sanitize.log bash scripts/checks/kernel_sanitize.sh
    sanitize=$!
fi
STICHZOO_TEST_DURATIONS=build/test-durations.json \
    timed pytest .venv/bin/python -m pytest -q -n 2 --dist worksteal --durations=15 "$@"
if [ "$#" -eq 0 ]; then
    status=0
    finish "$docs" "docs build" build/docs.log || status=$?
    finish "$sanitize" "kernel under ASan+UBSan" build/sanitize.log || status=$?
    finish "$rllib" "RLlib tests" build/rllib-tests.log || status=$?
    exit "$status"
fi
