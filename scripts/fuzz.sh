#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan + UBSan) in build-fuzz and
# runs each for a bounded time; fails when any target finds a crash, a
# sanitizer report, a leak, a timeout or an out-of-memory. docs/fuzzing.md.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 60 s, every target)
# Environment: GPUGATE_FUZZ_JOBS targets at once (default 1),
#              GPUGATE_FUZZ_DIR build folder (default build-fuzz).
# Seeds are read from the test data in place (nothing copied); what a run
# adds is kept in BUILD/corpus/TARGET for the next run; crashing inputs go to
# BUILD/artifacts/TARGET/ (reproduce: BUILD/fuzz/fuzz_TARGET FILE).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
jobs=${GPUGATE_FUZZ_JOBS:-1}
dir=${GPUGATE_FUZZ_DIR:-build-fuzz}

# Target -> seed folders (tests/data and the files users write) and dictionary.
declare -A SEEDS=(
  [suite_yaml]="tests/data/bad_suites examples"
  [policy_yaml]="policies tests/data/fuzz_seeds/policy"
  [results_json]="tests/data/fuzz_seeds/results"
  [baseline_json]="tests/data/fuzz_seeds/baseline"
  [verdicts_json]="tests/data/golden"
  [gbench_json]="tests/data/gbench"
  [nvbench_json]="tests/data/nvbench"
  [benchmark_file]="tests/data/custom tests/data/pytest tests/data/bad_ingest"
  [trace]="tests/data/traces"
  [merge]="tests/data/fuzz_seeds/merge"
  [rule_expr]="tests/data/fuzz_seeds/rule_expr"
  [inspect]="tests/data/cubins"
)
declare -A DICT=(
  [suite_yaml]=yaml [policy_yaml]=yaml [results_json]=json [baseline_json]=json
  [verdicts_json]=json [gbench_json]=json [nvbench_json]=json [benchmark_file]=json
  [trace]=json [merge]=json [rule_expr]=rule_expr [inspect]=inspect
)
ALL=(suite_yaml policy_yaml results_json baseline_json verdicts_json gbench_json
     nvbench_json benchmark_file trace merge rule_expr inspect)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=("${ALL[@]}"); fi
for t in "${targets[@]}"; do
  if [ -z "${SEEDS[$t]+x}" ]; then
    echo "scripts/fuzz.sh: unknown target '$t' (targets: ${ALL[*]})" >&2
    exit 2
  fi
done

scripts/deps.sh --fuzz

echo "== gpugate: build the fuzz targets in $dir (clang, libFuzzer, ASan + UBSan)"
GEN=()
if command -v ninja >/dev/null 2>&1; then GEN=(-G Ninja); fi
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" "${GEN[@]}" "${LAUNCHER[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -gline-tables-only' -DGPUGATE_FUZZ=ON -DGPUGATE_WERROR=ON \
    -DGPUGATE_WITH_CUDA=OFF -DGPUGATE_BUILD_TESTS=OFF -DGPUGATE_BUILD_BENCH=OFF \
    -DGPUGATE_BUILD_EXAMPLES=OFF >/dev/null
fi
nice -n 10 cmake --build "$dir" -j "$(nproc)" --target gpugate_fuzz

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One target: new corpus units go to the first folder (ours), seeds are read
# from the others. Prints one summary line; the full log stays in $dir/logs.
run_target() {
  local t=$1
  local corpus="$dir/corpus/$t" artifacts="$dir/artifacts/$t/" log="$dir/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$dir/logs"
  local seeds=()
  for s in ${SEEDS[$t]}; do seeds+=("$s"); done
  local start end rc=0
  start=$(date +%s)
  "$dir/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts" -dict="fuzz/${DICT[$t]}.dict" \
    "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  end=$(date +%s)
  local execs corp status=ok
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  corp=$( (grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" || true) | tail -1 | sed 's/corp: //')
  if [ "$rc" -ne 0 ]; then status="FAILED (exit $rc, log $log, input in $artifacts)"; fi
  printf '%-15s execs %10s  corpus %-14s time %4ss  %s\n' "$t" "${execs:-?}" "${corp:-?}" \
    "$((end - start))" "$status"
  return "$rc"
}

echo "== gpugate: fuzz ${#targets[@]} target(s) for ${seconds}s each, $jobs at a time"
summary="$dir/logs/summary.txt"
mkdir -p "$dir/logs"
: >"$summary"
failed=0
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_target "$t" >>"$summary" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
cat "$summary"
n_failed=$(grep -c 'FAILED' "$summary" || true)
echo "fuzz: $((${#targets[@]} - n_failed)) passed, $n_failed failed"
if [ "$failed" -ne 0 ]; then
  echo "gpugate: fuzzing found a failure (see the logs named above)" >&2
  exit 1
fi
