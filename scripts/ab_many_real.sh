#!/usr/bin/env bash
# Interleaved A/B of a suite of WORKLOADS copies of examples/ab/work.c, for
# real on this machine: the family is large enough that the exact
# signed-rank test on ROUNDS paired rounds cannot give a p below q/m
# (2^-10 > 0.01/12), so the judge reads the rounds' trimmed mean instead.
# Two pairs, RUNS `gpugate ab` runs each: identical builds, and builds whose
# first workload does +10% more work. Counts suites with any regression
# (a false alarm for the identical pair and for the other workloads) and
# slowed workloads caught. Not run in CI (minutes). Figures go to docs/ab.md.
#   scripts/ab_many_real.sh [GPUGATE_BINARY] [RUNS] [ROUNDS] [WORKLOADS] [SAMPLES]
set -euo pipefail
cd "$(dirname "$0")/.."
GPUGATE=${1:-build/gpugate}
RUNS=${2:-10}
ROUNDS=${3:-10}
WORKLOADS=${4:-12}
SAMPLES=${5:-8}
CC=${CC:-cc}
[ -x "$GPUGATE" ] || { echo "ab_many_real: no gpugate binary at $GPUGATE (build first or pass its path)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/same" "$work/slow"
$CC -O2 -o "$work/base/work" examples/ab/work.c
$CC -O2 -DEXTRA_WORK_PERCENT=10 -o "$work/slow/w0" examples/ab/work.c
for i in $(seq 0 $((WORKLOADS - 1))); do
  cp "$work/base/work" "$work/base/w$i"
  cp "$work/base/work" "$work/same/w$i"
  [ "$i" -eq 0 ] || cp "$work/base/work" "$work/slow/w$i"
done
list=$(seq -s, 0 $((WORKLOADS - 1)))
cat > "$work/suite.yaml" <<YAML
version: 1
name: ab-many
defaults: {warmup: 1, min_samples: $((SAMPLES * ROUNDS)), max_samples: $((SAMPLES * ROUNDS)), min_time: 0, max_time: 60s, rounds: $ROUNDS, timeout: 60s}
workloads:
  - name: w{i}
    kind: command
    argv: ["{bin}/w{i}"]
    params: {i: [$list]}
YAML

declare -A alarms=([same]=0 [slow]=0) caught=([slow]=0)
start=$(date +%s)
for pair in same slow; do
  for i in $(seq 1 "$RUNS"); do
    set +e
    "$GPUGATE" ab "$work/suite.yaml" --base "$work/base" --head "$work/$pair" --seed "$i" \
      --rounds "$ROUNDS" --quiet --json "$work/v.json" 2>"$work/err"
    code=$?
    set -e
    if [ "$code" -ne 0 ] && [ "$code" -ne 1 ] && [ "$code" -ne 4 ]; then
      echo "ab_many_real: gpugate ab failed with exit code $code:" >&2
      cat "$work/err" >&2
      exit 3
    fi
    line=$(/usr/bin/env python3 - "$work/v.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
times = [m for m in v["metrics"] if m["metric"] == "time" and m["workload"] != "(suite)"]
w0 = [m for m in times if m["workload"] == "w0"][0]
others = [m["workload"] for m in times if m["workload"] != "w0" and m["verdict"] == "regression"]
def pct(x): return "n/a" if x is None else "%+.1f%%" % ((x - 1) * 100)
print(int(w0["verdict"] == "regression"), len(others),
      "w0 %s %s [%s, %s]; other regressions: %d" % (w0["verdict"], pct(w0.get("ratio")), pct(w0.get("ci_low")), pct(w0.get("ci_high")), len(others)))
PY
)
    read -r w0 others rest <<< "$line"
    if [ "$pair" = same ]; then
      [ "$w0" -eq 1 ] || [ "$others" -gt 0 ] && alarms[same]=$((alarms[same] + 1))
    else
      [ "$others" -gt 0 ] && alarms[slow]=$((alarms[slow] + 1))
      [ "$w0" -eq 1 ] && caught[slow]=$((caught[slow] + 1))
    fi
    printf '%-4s run %2d: exit %d  %s\n' "$pair" "$i" "$code" "$rest"
  done
done
elapsed=$(( $(date +%s) - start ))
echo
echo "identical suites with any regression: ${alarms[same]} of $RUNS"
echo "slowed suites with another workload flagged: ${alarms[slow]} of $RUNS"
echo "slowed (+10% work) workload caught: ${caught[slow]} of $RUNS"
echo "workloads: $WORKLOADS; rounds per run: $ROUNDS; samples per round: $SAMPLES; elapsed: ${elapsed}s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
