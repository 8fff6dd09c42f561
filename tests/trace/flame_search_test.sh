#!/usr/bin/env bash
# Writes the flame graph page of two fixture traces and runs its script in
# Node (flame_search_test.js): search counts and time shares in all three
# views. Usage: flame_search_test.sh GPUGATE OUT_DIR    (ctest: flame_search_js)
# Exit 77 (skipped) when node is missing.
set -euo pipefail
gpugate=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null 2>&1; then
  echo "flame_search_test: skipped: no node (apt-get install nodejs)" >&2
  exit 77
fi
mkdir -p "$out"
for trace in kineto_cuda_event_sync.json kineto_simple_add_a100.json; do
  "$gpugate" analyze "tests/data/traces/$trace" --flame "$out/${trace%.json}.html" >/dev/null
  node "$here/flame_search_test.js" "$out/${trace%.json}.html"
done
