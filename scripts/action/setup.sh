#!/usr/bin/env bash
# Action step "Set up gpugate": use gpugate from PATH, or install the Debian
# build dependencies and build it from the action's source with CMake.
# Env: GPUGATE_BUILD (auto|always|never), GPUGATE_CMAKE_ARGS, GPUGATE_SOURCE.
# Writes `bin=<path>` to $GITHUB_OUTPUT.
set -euo pipefail
mode=${GPUGATE_BUILD:-auto}
case "$mode" in auto|always|never) ;; *)
  echo "::error title=gpugate::build-from-source must be auto, always or never (got '$mode')"; exit 2 ;;
esac
bin=""
if [ "$mode" != always ] && command -v gpugate >/dev/null 2>&1; then
  bin=$(command -v gpugate)
elif [ "$mode" = never ]; then
  echo "::error title=gpugate::gpugate is not on PATH and build-from-source is 'never'"
  exit 2
else
  "$GPUGATE_SOURCE/scripts/deps.sh"
  build="${RUNNER_TEMP:-/tmp}/gpugate-build"
  read -r -a extra <<< "${GPUGATE_CMAKE_ARGS:-}"
  gen=()
  if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
  cmake -S "$GPUGATE_SOURCE" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DGPUGATE_BUILD_TESTS=OFF -DGPUGATE_BUILD_BENCH=OFF "${extra[@]}"
  cmake --build "$build" -j "$(nproc)" --target gpugate
  bin="$build/gpugate"
fi
"$bin" --version
echo "bin=$bin" >> "$GITHUB_OUTPUT"
