#!/usr/bin/env bash
# Real noise end to end: build the benchmark program and the evaluator (if
# needed), collect a corpus on this machine (unless one is given), describe its
# noise and measure gpugate's judge on it. docs/real-noise.md.
#
#   scripts/real_noise/run.sh [CORPUS_DIR] [-- EVALUATOR_OPTIONS...]
#
# Without CORPUS_DIR a fresh corpus is collected into BUILD_DIR/real-noise-corpus (30
# quiet + 10 noisy processes, ~5-8 minutes). BUILD_DIR (default build) is the
# CMake build directory; it is configured with CUDA off when it does not exist.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
corpus=
if [ $# -gt 0 ] && [ "$1" != "--" ]; then corpus=$1; shift; fi
[ "${1:-}" = "--" ] && shift

if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUGATE_WITH_CUDA=OFF >&2
fi
cmake --build "$build" -j"${JOBS:-1}" --target gpugate_noise_eval gpugate_noise_bench >&2

if [ -z "$corpus" ]; then
  corpus=$build/real-noise-corpus
  NOISE_BENCH=$build/gpugate_noise_bench "$root/scripts/real_noise/collect.sh" "$corpus"
fi
python3 "$root/scripts/real_noise/analyze.py" "$corpus"
echo
"$build/gpugate_noise_eval" --corpus "$corpus" "$@"
