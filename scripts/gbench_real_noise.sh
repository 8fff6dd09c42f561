#!/usr/bin/env bash
# Real noise between runs, measured with Google Benchmark on this machine:
# examples/gbench/noise.cc runs RUNS times as separate processes (10
# repetitions each); every pair of those runs of identical code is compared
# (one run per side), then the first RUNS-1 runs become a baseline history and
# the last run and 3 runs of a variant with a genuine +100% in BM_String are
# compared against it, and three identical runs passed together as repeated
# current runs. Counts regression verdicts. Not run in CI (about a
# minute). Figures go to docs/statistics.md ("Real noise").
#   scripts/gbench_real_noise.sh [GPUGATE_BINARY] [RUNS]   (KEEP_DIR=D keeps the files in D)
set -euo pipefail
cd "$(dirname "$0")/.."
GPUGATE=${1:-build/gpugate}
RUNS=${2:-6}
CXX=${CXX:-c++}
[ -x "$GPUGATE" ] || { echo "gbench_real_noise: no gpugate binary at $GPUGATE" >&2; exit 2; }
[ "$RUNS" -ge 3 ] || { echo "gbench_real_noise: RUNS must be >= 3" >&2; exit 2; }
if [ -n "${KEEP_DIR:-}" ]; then  # keep the JSON files for a closer look
  work=$KEEP_DIR; mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
$CXX -O2 -std=c++17 -o "$work/same" examples/gbench/noise.cc -lbenchmark -lpthread
$CXX -O2 -std=c++17 -DSTRING_APPENDS=200 -o "$work/slow" examples/gbench/noise.cc -lbenchmark -lpthread
run() {  # run BINARY OUT
  "$1" --benchmark_repetitions=10 --benchmark_min_time=0.05 \
    --benchmark_out="$2" --benchmark_out_format=json >/dev/null 2>&1
}
for i in $(seq 1 "$RUNS"); do run "$work/same" "$work/r$i.json"; done
for i in 1 2 3; do run "$work/slow" "$work/s$i.json"; done

count() {  # count FILE VERDICT -> how many time metrics have that verdict
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(sum(1 for m in v['metrics'] if m['metric']=='time' and m['verdict']==sys.argv[2]))" "$1" "$2"
}
echo "== one run per side, identical code: every pair of the $RUNS runs"
pairs=0 alarmed=0 regressions=0
for a in $(seq 1 "$RUNS"); do
  for b in $(seq $((a + 1)) "$RUNS"); do
    "$GPUGATE" compare "$work/r$a.json" "$work/r$b.json" --json "$work/v.json" -q || true
    n=$(count "$work/v.json" regression)
    pairs=$((pairs + 1)); regressions=$((regressions + n)); [ "$n" -eq 0 ] || alarmed=$((alarmed + 1))
    echo "r$a vs r$b: $n regression(s), $(count "$work/v.json" inconclusive) inconclusive, $(count "$work/v.json" unchanged) unchanged"
  done
done
echo "pairs with any regression: $alarmed of $pairs ($regressions regression verdicts)"

echo "== one run per side, BM_String +100% of work"
caught=0
for b in 1 2 3; do
  "$GPUGATE" compare "$work/r1.json" "$work/s$b.json" --json "$work/v.json" -q || true
  v=$(python3 -c "import json; v=json.load(open('$work/v.json')); print([m['verdict'] for m in v['metrics'] if m['workload']=='BM_String' and m['metric']=='time'][0])")
  others=$(count "$work/v.json" regression)
  if [ "$v" = regression ]; then caught=$((caught + 1)); others=$((others - 1)); fi
  echo "r1 vs s$b: BM_String $v, other regressions: $others"
done
echo "BM_String caught: $caught of 3"

echo "== baseline history of $((RUNS - 1)) runs"
for i in $(seq 1 $((RUNS - 1))); do
  "$GPUGATE" baseline update --results "$work/r$i.json" --baseline "$work/hist.json" --keep 20 >/dev/null
done
"$GPUGATE" baseline show "$work/hist.json" | tail -n 8
"$GPUGATE" compare "$work/hist.json" "$work/r$RUNS.json" --json "$work/v.json" -q || true
echo "identical run r$RUNS vs history: $(count "$work/v.json" regression) regression(s)"
"$GPUGATE" compare "$work/hist.json" "$work/r$RUNS.json" "$work/r1.json" "$work/r2.json" --json "$work/v.json" -q || true
echo "identical runs r$RUNS, r1, r2 (3 current runs) vs history: $(count "$work/v.json" regression) regression(s)"

for b in 1 2 3; do
  "$GPUGATE" compare "$work/hist.json" "$work/s$b.json" --json "$work/v.json" -q || true
  echo "s$b vs history:"
  python3 - "$work/v.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
s = [m for m in v["metrics"] if m["workload"] == "BM_String" and m["metric"] == "time"][0]
print("  BM_String: %s, %s" % (s["verdict"], s["sentence"].split(";")[0]))
for m in v["metrics"]:
    if m["metric"] == "time" and m["verdict"] in ("regression", "improvement") and m["workload"] != "BM_String":
        print("  also %-22s %-11s %+.1f%% [%+.1f%%, %+.1f%%]" % (m["workload"], m["verdict"], (m["ratio"] - 1) * 100,
              (m["ci_low"] - 1) * 100, (m["ci_high"] - 1) * 100))
PY
done
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
