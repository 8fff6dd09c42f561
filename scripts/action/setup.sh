#!/usr/bin/env bash
# Action step "Set up gpugate", in this order:
#   1. `gpugate` already on PATH (unless build-from-source is always);
#   2. the install prefix GPUGATE_PREFIX, restored by the cache step before
#      this one (key: gpugate version, hash of its sources and CMake
#      arguments, runner OS, arch and image) — a warm setup, well under 1 s;
#   3. otherwise (never excepted) build from the action's source: only the
#      build dependencies (scripts/deps.sh --build; sudo only when something
#      is missing and we are not root), yaml-cpp and Boost.Program_options
#      linked statically, `cmake --install` into the prefix, which the cache
#      step then saves for the next job.
# Env: GPUGATE_BUILD (auto|always|never), GPUGATE_CMAKE_ARGS, GPUGATE_SOURCE,
# GPUGATE_PREFIX. Writes bin=<path> and how=path|cache|built to
# $GITHUB_OUTPUT and puts the binary's folder on $GITHUB_PATH for later steps.
set -euo pipefail
mode=${GPUGATE_BUILD:-auto}
case "$mode" in auto|always|never) ;; *)
  echo "::error title=gpugate::build-from-source must be auto, always or never (got '$mode')"; exit 2 ;;
esac
prefix=${GPUGATE_PREFIX:-${RUNNER_TEMP:-/tmp}/gpugate-prefix}
start=$(date +%s.%N)
bin=""
how=""
if [ "$mode" != always ] && command -v gpugate >/dev/null 2>&1; then
  bin=$(command -v gpugate); how=path
elif [ "$mode" != always ] && [ -x "$prefix/bin/gpugate" ] && "$prefix/bin/gpugate" --version >/dev/null 2>&1; then
  bin="$prefix/bin/gpugate"; how=cache
elif [ "$mode" = never ]; then
  echo "::error title=gpugate::gpugate is not on PATH or in $prefix, and build-from-source is 'never'"
  exit 2
else
  "$GPUGATE_SOURCE/scripts/deps.sh" --build
  build="${RUNNER_TEMP:-/tmp}/gpugate-build"
  read -r -a extra <<< "${GPUGATE_CMAKE_ARGS:-}"
  gen=()
  if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
  cmake -S "$GPUGATE_SOURCE" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DGPUGATE_BUILD_TESTS=OFF -DGPUGATE_BUILD_BENCH=OFF -DGPUGATE_STATIC_DEPS=ON \
    -DCMAKE_INSTALL_PREFIX="$prefix" "${extra[@]}"
  cmake --build "$build" -j "$(nproc)" --target gpugate
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix" > /dev/null
  bin="$prefix/bin/gpugate"; how=built
fi
"$bin" --version
echo "gpugate: set up from $how ($bin) in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
echo "bin=$bin" >> "$GITHUB_OUTPUT"
echo "how=$how" >> "$GITHUB_OUTPUT"
if [ -n "${GITHUB_PATH:-}" ]; then dirname "$bin" >> "$GITHUB_PATH"; fi
