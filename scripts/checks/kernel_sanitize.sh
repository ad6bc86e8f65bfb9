#!/usr/bin/env bash
# The kernel under AddressSanitizer and UndefinedBehaviorSanitizer: build it with both
# (build/asan/, the checkout's own build untouched) and run the kernel's tests on it
# (default: tests/envs/kernel - every game's differential and bad-input tests - and the tests
# of the kernel's searches; pass pytest arguments to choose others).  A read or write out of
# bounds, a use after free or undefined behaviour (overflow, a bad shift) aborts the run
# with a report.
#
#   bash scripts/checks/kernel_sanitize.sh                 # what scripts/test.sh runs
#   bash scripts/checks/kernel_sanitize.sh tests/envs/kernel/test_wizard.py
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python
rm -rf build/asan build/asan-temp
STICHZOO_KERNEL_SANITIZE=1 STICHZOO_KERNEL_CHECK=0 "$python" setup.py -q build_ext \
    --build-lib build/asan --build-temp build/asan-temp
so=$(ls build/asan/stichzoo/envs/kernel/_kernel*.so)
asan=$(gcc -print-file-name=libasan.so)
ubsan=$(gcc -print-file-name=libubsan.so)
args=("$@")
[ "${#args[@]}" -gt 0 ] || args=(tests/envs/kernel tests/policies/test_kernel_search_wizard.py \
    tests/policies/test_kernel_search_hoch_tief.py tests/policies/test_kernel_endgame_hoch_tief.py)
LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 STICHZOO_KERNEL_PATH="$so" \
    STICHZOO_REQUIRE_KERNEL=1 "$python" -m pytest -q -p no:xdist -p no:cacheprovider "${args[@]}"
