#!/usr/bin/env bash
# Checks that BM_TlbChaseThpLottery of gpugate_noise_bench is bimodal across
# processes: runs N short processes of only the two page-stride chases and
# prints each process's median time with the page size it drew, sorted, then
# the range of each group. docs/real-noise.md.
#
#   scripts/real_noise/check_lottery.sh [N] [NOISE_BENCH]     (N default 16, ~2 s each)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-16}
bench=${2:-${NOISE_BENCH:-$root/build/gpugate_noise_bench}}
[ -x "$bench" ] || { echo "check_lottery: no program at $bench" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$n"); do
  "$bench" --benchmark_filter='TlbChase' --benchmark_repetitions=5 --benchmark_min_time=0.05 \
    --benchmark_out_format=json --benchmark_out="$tmp/$i.json" >/dev/null 2>&1
  echo "check_lottery: process $i/$n, load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
python3 - "$tmp" <<'PY'
import glob, json, statistics, sys
rows = []
for f in glob.glob(sys.argv[1] + "/*.json"):
    doc = json.load(open(f))
    times = {}
    for r in doc["benchmarks"]:
        if r.get("run_type") == "iteration":
            times.setdefault(r["run_name"], []).append(r["real_time"])
    med = {k: statistics.median(v) for k, v in times.items()}
    rows.append((med["BM_TlbChaseThpLottery"], doc["context"]["thp_lottery"], med["BM_TlbChase"]))
rows.sort()
print("| BM_TlbChaseThpLottery median | pages drawn | BM_TlbChase median (default pages) |")
print("|---|---|---|")
for lottery, pages, tlb in rows:
    print("| %.3f ms | %s | %.3f ms |" % (lottery, pages, tlb))
for pages in ("huge", "small"):
    v = [r[0] for r in rows if r[1] == pages]
    if v:
        print("%s: %d processes, %.3f to %.3f ms, median %.3f ms" % (pages, len(v), min(v), max(v), statistics.median(v)))
PY
