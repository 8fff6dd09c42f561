#!/usr/bin/env bash
# Builds gpugate and runs every test. Builds twice, with the CUDA backend
# (when nvcc is present) and without it, as CI does.
#   scripts/test.sh            both configurations
#   scripts/test.sh --quick    only the default configuration
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

run_config() {
  local dir=$1; shift
  echo "== gpugate: build and test in $dir ($*)"
  scripts/build.sh "$dir" -DGPUGATE_WERROR=ON "$@"
  (cd "$dir" && ctest --output-on-failure -j "$(nproc)" --timeout 600)
}

run_config build -DGPUGATE_WITH_CUDA=AUTO
if [ "${1:-}" != "--quick" ]; then
  run_config build-nocuda -DGPUGATE_WITH_CUDA=OFF -DGPUGATE_BUILD_BENCH=OFF
fi
