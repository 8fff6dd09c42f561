#!/usr/bin/env bash
# Action step "Set up gpugate", in this order:
#   1. `gpugate` already on PATH (unless build-from-source is always);
#   2. the install prefix GPUGATE_PREFIX, restored by the cache step before
#      this one (key: scripts/action/cache_key.sh), once its binary runs —
#      a warm setup, well under 1 s. A binary linked against shared
#      libraries recorded their Debian packages when it was built; those
#      are installed if it does not run without them;
#   3. otherwise (never excepted) build from the action's source: only the
#      build packages (scripts/deps.sh --build; no apt-get when nothing is
#      missing, sudo only when not root), no tests, benchmarks or examples,
#      yaml-cpp and Boost.Program_options linked statically when their
#      archives exist, `cmake --install` into the prefix, which the save
#      step after this one stores for the next job.
# Env: GPUGATE_BUILD (auto|always|never), GPUGATE_CMAKE_ARGS, GPUGATE_SOURCE,
# GPUGATE_PREFIX. Writes bin=<path> and how=path|cache|built to
# $GITHUB_OUTPUT and puts the binary's folder on $GITHUB_PATH for later steps.
set -euo pipefail
mode=${GPUGATE_BUILD:-auto}
prefix=${GPUGATE_PREFIX:-${RUNNER_TEMP:-/tmp}/gpugate-prefix}
runtime_list="$prefix/share/gpugate/runtime-packages"

. "$(dirname "$0")/annotate.sh"
. "$(dirname "$0")/words.sh"
fail() {  # fail MESSAGE: an annotation and exit 2, as for every input error
  annotate error "$*"
  exit 2
}

runs() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

# The restored prefix, if its binary runs (after installing the runtime
# packages it recorded, when it does not run without them).
use_cached() {
  local cached="$prefix/bin/gpugate"
  [ -x "$cached" ] || return 1
  runs "$cached" && return 0
  [ -s "$runtime_list" ] || return 1
  echo "gpugate: the cached gpugate does not run; installing the packages it was linked against" >&2
  local pkgs
  mapfile -t pkgs < "$runtime_list"
  "$GPUGATE_SOURCE/scripts/deps.sh" --packages "${pkgs[@]}" || return 1
  runs "$cached"
}

# The Debian packages owning the shared libraries the installed binary loads
# (one dpkg -S for all of them; libraries outside dpkg, e.g. CUDA's, are left out).
record_runtime_packages() {
  command -v dpkg >/dev/null 2>&1 || return 0
  local patterns
  mapfile -t patterns < <(ldd "$prefix/bin/gpugate" |
    awk '$2 == "=>" && $3 ~ /^\// { n = split($3, p, "/"); print "*/" p[n-1] "/" p[n] }')
  [ ${#patterns[@]} -gt 0 ] || return 0
  mkdir -p "$(dirname "$runtime_list")"
  { dpkg -S "${patterns[@]}" 2>/dev/null || true; } | sed 's/: .*//; s/, /\n/g' | sort -u > "$runtime_list"
}

build_from_source() {
  "$GPUGATE_SOURCE/scripts/deps.sh" --build || fail "could not install the build packages (scripts/deps.sh --build)"
  local build="${RUNNER_TEMP:-/tmp}/gpugate-build" extra=() gen=()
  # cmake-args are shell words, as extra-args are: -DCMAKE_CXX_FLAGS='-O2 -g' is one.
  read_words extra cmake-args "${GPUGATE_CMAKE_ARGS:-}" || fail "$WORDS_ERROR"
  if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
  cmake -S "$GPUGATE_SOURCE" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DGPUGATE_BUILD_TESTS=OFF -DGPUGATE_BUILD_BENCH=OFF -DGPUGATE_BUILD_EXAMPLES=OFF \
    -DGPUGATE_STATIC_DEPS=AUTO -DCMAKE_INSTALL_PREFIX="$prefix" "${extra[@]}" ||
    fail "configuring gpugate failed (cmake-args: '${GPUGATE_CMAKE_ARGS:-}')"
  cmake --build "$build" -j "$(nproc)" --target gpugate || fail "building gpugate failed"
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix" > /dev/null || fail "installing gpugate into $prefix failed"
  record_runtime_packages
}

case "$mode" in auto|always|never) ;; *)
  fail "build-from-source must be auto, always or never (got '$mode')" ;;
esac
start=$(date +%s.%N)
if [ "$mode" != always ] && command -v gpugate >/dev/null 2>&1; then
  bin=$(command -v gpugate); how=path
elif [ "$mode" != always ] && use_cached; then
  bin="$prefix/bin/gpugate"; how=cache
elif [ "$mode" = never ]; then
  fail "gpugate is not on PATH or in $prefix, and build-from-source is 'never'"
else
  build_from_source
  bin="$prefix/bin/gpugate"; how=built
fi
"$bin" --version || fail "$bin does not run"
echo "gpugate: set up from $how ($bin) in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
echo "bin=$bin" >> "$GITHUB_OUTPUT"
echo "how=$how" >> "$GITHUB_OUTPUT"
if [ -n "${GITHUB_PATH:-}" ]; then dirname "$bin" >> "$GITHUB_PATH"; fi
