#!/usr/bin/env bash
# Action step "Cache key": the key under which a built gpugate is cached, and
# the install prefix the cache restores into. The key holds what decides the
# binary: gpugate's version; a hash of what it is built from (CMakeLists.txt,
# cmake/, src/, include/, policies/ (the default policy is compiled in), the
# build recipe scripts/action/setup.sh and scripts/deps.sh), of the CMake
# arguments and of the CUDA compiler CMake would find (its version decides
# whether and how the CUDA backend is built); and the machine it runs on:
# runner OS, arch and image (hosted runners' ImageOS; on self-hosted runners
# the distribution from /etc/os-release), since a binary built on one image
# may not run on another.
# Env: GPUGATE_SOURCE, GPUGATE_CMAKE_ARGS. Writes key= and prefix= to $GITHUB_OUTPUT.
set -euo pipefail
src=${GPUGATE_SOURCE:?}
version=$(sed -n 's/^project(gpugate VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
image=${ImageOS:-}
if [ -z "$image" ] && [ -r /etc/os-release ]; then
  image=$(. /etc/os-release && echo "${ID:-linux}${VERSION_ID:-}")
fi
nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
inputs=()
for p in CMakeLists.txt cmake src include policies scripts/action/setup.sh scripts/deps.sh; do
  if [ -e "$src/$p" ]; then inputs+=("$p"); fi
done
hash=$( { cd "$src" && find "${inputs[@]}" -type f -print0 |
          LC_ALL=C sort -z | xargs -0 sha256sum
          printf 'cmake-args:%s\n' "${GPUGATE_CMAKE_ARGS:-}"
          if [ -n "$nvcc" ]; then "$nvcc" --version 2>/dev/null | tail -n 1; fi; } |
        sha256sum | cut -c1-16)
key="gpugate-${version:-unknown}-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-${image:-image}-$hash"
echo "key=$key" >> "$GITHUB_OUTPUT"
echo "prefix=${RUNNER_TEMP:-/tmp}/gpugate-prefix" >> "$GITHUB_OUTPUT"
echo "gpugate: cache key $key"
