#!/usr/bin/env bash
# End to end: no process a workload leaves behind outlives it.
#
#   leftover_processes.sh GPUGATE ORPHAN_PROBE [--report]
#
# Runs a suite of command workloads that misbehave on purpose
# (tests/programs/orphan_probe.cc: a backgrounded sleeper, a double-forked
# setsid daemon, a child holding stderr open, a child that ignores SIGTERM,
# zombies, a stopped child, a child whose main thread exited while another
# runs, all of them at once, and a shell `sleep &`) through
# `gpugate run`; the suite's last workload counts, while gpugate still runs,
# the processes that carry this test's marker and the zombies among gpugate's
# children. Then it checks: that count is 0 and 0; after gpugate has exited no
# process with the marker is left and no zombie hangs below one; every
# misbehaving workload has a note in the results JSON (the SIGKILL one says
# so); the run took well under the sleepers' 20 s.
#
# --report prints the same figures and exits 0 whatever they are (to measure a
# gpugate without this: docs/safety.md). Processes with the marker that
# remain at the end are killed by pid (they are this test's own).
set -u

gpugate=$1
probe=$2
report=${3:-}
sleep_s=20
token="leftover-$$-$(date +%s%N)"
work=$(mktemp -d /tmp/gpugate-leftover-XXXXXX)

# "marked PIDS..." (processes whose environment holds the marker) and
# "zombies PIDS..." (zombies whose parent is one of them), one /proc pass.
scan_proc() {
  python3 - "ORPHAN_PROBE_TOKEN=$token" <<'EOF'
import os, sys
marker = sys.argv[1].encode()
marked, parent_of, state_of = [], {}, {}
for name in os.listdir("/proc"):
    if not name.isdigit():
        continue
    pid = int(name)
    try:
        with open(f"/proc/{name}/environ", "rb") as f:
            if marker in f.read().split(b"\0"):
                marked.append(pid)
    except OSError:
        pass
    try:
        with open(f"/proc/{name}/stat", "rb") as f:
            rest = f.read().rsplit(b")", 1)[1].split()
        state_of[pid], parent_of[pid] = rest[0], int(rest[1])
    except (OSError, IndexError, ValueError):
        pass
zombies = [p for p, s in state_of.items() if s == b"Z" and parent_of[p] in marked]
print("marked", *sorted(marked))
print("zombies", *sorted(zombies))
EOF
}

cleanup() {
  local p
  for p in $(scan_proc | sed -n 's/^marked//p'); do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

{
  echo "version: 1"
  echo "defaults: {warmup: 0, min_samples: 2, max_samples: 2, rounds: 1, min_time: 0s, max_time: 10s, timeout: 10s}"
  echo "workloads:"
  for mode in background daemon holds-stderr ignores-term zombie stopped main-thread-exited all; do
    echo "  - {name: $mode, kind: command, argv: ['$probe', $mode, '$sleep_s'], env: {ORPHAN_PROBE_TOKEN: '$token'}}"
  done
  echo "  - {name: shell-background, kind: command, shell: true, argv: ['sleep $sleep_s & echo started >&2'], env: {ORPHAN_PROBE_TOKEN: '$token'}}"
  echo "  - {name: check, kind: command, argv: ['$probe', check, '$token', '$work/check.txt'], env: {ORPHAN_PROBE_TOKEN: '$token'}}"
} > "$work/suite.yaml"

start=$(date +%s%N)
"$gpugate" run "$work/suite.yaml" -o "$work/results.json" > "$work/stdout.txt" 2> "$work/stderr.txt"
rc=$?
end=$(date +%s%N)
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')

in_run=$(cat "$work/check.txt" 2>/dev/null || echo "marked=? zombies=?")
scan=$(scan_proc)
left=$(echo "$scan" | sed -n 's/^marked *//p')
zombies=$(echo "$scan" | sed -n 's/^zombies *//p')
n_left=$(echo $left | wc -w)
n_zombies=$(echo $zombies | wc -w)

echo "gpugate run: exit $rc after $seconds s (the sleepers sleep $sleep_s s)"
echo "while running (last workload): $in_run"
echo "after gpugate exited: $n_left processes with the marker (pids: ${left:-none}), $n_zombies zombies below them"
python3 - "$work/results.json" <<'EOF'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"results: unreadable ({e})")
    sys.exit(0)
print(f"results: {doc['schema']}")
for w in doc["workloads"]:
    notes = w.get("notes", [])
    print(f"  {w['name']}: {w['status']}; notes: {notes if notes else 'none'}")
EOF

[[ $report == --report ]] && exit 0

fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fail=1; fi
}
check "gpugate run exits 0 (every workload ok, the in-run count included)" test "$rc" -eq 0
check "no marked process and no zombie child of gpugate while it runs" test "$in_run" = "marked=0 zombies=0"
check "no marked process after gpugate exited" test "$n_left" -eq 0
check "no zombie below a marked process" test "$n_zombies" -eq 0
check "the run took well under the sleepers' $sleep_s s" \
  awk -v s="$seconds" -v limit="$((sleep_s / 2))" 'BEGIN { exit !(s < limit) }'
check "notes in the results JSON" python3 - "$work/results.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "gpugate/results/v1", doc["schema"]
by_name = {w["name"]: w for w in doc["workloads"]}
for name, w in by_name.items():
    # Small commands have no peak memory of their own above gpugate's: a note says so.
    notes = [n for n in w.get("notes", []) if not n.startswith("peak memory ")]
    if name == "check":
        assert not notes, (name, notes)
        continue
    assert len(notes) == 1 and notes[0].startswith("ended ") and "left behind in 2 of 2 executions" in notes[0], (name, notes)
assert "killed with SIGKILL" in by_name["ignores-term"]["notes"][0], by_name["ignores-term"]["notes"]
assert "killed with SIGKILL" in by_name["all"]["notes"][0], by_name["all"]["notes"]
assert "zombie" in by_name["zombie"]["notes"][0], by_name["zombie"]["notes"]
assert "SIGKILL" not in by_name["stopped"]["notes"][0], by_name["stopped"]["notes"]
EOF
check "the run summary shows the notes" grep -q "^  note: ignores-term: ended 2 processes" "$work/stdout.txt"
if [[ $fail -ne 0 ]]; then
  echo "--- stdout"; cat "$work/stdout.txt"
  echo "--- stderr"; cat "$work/stderr.txt"
fi
exit $fail
