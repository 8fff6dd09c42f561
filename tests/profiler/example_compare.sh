#!/usr/bin/env bash
# examples/profiler run twice with the process-wide profiler switched on by
# the environment, then `gpugate compare` on the two results files: exit 0,
# every operation of the example named in the report. Also: without
# GPUGATE_PROFILE=1 (unset, or another value) the program writes nothing,
# prints no summary and warns about the output it will not write.
#   tests/profiler/example_compare.sh PROFILER_EXAMPLE GPUGATE
set -euo pipefail
example=${1:?usage: example_compare.sh PROFILER_EXAMPLE GPUGATE}
gpugate=${2:?usage: example_compare.sh PROFILER_EXAMPLE GPUGATE}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

GPUGATE_PROFILE_OUTPUT="$work/off.json" "$example" > "$work/off.txt" 2> "$work/off.err"
[ ! -e "$work/off.json" ] || { echo "wrote a results file while disabled"; exit 1; }
! grep -q "gpugate profile:" "$work/off.txt" || { echo "printed a summary while disabled"; exit 1; }
grep -q "GPUGATE_PROFILE is not 1" "$work/off.err" || { echo "no warning for an output without GPUGATE_PROFILE=1"; exit 1; }
GPUGATE_PROFILE=yes GPUGATE_PROFILE_OUTPUT="$work/bad.json" "$example" > /dev/null 2> "$work/bad.err"
[ ! -e "$work/bad.json" ] || { echo "GPUGATE_PROFILE=yes enabled the profiler"; exit 1; }
grep -q "GPUGATE_PROFILE=yes is not 0 or 1" "$work/bad.err" || { echo "no warning for GPUGATE_PROFILE=yes"; exit 1; }

for side in base head; do
  GPUGATE_PROFILE=1 GPUGATE_PROFILE_OUTPUT="$work/$side.json" "$example" > "$work/$side.txt"
  [ -s "$work/$side.json" ] || { echo "$side: no results file"; exit 1; }
  grep -q "gpugate profile: " "$work/$side.txt" || { echo "$side: no summary"; cat "$work/$side.txt"; exit 1; }
done
# No temporary file left beside the output (written as temp + rename).
[ "$(ls "$work" | grep -c '\.json')" -eq 2 ] || { ls -la "$work"; exit 1; }

code=0
"$gpugate" compare "$work/base.json" "$work/head.json" --markdown "$work/report.md" > "$work/compare.txt" || code=$?
cat "$work/compare.txt"
[ "$code" -eq 0 ] || { echo "gpugate compare exited $code, expected 0"; exit 1; }
for name in sort/200k hash/4MiB matmul/96; do
  grep -qF "$name" "$work/compare.txt" || { echo "compare output lacks $name"; exit 1; }
  grep -qF "$name" "$work/report.md" || { echo "markdown report lacks $name"; exit 1; }
done
echo "profiler example: two runs compared, exit 0"
