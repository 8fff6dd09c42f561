#!/usr/bin/env bash
# `gpugate ab` with `kind: gbench` for real on this machine: the example
# Google Benchmark program (examples/gbench, built by the project's CMake as
# base, same = an identical rebuild, and head = BM_HashChain +30% work) run
# RUNS times per pair at the default rounds. Counts, per try: whether
# BM_HashChain was caught as a regression, and any other benchmark flagged
# (regression or improvement); for identical builds, any flag at all.
# Not run in CI (about 30 s per try). Figures go to docs/ab.md.
#   scripts/gbench_ab_real.sh [BUILD_DIR] [RUNS]
# PAIRS="head" (or "same") runs one of the two sets only.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${2:-20}
GPUGATE=$BUILD/gpugate
EX=$BUILD/examples/gbench
for f in "$GPUGATE" "$EX/base/gbench_kernels" "$EX/same/gbench_kernels" "$EX/head/gbench_kernels"; do
  [ -x "$f" ] || { echo "gbench_ab_real: $f is missing (build the project first)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "<flags of others> <verdict of BM_HashChain> <its change>" from a verdicts JSON.
summarize() {
  python3 - "$1" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
others, hash_verdict, change = [], "missing", "n/a"
for m in v["metrics"]:
    if m["metric"] != "time":
        continue
    if "BM_HashChain" in m["workload"]:
        hash_verdict = m["verdict"]
        if m.get("ratio") is not None:
            change = "%+.1f%%" % ((m["ratio"] - 1) * 100)
    elif m["verdict"] in ("regression", "improvement"):
        others.append(m["workload"].split("/", 1)[1] + ":" + m["verdict"])
print(len(others), hash_verdict, change, ",".join(others) or "-")
PY
}

declare -A caught=([same]=0 [head]=0) flagged=([same]=0 [head]=0) secs=([same]=0 [head]=0)
PAIRS=${PAIRS:-same head}
for pair in $PAIRS; do
  for i in $(seq 1 "$RUNS"); do
    t0=$(date +%s.%N)
    set +e
    "$GPUGATE" ab examples/gbench/suite.yaml --base "$EX/base" --head "$EX/$pair" --seed "$i" \
      --quiet --json "$work/v.json" 2>"$work/err"
    code=$?
    set -e
    t1=$(date +%s.%N)
    if [ "$code" -ne 0 ] && [ "$code" -ne 1 ] && [ "$code" -ne 4 ]; then
      echo "gbench_ab_real: gpugate ab failed with exit code $code:" >&2
      cat "$work/err" >&2
      exit 3
    fi
    read -r n_others hash_verdict change others < <(summarize "$work/v.json")
    took=$(python3 -c "print('%.1f' % ($t1 - $t0))")
    secs[$pair]=$(python3 -c "print(${secs[$pair]} + $took)")
    if [ "$pair" = head ]; then
      [ "$hash_verdict" = regression ] && caught[head]=$((caught[head] + 1))
      [ "$n_others" -gt 0 ] && flagged[head]=$((flagged[head] + 1))
    else
      { [ "$n_others" -gt 0 ] || [ "$hash_verdict" = regression ] || [ "$hash_verdict" = improvement ]; } &&
        flagged[same]=$((flagged[same] + 1))
    fi
    printf '%-4s try %2d: exit %d  BM_HashChain %s %s; other benchmarks flagged: %s  (%ss)\n' \
      "$pair" "$i" "$code" "$hash_verdict" "$change" "$others" "$took"
  done
done
echo
case " $PAIRS " in *" same "*)
  echo "identical builds: tries with any benchmark flagged: ${flagged[same]} of $RUNS (goal 0); mean time per ab $(python3 -c "print('%.1f' % (${secs[same]} / $RUNS))")s" ;;
esac
case " $PAIRS " in *" head "*)
  echo "head (+30% BM_HashChain): caught ${caught[head]} of $RUNS (goal >= 19); tries flagging another benchmark: ${flagged[head]} of $RUNS (goal 0); mean time per ab $(python3 -c "print('%.1f' % (${secs[head]} / $RUNS))")s" ;;
esac
echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg)"
