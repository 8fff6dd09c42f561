#!/usr/bin/env bash
# The install tree, tested from outside: `cmake --install` gpugate's build
# into a fresh prefix, check the installed tool runs, then configure, build
# and run tests/install_consumer against the installed package only, on
# results the installed tool measures.
#   tests/install_consumer/run.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
"$work/prefix/bin/gpugate" --version
[ -f "$work/prefix/include/gpugate/model/results.h" ] || { echo "headers not installed"; exit 1; }
# The package must stand on its own: no path into this build or source tree.
source=$(cd "$here/../.." && pwd)
if grep -rn -e "$build" -e "$source" "$work/prefix/lib/cmake/gpugate"; then
  echo "the installed CMake package refers to the build or source tree"; exit 1
fi
cat > "$work/suite.yaml" <<'YAML'
version: 1
name: consumer
defaults: {warmup: 0, min_samples: 20, max_samples: 20, min_time: 0, rounds: 5}
workloads:
  - name: kernel/{id}
    kind: synthetic
    params: {id: [a, b, c, d, e, f]}
    synthetic: {median: 1ms, cv: 1%, seed: 5}
YAML
"$work/prefix/bin/gpugate" run "$work/suite.yaml" -o "$work/results.json" -q
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
# CMAKE_FIND_USE_PACKAGE_REGISTRY off and only this prefix: the build tree
# must not be what find_package finds.
cmake -S "$here" -B "$work/consumer" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache || true)" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
grep -q "gpugate tool: $work/prefix/bin/gpugate" "$work/configure.log" ||
  { echo "gpugate::gpugate does not point into the prefix"; cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/consumer/consumer" "$work/results.json"
echo "install consumer: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
