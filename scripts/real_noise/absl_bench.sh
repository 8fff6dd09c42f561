#!/usr/bin/env bash
# Builds the third program of the real-noise corpora: Abseil's own Google
# Benchmark programs (Debian's abseil 20220623.1 source, Apache-2.0), linked
# into one binary against Debian's libabsl-dev. tests/data/real_noise_absl
# was collected from it; docs/real-noise.md.
#
#   scripts/real_noise/absl_bench.sh OUT_BINARY
#
# Needs `apt-get source` (a deb-src line for Debian's archive) and the
# packages libabsl-dev and libbenchmark-dev. Prints the --benchmark_filter
# of the 15 benchmarks the corpus holds on its last line.
set -euo pipefail
out=${1:?usage: absl_bench.sh OUT_BINARY}
log() { echo "absl_bench: $*" >&2; }
for pkg in libabsl-dev libbenchmark-dev; do
  if ! dpkg -s "$pkg" >/dev/null 2>&1; then
    log "error: $pkg is not installed (apt-get install $pkg)"
    exit 2
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source --download-only abseil >/dev/null 2>"$work/apt.err") || {
  log "error: apt-get source abseil failed (is there a deb-src line for Debian's archive?):"
  cat "$work/apt.err" >&2
  exit 2
}
tar -xzf "$work"/abseil_*.orig.tar.gz -C "$work"
src=$(echo "$work"/abseil-*/)
sources=(
  absl/hash/hash_benchmark.cc absl/container/btree_benchmark.cc
  absl/synchronization/mutex_benchmark.cc absl/strings/str_cat_benchmark.cc
  absl/strings/charconv_benchmark.cc absl/container/internal/raw_hash_set_benchmark.cc
  absl/numeric/int128_benchmark.cc absl/strings/str_split_benchmark.cc
  absl/container/inlined_vector_benchmark.cc absl/random/benchmarks.cc
  absl/container/internal/hash_generator_testing.cc
  absl/container/internal/test_instance_tracker.cc
)
objects=()
for f in "${sources[@]}"; do
  log "compiling $f"
  o=$work/$(echo "$f" | tr / _).o
  # The installed headers first (Debian's options.h), the source tree's
  # test helpers after them.
  (cd "$src" && "${CXX:-g++}" -std=c++17 -O2 -idirafter . -c "$f" -o "$o")
  objects+=("$o")
done
mapfile -t libs < <(ls /usr/lib/*/libabsl_*.so | sed 's|.*/lib\(absl_[^.]*\)\.so$|-l\1|')
"${CXX:-g++}" -o "$out" "${objects[@]}" -Wl,--start-group "${libs[@]}" -Wl,--end-group \
  -lbenchmark_main -lbenchmark -lpthread
log "built $out"
echo '--benchmark_filter=^(BM_StdVectorFill/64|BM_InlinedVectorFillString/512|BM_CacheInSteadyState/628|BM_ReserveIntTable/4096|BM_Shuffle<absl::BitGen,.1000>|BM_Shuffle<absl::BitGen,.1000>/threads:2|BM_Strtod_Big_And_Difficult/512|BM_Absl_Big_And_Difficult/512|BM_StrAppend/1000/2|BM_Split2StringView/4096|BM_Split2StringView/1048576|BM_Mutex/real_time/threads:2|BM_Contended<absl::Mutex>/cs_ns:1/num_prios:1/real_time/threads:4|BM_flat_hash_set_int32_t_Lookup|BM_btree_256_set_int32_t_Lookup)$'
