#!/usr/bin/env bash
# Builds gpugate and runs every test. Builds twice, with the CUDA backend
# (when nvcc is present) and without it, as CI does; then the unit and
# end-to-end tests under ASan + UBSan (scripts/sanitize.sh) and every fuzz
# target for a bounded time (scripts/fuzz.sh, GPUGATE_FUZZ_SECONDS per target,
# default 30, two targets at a time). docs/fuzzing.md.
#   scripts/test.sh            both configurations, sanitizers, fuzzing
#   scripts/test.sh --quick    only the default configuration
#   scripts/test.sh --full     also the acceptance scenarios at 1000 suite runs
#                              each (GPUGATE_ACCEPTANCE_FULL=1; default 100)
# Only some tests: (cd build && ctest -L unit), -L acceptance, -LE acceptance.
# Every test runs here, the slow scenarios included (GPUGATE_SLOW_TESTS=1; a
# plain `ctest` leaves them out to stay under two minutes).
set -euo pipefail
export GPUGATE_SLOW_TESTS=1
cd "$(dirname "$0")/.."

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --full) export GPUGATE_ACCEPTANCE_FULL=1 ;;
    *) echo "usage: scripts/test.sh [--quick] [--full]" >&2; exit 2 ;;
  esac
done

scripts/deps.sh

# The two plain builds compile without debug information (-O2, as
# RelWithDebInfo, without -g: a third less compile time, and no test reads
# it); scripts/build.sh alone builds with it. With ccache (scripts/deps.sh
# installs it) the second build takes every object that compiles the same
# from the first.
NO_DEBUG_INFO=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG")
run_config() {  # run_config DIR "CTEST_EXCLUDE_REGEX" CMAKE_ARGS...
  local dir=$1 exclude=$2; shift 2
  echo "== gpugate: build and test in $dir ($*)"
  scripts/build.sh "$dir" -DGPUGATE_WERROR=ON "${NO_DEBUG_INFO[@]}" "$@"
  (cd "$dir" && ctest --output-on-failure -j "$(nproc)" --timeout 600 ${exclude:+-E "$exclude"})
}

run_config build "" -DGPUGATE_WITH_CUDA=AUTO
if [ "$quick" = 0 ]; then
  # Without CUDA, every test runs but the slow scenarios that take the same
  # path with or without CUDA on a machine without a GPU (they ran above):
  # the CI replay, the Action's steps, the browser, the hostile corpus and
  # the shared-VM statistics. The install tree (its package config differs
  # without CUDA) and the fault scenarios still run.
  run_config build-nocuda \
    '^(lifecycle_replay|action_local_test|browser_report|hostile_corpus|CompareAcceptance\.SharedVm.*)$' \
    -DGPUGATE_WITH_CUDA=OFF -DGPUGATE_BUILD_BENCH=OFF
  scripts/sanitize.sh
  GPUGATE_FUZZ_JOBS=${GPUGATE_FUZZ_JOBS:-2} scripts/fuzz.sh "${GPUGATE_FUZZ_SECONDS:-30}"
fi
