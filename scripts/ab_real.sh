#!/usr/bin/env bash
# Interleaved A/B for real on this machine: examples/ab/work.c built twice
# (identical, and with a genuine +10% of work), RUNS `gpugate ab` runs of
# each pair; counts identical pairs that alarmed and slowed pairs caught.
# Not run in CI (several minutes). Figures go to docs/ab.md.
#   scripts/ab_real.sh [GPUGATE_BINARY] [RUNS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
GPUGATE=${1:-build/gpugate}
RUNS=${2:-20}
ROUNDS=${3:-10}
CC=${CC:-cc}
[ -x "$GPUGATE" ] || { echo "ab_real: no gpugate binary at $GPUGATE (build first or pass its path)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/same" "$work/slow"
$CC -O2 -o "$work/base/work" examples/ab/work.c
$CC -O2 -o "$work/same/work" examples/ab/work.c
$CC -O2 -DEXTRA_WORK_PERCENT=10 -o "$work/slow/work" examples/ab/work.c

# One verdict line per run: exit code, verdict, ratio, CI.
verdict() {
  /usr/bin/env python3 - "$1" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
m = v["metrics"][0]
def pct(x): return "n/a" if x is None else "%+.1f%%" % ((x - 1) * 100)
print(m["verdict"], pct(m.get("ratio")), "[%s, %s]" % (pct(m.get("ci_low")), pct(m.get("ci_high"))))
PY
}

declare -A alarms=([same]=0 [slow]=0)
start=$(date +%s)
for pair in same slow; do
  for i in $(seq 1 "$RUNS"); do
    set +e
    "$GPUGATE" ab examples/ab/suite.yaml --base "$work/base" --head "$work/$pair" --seed "$i" \
      --rounds "$ROUNDS" \
      --quiet --json "$work/v.json" 2>"$work/err"
    code=$?
    set -e
    if [ "$code" -ne 0 ] && [ "$code" -ne 1 ] && [ "$code" -ne 4 ]; then
      echo "ab_real: gpugate ab failed with exit code $code:" >&2
      cat "$work/err" >&2
      exit 3
    fi
    [ "$code" -eq 1 ] && alarms[$pair]=$((alarms[$pair] + 1))
    printf '%-4s run %2d: exit %d  %s\n' "$pair" "$i" "$code" "$(verdict "$work/v.json")"
  done
done
elapsed=$(( $(date +%s) - start ))
echo
echo "identical pairs that alarmed: ${alarms[same]} of $RUNS (goal 0)"
echo "slowed (+10% work) pairs caught: ${alarms[slow]} of $RUNS (goal >= 95%)"
echo "rounds per run: $ROUNDS; elapsed: ${elapsed}s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
