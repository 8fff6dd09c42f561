#!/usr/bin/env bash
# Action step "Cache key": the key under which a built gpugate is cached —
# its version, a hash of what the binary is built from (CMakeLists.txt,
# cmake/, src/) and of the CMake arguments, and the runner's OS, arch and
# image (a binary built on one image may not run on another) — and the
# install prefix the cache restores into.
# Env: GPUGATE_SOURCE, GPUGATE_CMAKE_ARGS. Writes key= and prefix= to $GITHUB_OUTPUT.
set -euo pipefail
src=${GPUGATE_SOURCE:?}
version=$(sed -n 's/^project(gpugate VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
hash=$( { cd "$src" && find CMakeLists.txt cmake src -type f -print0 | LC_ALL=C sort -z |
          xargs -0 sha256sum; printf 'cmake-args:%s\n' "${GPUGATE_CMAKE_ARGS:-}"; } |
        sha256sum | cut -c1-16)
key="gpugate-${version:-unknown}-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-${ImageOS:-image}-$hash"
echo "key=$key" >> "$GITHUB_OUTPUT"
echo "prefix=${RUNNER_TEMP:-/tmp}/gpugate-prefix" >> "$GITHUB_OUTPUT"
echo "gpugate: cache key $key"
