#!/usr/bin/env bash
# The instruction lane for real on this machine (docs/instructions.md):
# examples/ab/work.c built three times with cc -O2 -- base, an identical
# rebuild, and +1% work (-DEXTRA_WORK_PERCENT=1) -- then RUNS tries of
#   gpugate run (measure: instructions) of each build, and
#   gpugate compare base vs identical rebuild / base vs +1%
# under the default policy (instructions: 0.5% threshold). Reports whether
# the counts of identical binaries are identical, each +1% ratio, false
# alarms and catches, and for contrast the wall-time spread of the same
# binary over the same number of plain runs.
#   scripts/instructions_spread.sh [GPUGATE_BINARY] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
GPUGATE=${1:-build/gpugate}
RUNS=${2:-20}
CC=${CC:-cc}
[ -x "$GPUGATE" ] || { echo "instructions_spread: no gpugate binary at $GPUGATE" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "instructions_spread: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/same" "$work/plus1"
$CC -O2 -o "$work/base/work" examples/ab/work.c
$CC -O2 -o "$work/same/work" examples/ab/work.c
$CC -O2 -DEXTRA_WORK_PERCENT=1 -o "$work/plus1/work" examples/ab/work.c
cat > "$work/suite.yaml" <<'YAML'
version: 1
name: instructions-spread
workloads:
  - name: work
    kind: command
    argv: ["{bin}/work", "1000000"]
    measure: instructions
    rounds: 1
YAML

count() { python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['workloads'][0]['rounds'][0][0]))" "$1"; }
declare -a base_counts same_counts plus_ratios
false_alarms=0; caught=0
start=$(date +%s)
for i in $(seq 1 "$RUNS"); do
  for b in base same plus1; do
    "$GPUGATE" run "$work/suite.yaml" --bin "$work/$b" -o "$work/$b.json" -q
  done
  base_counts+=("$(count "$work/base.json")")
  same_counts+=("$(count "$work/same.json")")
  plus_ratios+=("$(python3 -c "print('%.5f' % ($(count "$work/plus1.json") / $(count "$work/base.json")))")")
  set +e
  "$GPUGATE" compare "$work/base.json" "$work/same.json" -q >/dev/null 2>&1; same_code=$?
  "$GPUGATE" compare "$work/base.json" "$work/plus1.json" -q >/dev/null 2>&1; plus_code=$?
  set -e
  [ "$same_code" -ne 0 ] && false_alarms=$((false_alarms + 1))
  [ "$plus_code" -eq 1 ] && caught=$((caught + 1))
done
elapsed=$(( $(date +%s) - start ))
walls=$(for i in $(seq 1 "$RUNS"); do
  s=$(date +%s%N); "$work/base/work" 1000000 >/dev/null; e=$(date +%s%N); echo $(( e - s ))
done)
python3 - "$RUNS" "$false_alarms" "$caught" "$elapsed" "${base_counts[*]}" "${same_counts[*]}" "${plus_ratios[*]}" "$walls" <<'PY'
import statistics, sys
runs, fa, caught, elapsed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
base = [int(x) for x in sys.argv[5].split()]
same = [int(x) for x in sys.argv[6].split()]
ratios = [float(x) for x in sys.argv[7].split()]
walls = [int(x) / 1e6 for x in sys.argv[8].split()]
def spread(v):
    return "min %d, max %d, relative range %.2e" % (min(v), max(v), (max(v) - min(v)) / min(v))
print("| what | figure |")
print("|---|---|")
print("| base binary, %d runs under cachegrind | %s; %d distinct value(s) |" % (runs, spread(base), len(set(base))))
print("| identical rebuild, %d runs | %s; equal to base in %d of %d |" % (runs, spread(same), sum(a == b for a, b in zip(base, same)), runs))
print("| +1%% build / base, per run | min %.5f, max %.5f |" % (min(ratios), max(ratios)))
print("| compare base vs identical rebuild: exit code not 0 | %d of %d |" % (fa, runs))
print("| compare base vs +1%%: regression (exit 1) | %d of %d |" % (caught, runs))
print("| wall time of the same binary without valgrind, %d runs | median %.1f ms, min %.1f, max %.1f, relative range %.1f%% |" % (
    runs, statistics.median(walls), min(walls), max(walls), 100 * (max(walls) - min(walls)) / min(walls)))
print("\n%d s for %d tries (3 valgrind runs and 2 compares each)" % (elapsed, runs))
PY
