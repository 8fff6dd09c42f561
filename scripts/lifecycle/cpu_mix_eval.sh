#!/usr/bin/env bash
# How the judge does when a runner class draws different CPU models: for each
# trial, a history of 10 nightly runs whose CPU alternates between this
# machine's, one 25% slower and one 15% faster (each with a fixed +-4% effect
# per workload, scripts/lifecycle/as_cpu.py), then a clean current run and one
# with a workload 50% slower, each placed on this machine's CPU, on the slower
# CPU of the history, or on a CPU the history never saw (x1.4, its own +-4%),
# compared with the default policy and with a 15% threshold.
# Workloads are synthetic (seeded draws, 3% noise), 6 per run.
#   scripts/lifecycle/cpu_mix_eval.sh GPUGATE [TRIALS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
G=${1:?usage: cpu_mix_eval.sh GPUGATE [TRIALS]}
TRIALS=${2:-30}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
suite() {
  cat <<EOF
version: 1
name: perf
defaults: {warmup: 0, min_samples: 30, max_samples: 30, min_time: 0, rounds: 5}
workloads:
  - name: sgemm
    kind: synthetic
    synthetic: {median: 2ms, cv: 3%, slowdown: $1}
  - name: kernel/{id}
    kind: synthetic
    params: {id: [copy, triad, saxpy, reduce, scan]}
    synthetic: {median: 1ms, cv: 3%}
EOF
}
suite 1.0 > "$W/same.yaml"
suite 1.5 > "$W/slow.yaml"
printf 'version: 1\nname: t15\ndefaults: {threshold: 15%%}\n' > "$W/t15.yaml"
CPUS=("" "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz:1.25" "AMD EPYC 9V74 80-Core Processor:0.85")
declare -A count=()
bump() { count[$1]=$(( ${count[$1]:-0} + 1 )); }
for t in $(seq 1 "$TRIALS"); do
  rm -f "$W/hist.json"
  for n in $(seq 1 10); do
    "$G" run "$W/same.yaml" -o "$W/n.json" -q --seed $((t * 100 + n)) --env-key eval
    cpu=${CPUS[$(((n + t) % 3))]}
    [ -z "$cpu" ] || /usr/bin/python3 "$ROOT/scripts/lifecycle/as_cpu.py" "$W/n.json" "${cpu%%:*}" "${cpu##*:}"
    "$G" baseline update --results "$W/n.json" --baseline "$W/hist.json" --keep 30 > /dev/null
  done
  for place in own seen unseen; do
    "$G" run "$W/same.yaml" -o "$W/clean.json" -q --seed $((t * 100 + 50)) --env-key eval
    "$G" run "$W/slow.yaml" -o "$W/slow.json" -q --seed $((t * 100 + 51)) --env-key eval
    for f in clean slow; do
      case $place in
        seen) /usr/bin/python3 "$ROOT/scripts/lifecycle/as_cpu.py" "$W/$f.json" "${CPUS[1]%%:*}" "${CPUS[1]##*:}" ;;
        unseen) /usr/bin/python3 "$ROOT/scripts/lifecycle/as_cpu.py" "$W/$f.json" "New CPU 9000" 1.4 ;;
      esac
    done
    for policy in default t15; do
      args=()
      [ "$policy" = default ] || args=(--policy "$W/t15.yaml")
      k="$place/$policy"
      rc=0; "$G" compare "$W/hist.json" "$W/clean.json" -q "${args[@]}" --json "$W/v.json" || rc=$?
      [ "$rc" -eq 1 ] && bump "$k-false-alarm"
      grep -q '"outcome": "pass"' "$W/v.json" && bump "$k-clean-pass"
      rc=0; "$G" compare "$W/hist.json" "$W/slow.json" -q "${args[@]}" --json "$W/v.json" || rc=$?
      [ "$rc" -eq 1 ] && bump "$k-caught"
    done
  done
done
echo "cpu-mix evaluation: $TRIALS trials, history of 10 runs on 3 CPU models (x1.0, x1.25, x0.85, +-4% per workload)"
for place in own seen unseen; do
  for policy in default t15; do
    k="$place/$policy"
    printf '  current on %-6s CPU, policy %-7s: clean run flagged %2d/%d, a decided pass %2d/%d; +50%% caught %2d/%d\n' \
      "$place" "$policy" "${count[$k-false-alarm]:-0}" "$TRIALS" "${count[$k-clean-pass]:-0}" "$TRIALS" \
      "${count[$k-caught]:-0}" "$TRIALS"
  done
done
