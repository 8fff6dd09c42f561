#!/usr/bin/env bash
# The demo: builds gpugate, runs the CPU example suite on this machine and
# summarises the results (the CUDA backend is used where a GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build >/dev/null
mkdir -p out
./build/gpugate run examples/cpu.yaml -o out/results.json
echo
echo "results written to out/results.json"
