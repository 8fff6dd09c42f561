#!/usr/bin/env bash
# Collects a real-noise corpus: a Google Benchmark program (by default
# scripts/real_noise/noise_bench.cc) run as many separate processes of
# identical code, some on a quiet machine and some next to a noisy neighbour
# this script starts and stops itself. docs/real-noise.md.
#
#   scripts/real_noise/collect.sh OUT_DIR [QUIET_RUNS] [NOISY_RUNS]
#
# Writes OUT_DIR/quiet/run_NN.json and OUT_DIR/noisy/run_NN.json (Google
# Benchmark JSON, 5 repetitions per benchmark; the aggregate rows mean, median,
# stddev and cv are dropped to halve the size: they are computed from the
# repetition rows, which gpugate reads) and OUT_DIR/processes.tsv: per
# process its file, condition, start time, load averages at its start (other
# work on the machine shows there), wall time and the page-size lottery's draw.
# Noisy runs are spread evenly among quiet ones, so a drift of the machine
# over the collection touches both conditions alike.
#
# Environment: NOISE_BENCH (the program; default build/gpugate_noise_bench,
# else it is compiled with $CXX), BENCH_ARGS (more arguments for each process,
# e.g. --benchmark_filter=...), NEIGHBOUR (the program whose --neighbour mode
# is the noisy neighbour; default NOISE_BENCH, so give gpugate_noise_bench here
# when NOISE_BENCH is another program), MIN_TIME (--benchmark_min_time,
# seconds, default 0.05), REPETITIONS (default 5), NEIGHBOUR_MIB (default 256).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: collect.sh OUT_DIR [QUIET_RUNS] [NOISY_RUNS]}
quiet=${2:-30}
noisy=${3:-10}
min_time=${MIN_TIME:-0.05}
reps=${REPETITIONS:-5}
neighbour_mib=${NEIGHBOUR_MIB:-256}
log() { echo "collect: $*" >&2; }

bench=${NOISE_BENCH:-$root/build/gpugate_noise_bench}
tmp=$(mktemp -d)
neighbour_pid=
cleanup() {
  if [ -n "$neighbour_pid" ]; then kill "$neighbour_pid" 2>/dev/null || true; wait "$neighbour_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ ! -x "$bench" ]; then
  log "no $bench; compiling noise_bench.cc with ${CXX:-c++}"
  bench=$tmp/noise_bench
  "${CXX:-c++}" -O2 -std=c++17 -o "$bench" "$here/noise_bench.cc" -lbenchmark -lpthread
fi

neighbour_bin=${NEIGHBOUR:-$bench}
if [ "$noisy" -gt 0 ] && ! "$neighbour_bin" --neighbour=0 --neighbour_mib=1 >/dev/null 2>&1; then
  log "error: $neighbour_bin has no --neighbour mode; set NEIGHBOUR=build/gpugate_noise_bench or give 0 noisy runs (the third argument)"
  exit 2
fi

mkdir -p "$out/quiet" "$out/noisy"
table=$out/processes.tsv
printf 'file\tcondition\tstart_utc\tload1\tload5\tload15\trunnable\twall_s\tthp_lottery\tanon_huge_kib\n' >"$table"

# The neighbour: streams through a large buffer and burns a core; it ends by
# itself after 120 s at most, and is killed as soon as its process is done.
start_neighbour() {
  "$neighbour_bin" --neighbour=120 --neighbour_mib="$neighbour_mib" &
  neighbour_pid=$!
  sleep 0.5  # let it fault its buffer in and reach its loop
}
stop_neighbour() {
  kill "$neighbour_pid" 2>/dev/null || true
  wait "$neighbour_pid" 2>/dev/null || true
  neighbour_pid=
}

strip_aggregates() {  # strip_aggregates FILE: keep context and repetition rows
  python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["benchmarks"] = [r for r in doc["benchmarks"] if r.get("run_type") != "aggregate"]
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
PY
}

context_value() {  # context_value FILE KEY
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"].get(sys.argv[2], "?"))' "$1" "$2"
}

total=$((quiet + noisy))
q=0 n=0
t0=$(date +%s)
for i in $(seq 0 $((total - 1))); do
  # Noisy slots spread evenly: slot i is noisy when floor((i+1)N/T) > floor(iN/T).
  if [ $(((i + 1) * noisy / total)) -gt $((i * noisy / total)) ]; then
    n=$((n + 1)); cond=noisy; file=$(printf 'noisy/run_%02d.json' "$n")
  else
    q=$((q + 1)); cond=quiet; file=$(printf 'quiet/run_%02d.json' "$q")
  fi
  [ "$cond" = noisy ] && start_neighbour
  read -r l1 l5 l15 runq _ </proc/loadavg
  start_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  s=$(date +%s.%N)
  # shellcheck disable=SC2086  # BENCH_ARGS is a list of arguments
  if ! "$bench" ${BENCH_ARGS:-} --benchmark_repetitions="$reps" --benchmark_min_time="$min_time" \
       --benchmark_out_format=json --benchmark_out="$out/$file" >/dev/null 2>"$tmp/stderr"; then
    cat "$tmp/stderr" >&2
    log "process $((i + 1)) failed"
    exit 3
  fi
  e=$(date +%s.%N)
  [ "$cond" = noisy ] && stop_neighbour
  strip_aggregates "$out/$file"
  wall=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.1f", b - a }')
  thp=$(context_value "$out/$file" thp_lottery)
  huge=$(context_value "$out/$file" anon_huge_kib)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$cond" "$start_utc" "$l1" "$l5" "$l15" \
    "$runq" "$wall" "$thp" "$huge" >>"$table"
  log "$((i + 1))/$total $file: ${wall}s, load $l1, pages $thp, elapsed $(($(date +%s) - t0))s"
done
log "done: $quiet quiet + $noisy noisy processes in $(($(date +%s) - t0))s -> $out"
