#!/usr/bin/env bash
# The install tree, tested from outside: `cmake --install` gpugate's build
# into a fresh prefix, check the installed tool runs, then configure, build
# and run tests/install_consumer against the installed package only, on
# results the installed tool measures.
# The same consumer builds examples/profiler against the installed
# gpugate::profiler, runs it twice with GPUGATE_PROFILE=1 and compares the two
# results files with the installed tool.
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
[ -f "$work/prefix/include/gpugate/profiler.h" ] || { echo "gpugate/profiler.h not installed"; exit 1; }
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
  -DGPUGATE_EXAMPLES_DIR="$source/examples" \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache || true)" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
grep -q "gpugate tool: $work/prefix/bin/gpugate" "$work/configure.log" ||
  { echo "gpugate::gpugate does not point into the prefix"; cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/consumer/consumer" "$work/results.json"
# The profiler library brings no yaml-cpp or Boost into its users.
links=$(grep "gpugate::profiler links:" "$work/configure.log") ||
  { echo "gpugate::profiler not found"; cat "$work/configure.log"; exit 1; }
if grep -qiE 'yaml|boost' <<<"$links"; then echo "gpugate::profiler drags in: $links"; exit 1; fi
for side in base head; do
  GPUGATE_PROFILE=1 GPUGATE_PROFILE_OUTPUT="$work/profile-$side.json" "$work/consumer/profiler_example" \
    > "$work/profile-$side.txt"
done
grep -qE "gpugate profile: [0-9]+ operations" "$work/profile-base.txt" || { cat "$work/profile-base.txt"; exit 1; }
"$work/prefix/bin/gpugate" compare "$work/profile-base.json" "$work/profile-head.json" > "$work/profile-compare.txt" ||
  { code=$?; cat "$work/profile-compare.txt"; echo "compare of two profiler runs exited $code"; exit 1; }
grep -qF "sort/200k" "$work/profile-compare.txt" || { cat "$work/profile-compare.txt"; exit 1; }
echo "installed profiler example: two runs compared, exit 0"
echo "install consumer: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
