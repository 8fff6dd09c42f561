#!/usr/bin/env bash
# The demo: builds gpugate, runs the CPU example suite twice on this machine
# (the CUDA backend is used where a GPU is present), and gates the second run
# against the first, as a pre-merge check would. Artifacts land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build >/dev/null
mkdir -p out
G=./build/gpugate

echo "== 1. baseline run: examples/cpu.yaml"
$G run examples/cpu.yaml -o out/baseline.json
echo
echo "== 2. gate: run the suite again, compare with the baseline, re-run doubtful workloads"
set +e
$G gate examples/cpu.yaml --baseline out/baseline.json -o out/results.json \
  --markdown out/report.md --junit out/junit.xml --json out/verdicts.json --html out/report.html
code=$?
set -e
echo
outcome=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outcome"])' out/verdicts.json 2>/dev/null || echo unknown)
case $code in
  0) if [ "$outcome" = not_judged ]; then
       echo "gate: not judged (exit 0): this machine was too noisy to decide; the report says what it could have seen"
     else
       echo "gate: pass (exit 0)"
     fi;;
  1) echo "gate: regression (exit 1)";;
  4) echo "gate: inconclusive (exit 4)";;
  *) echo "gate: error (exit $code)"; exit "$code";;
esac
echo "artifacts: out/baseline.json out/results.json out/report.md out/junit.xml out/verdicts.json out/report.html"
