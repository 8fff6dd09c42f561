#!/usr/bin/env bash
# Makes the pages the browser test loads: the HTML report of a compare with a
# baseline history of 12 runs (a change point to draw), one workload 25% slower
# and a workload whose name is hostile markup; and the history dashboard over
# that baseline (OUT_DIR/site/).
# Usage: make_reports.sh GPUGATE OUT_DIR
set -euo pipefail
gpugate=$1
out=$2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

suite() {  # $1 = slowdown of "decode", $2 = run drift seed
  cat <<YAML
version: 1
name: browser
defaults: {warmup: 0, min_samples: 40, max_samples: 60, rounds: 8, min_time: 0s}
workloads:
  - name: encode
    kind: synthetic
    synthetic: {median: 1ms, cv: 2%, run_drift: 1%, seed: $2}
  - name: decode
    kind: synthetic
    synthetic: {median: 2ms, cv: 2%, run_drift: 1%, seed: $(($2 + 1)), slowdown: $1}
  - name: Ωmega/resize/1024
    kind: synthetic
    synthetic: {median: 500us, cv: 3%, run_drift: 1%, seed: $(($2 + 2))}
  - name: "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','1')\">"
    kind: synthetic
    synthetic: {median: 3ms, cv: 2%, run_drift: 1%, seed: $(($2 + 3))}
YAML
}

# Twelve nightly runs: the last six after a step up of "encode" (a change point).
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
  suite 1.0 $((i * 10)) > "$work/suite.yaml"
  if [ "$i" -gt 6 ]; then sed -i 's/median: 1ms/median: 1.2ms/' "$work/suite.yaml"; fi
  "$gpugate" run "$work/suite.yaml" -o "$work/run$i.json" -q --seed "$i"
  "$gpugate" baseline update --results "$work/run$i.json" --baseline "$out/baselines/browser/ci-runner.json" >/dev/null
done
# The history dashboard over the same baseline.
"$gpugate" dashboard "$out/baselines" -o "$out/site" -q
suite 1.25 90 > "$work/suite.yaml"
sed -i 's/median: 1ms/median: 1.2ms/' "$work/suite.yaml"
"$gpugate" run "$work/suite.yaml" -o "$work/current.json" -q --seed 13
set +e
"$gpugate" compare "$out/baselines/browser/ci-runner.json" "$work/current.json" --html "$out/report.html" \
  --json "$out/verdicts.json" -q
code=$?
set -e
if [ "$code" -ne 1 ]; then
  echo "make_reports: expected compare to exit 1 (decode is 25% slower), got $code" >&2
  exit 1
fi
echo "$out/report.html"
