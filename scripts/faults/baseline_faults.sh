#!/usr/bin/env bash
# Fault tests of gpugate's file writes with the real binary (docs/safety.md
# "Files"). Each mode is one ctest test (label `fault`) and prints its figures.
#
#   baseline_faults.sh GPUGATE kill     50 SIGKILLs at random moments of `baseline update`
#                                       on a 2 MB baseline (half of them once the temp file
#                                       is being written): the file always parses,
#                                       keeps every run reported appended, and the next
#                                       update leaves no temp file
#   baseline_faults.sh GPUGATE race     20 pairs of concurrent updates of one file: all 40
#                                       runs kept; a held lock times out with exit 3
#   baseline_faults.sh GPUGATE limits   `ulimit -f`, a full tmpfs (root only), > /dev/full:
#                                       exit 3 with a message, old file intact, no temp;
#                                       a reader that goes away (| head) is no error
#   baseline_faults.sh GPUGATE outputs  --json /dev/stdout and friends stay what they are,
#                                       a symlinked output stays a link, a FIFO is written
#                                       in place
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 GPUGATE kill|race|limits|outputs" >&2; exit 2; }
bin=$(realpath "$1")
mode=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/gpugate-faults-XXXXXX")
mounted=""
cleanup() {
  if [ -n "$mounted" ]; then umount "$mounted" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

fail() { echo "FAIL ($mode): $*" >&2; exit 1; }

# A synthetic suite of N workloads with S samples per round and R rounds (5).
write_suite() {
  local n=$1 samples=$2 rounds=${3:-5} ids="" i
  for ((i = 0; i < n; i++)); do ids+="${ids:+, }w$i"; done
  cat > suite.yaml <<EOF
version: 1
name: faults
defaults: {warmup: 0, min_samples: $samples, max_samples: $samples, min_time: 0, rounds: $rounds}
workloads:
  - name: syn/{id}
    kind: synthetic
    params: {id: [$ids]}
    synthetic: {median: 1ms, cv: 1%, seed: 3}
EOF
  "$bin" run suite.yaml -o template.json -q --seed 1 >/dev/null
}

# results/ID.json: the template run with run id ID.
make_results() {
  mkdir -p results
  sed "s/\"run_id\": \"[^\"]*\"/\"run_id\": \"$1\"/" template.json > "results/$1.json"
}

update() {  # update ID BASELINE [options...]
  local id=$1 baseline=$2
  shift 2
  make_results "$id"
  "$bin" baseline update --results "results/$id.json" --baseline "$baseline" "$@"
}

run_ids() { grep -o '"run_id": "[^"]*"' "$1" | cut -d'"' -f4; }
has_run() { grep -q "\"run_id\": \"$2\"" "$1"; }
temps_of() { find "$(dirname "$1")" -maxdepth 1 -name "$(basename "$1").tmp.*" | wc -l; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Order in which a run was appended (seed-N, measure-N, k-N), into $order.
append_order() {
  case $1 in
    seed-*) order=${1#seed-} ;;
    measure-*) order=$((50 + ${1#measure-})) ;;
    k-*) order=$((100 + ${1#k-})) ;;
    *) order=100000 ;;
  esac
}

mode_kill() {
  local start keep=10
  start=$(now_ms)
  # ~200 KB per run; --keep 10 holds the baseline at about 2 MB, so every
  # update reads and writes that much.
  write_suite 20 400
  for i in $(seq 1 "$keep"); do update "seed-$i" b.json --keep "$keep" >/dev/null; done
  # How long an update of the full baseline takes: the median of 3.
  local t0 took times=()
  for i in 1 2 3; do
    t0=$(now_ms); update "measure-$i" b.json --keep "$keep" >/dev/null; times+=($(($(now_ms) - t0)))
  done
  took=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  echo "kill: baseline of $(($(stat -c %s b.json) / 1024)) KB ($keep runs), an update takes ${took} ms (${times[*]})"
  mkfifo idle.fifo
  local idle
  exec {idle}<> idle.fifo
  local kills=50 landed=0 mid_write=0 broken=0 lost=0 appended=() max_temps=0 i id pid status delay pause
  for ((i = 1; i <= kills; i++)); do
    id="k-$i"
    make_results "$id"
    "$bin" baseline update --results "results/$id.json" --baseline b.json --keep "$keep" > "out-$i" 2>&1 &
    pid=$!
    # Odd kills: uniform over the update's duration (and a little after
    # it). Even kills: within 0-5 ms of the writer's temp file appearing:
    # reading, parsing and serialising come first, and writing 2 MB, fsync
    # and rename take only some milliseconds of the update (with 0-15 ms, a
    # fast disk let only 2 of 25 land mid-write).
    if ((i % 2)); then
      delay=$((RANDOM % (took * 12 / 10 + 1)))
    else
      # Polled with builtins only (read -t on an idle FIFO is the pause,
      # no fork), until the temp file appears or the writer has ended.
      local stat own
      while read -r stat 2>/dev/null < "/proc/$pid/stat"; do
        stat=${stat##*) }
        [ "${stat%% *}" != Z ] || break
        own=(b.json.tmp."$pid".*)
        [ -e "${own[0]}" ] && break
        read -rt 0.001 -u "$idle" || true
      done
      delay=$((RANDOM % 6))
    fi
    printf -v pause '%d.%03d' $((delay / 1000)) $((delay % 1000))
    read -rt "$pause" -u "$idle" || true
    kill -KILL "$pid" 2>/dev/null || true
    status=0
    { wait "$pid"; } 2>/dev/null || status=$?  # no "Killed" line from the shell
    [ "$status" -eq 137 ] && landed=$((landed + 1))
    if grep -q ": appended run $id " "out-$i"; then appended+=("$id"); fi
    if ! "$bin" baseline show b.json >show.out 2>show.err; then
      broken=$((broken + 1))
      echo "  after kill $i the baseline does not parse: $(head -c 300 show.err)" >&2
      continue
    fi
    # `baseline show` lists the runs it parsed, oldest first (6th column). A
    # run reported appended may only be missing when --keep dropped it, that
    # is when every run left was appended after it.
    local ids=() still=() order oldest_order
    mapfile -t ids < <(awk 'NF >= 6 && $1 ~ /^[0-9]+$/ { print $6 }' show.out)
    local -A present=()
    for id in "${ids[@]}"; do present[$id]=1; done
    append_order "${ids[0]:-}"; oldest_order=$order
    for id in "${appended[@]}"; do
      append_order "$id"
      if [ -n "${present[$id]:-}" ]; then
        still+=("$id")
      elif [ "$oldest_order" -lt "$order" ]; then
        lost=$((lost + 1)); echo "  run $id lost after kill $i" >&2
      fi
    done
    appended=("${still[@]}")
    local temps=(b.json.tmp.*)
    [ -e "${temps[0]}" ] || temps=()
    [ "${#temps[@]}" -gt "$max_temps" ] && max_temps=${#temps[@]}
    # The killed writer's temp file names its pid: the kill came mid-write.
    local own=(b.json.tmp."$pid".*)
    [ -e "${own[0]}" ] && mid_write=$((mid_write + 1))
  done
  local reported
  reported=$(grep -l ": appended run " out-* | wc -l)
  update final b.json --keep "$keep" >/dev/null || fail "the update after the kills failed"
  local left
  left=$(temps_of b.json)
  echo "kill: $kills SIGKILLs ($landed during the update, $mid_write of them while the temp file was written; $((kills - landed)) after the update ended), $reported runs reported appended"
  echo "kill: broken files $broken, lost runs $lost, temp files between kills at most $max_temps, left after the next update $left"
  echo "kill: $(( ($(now_ms) - start) / 1000 )) s in all"
  [ "$broken" -eq 0 ] || fail "$broken broken baseline files"
  [ "$lost" -eq 0 ] || fail "$lost runs lost"
  [ "$left" -eq 0 ] || fail "$left temp files left after a successful update"
  [ "$landed" -ge 10 ] || fail "only $landed kills landed during an update: the test did not test"
  [ "$mid_write" -ge 3 ] || fail "only $mid_write kills landed while the file was written: the test did not test"
}

mode_race() {
  write_suite 5 20
  update seed b.json --keep 1000 >/dev/null
  local pairs=20 i a b sa sb failed=0
  for ((i = 1; i <= pairs; i++)); do
    make_results "a-$i"; make_results "b-$i"
    "$bin" baseline update --results "results/a-$i.json" --baseline b.json --keep 1000 > "out-a-$i" 2>&1 & a=$!
    "$bin" baseline update --results "results/b-$i.json" --baseline b.json --keep 1000 > "out-b-$i" 2>&1 & b=$!
    sa=0; sb=0
    wait "$a" || sa=$?
    wait "$b" || sb=$?
    if [ "$sa" -ne 0 ] || [ "$sb" -ne 0 ]; then
      failed=$((failed + 1)); cat "out-a-$i" "out-b-$i" >&2
    fi
  done
  local kept=0
  for ((i = 1; i <= pairs; i++)); do
    has_run b.json "a-$i" && kept=$((kept + 1))
    has_run b.json "b-$i" && kept=$((kept + 1))
  done
  echo "race: $pairs concurrent pairs of baseline update: $kept of $((2 * pairs)) runs kept, $failed pairs with a failed update"
  [ "$failed" -eq 0 ] || fail "$failed pairs had a failed update"
  [ "$kept" -eq $((2 * pairs)) ] || fail "only $kept of $((2 * pairs)) runs kept"
  [ "$(temps_of b.json)" -eq 0 ] || fail "temp files left"
  [ ! -e b.json.lock ] || fail "b.json.lock left behind"

  # A lock held by someone else: --lock-timeout ends the wait with exit 3.
  if command -v flock >/dev/null; then
    flock b.json.lock sleep 30 & local holder=$!
    # Wait until the holder really has the lock (a loaded machine may start
    # it late): a non-blocking attempt succeeds for as long as it is free.
    local polls=0
    while flock -n b.json.lock true 2>/dev/null; do
      polls=$((polls + 1))
      [ "$polls" -lt 400 ] || fail "the lock holder did not take b.json.lock within 20 s"
      sleep 0.05
    done
    local st=0 t0 t1
    t0=$(now_ms)
    update late b.json --keep 1000 --lock-timeout 0.5 > late.out 2> late.err || st=$?
    t1=$(now_ms)
    # flock's child (sleep) holds the lock too: end it as well, or the steps
    # below would wait for it.
    pkill -P "$holder" 2>/dev/null || true
    kill "$holder" 2>/dev/null || true; wait "$holder" 2>/dev/null || true
    echo "race: lock held elsewhere, --lock-timeout 0.5: exit $st after $((t1 - t0)) ms: $(cat late.err)"
    [ "$st" -eq 3 ] || fail "a held lock gave exit $st, expected 3"
    grep -q "b.json.lock: timed out after 0.5 s waiting for the lock" late.err || fail "unclear timeout message"
    if has_run b.json late; then fail "the run was appended without the lock"; fi
  else
    echo "race: lock-timeout part skipped: no flock(1) on this machine"
  fi
}

mode_limits() {
  write_suite 10 200   # ~60 KB per run
  update seed b.json >/dev/null
  cp b.json b.orig
  local st=0
  # 1. A file-size limit below the new file's size.
  make_results big
  ( ulimit -f 80; exec "$bin" baseline update --results results/big.json --baseline b.json ) \
    > limit.out 2> limit.err || st=$?
  echo "limits: ulimit -f 80 (KB): exit $st: $(cat limit.err)"
  [ "$st" -eq 3 ] || fail "under ulimit -f: exit $st, expected 3"
  grep -q "b.json: write failed: File too large" limit.err || fail "under ulimit -f: no clear message"
  cmp -s b.json b.orig || fail "under ulimit -f: the old file changed"
  [ "$(temps_of b.json)" -eq 0 ] || fail "under ulimit -f: temp file left"

  # 2. A full file system: a tiny tmpfs (needs root and mount).
  mkdir -p small
  if [ "$(id -u)" != 0 ]; then
    echo "limits: tmpfs part skipped: not root"
  elif ! mount -t tmpfs -o size=200k gpugate-faults small 2> mount.err; then
    echo "limits: tmpfs part skipped: mount -t tmpfs failed: $(head -c 200 mount.err)"
  else
    mounted=$work/small
    cp b.json small/b.json
    dd if=/dev/zero of=small/filler bs=1k count=100 2>/dev/null || true
    st=0
    update full small/b.json > full.out 2> full.err || st=$?
    echo "limits: 200 KB tmpfs, 60 KB baseline, 100 KB filler: exit $st: $(cat full.err)"
    [ "$st" -eq 3 ] || fail "on a full tmpfs: exit $st, expected 3"
    grep -q "small/b.json: write failed: No space left on device" full.err || fail "on a full tmpfs: no clear message"
    cmp -s small/b.json b.orig || fail "on a full tmpfs: the old file changed"
    [ "$(temps_of small/b.json)" -eq 0 ] || fail "on a full tmpfs: temp file left"
  fi

  # 3. Standard output on a full device.
  st=0
  "$bin" baseline show b.json > /dev/full 2> devfull.err || st=$?
  echo "limits: baseline show > /dev/full: exit $st: $(cat devfull.err)"
  [ "$st" -eq 3 ] || fail "> /dev/full: exit $st, expected 3"
  grep -qx "gpugate: error: cannot write to standard output: No space left on device" devfull.err ||
    fail "> /dev/full: no clear message"
  st=0
  "$bin" run suite.yaml -o - -q > /dev/full 2> devfull2.err || st=$?
  echo "limits: run -o - > /dev/full: exit $st: $(head -1 devfull2.err)"
  [ "$st" -eq 3 ] || fail "run -o - > /dev/full: exit $st, expected 3"
  # A console report on a full device is one of the command's reports: the
  # Markdown beside it, which would say pass, is not left behind (exit 3).
  make_results cur
  st=0
  "$bin" compare b.json results/cur.json --markdown cmp.md --json cmp.json > /dev/full 2> devfull3.err || st=$?
  echo "limits: compare --markdown F --json G > /dev/full: exit $st: $(head -1 devfull3.err)"
  [ "$st" -eq 3 ] || fail "compare > /dev/full: exit $st, expected 3"
  [ ! -e cmp.md ] && [ ! -e cmp.json ] || fail "compare > /dev/full: a report file was left behind"

  # 4. A reader that goes away (| head) is not an error: the command's exit
  # code is kept and nothing is printed. The output must outgrow the pipe.
  write_suite 3000 1 1
  make_results wide
  rm -f w.json
  "$bin" baseline update --results results/wide.json --baseline w.json >/dev/null
  local pipestatus
  set +o pipefail
  "$bin" baseline show w.json 2> pipe.err | head -c 100 > /dev/null
  pipestatus=${PIPESTATUS[0]}
  set -o pipefail
  echo "limits: baseline show (3000 workloads) | head -c 100: exit $pipestatus, stderr '$(cat pipe.err)'"
  [ "$pipestatus" -eq 0 ] || fail "| head: exit $pipestatus, expected 0"
  [ ! -s pipe.err ] || fail "| head: printed an error"
  # ... and the reports of a command whose console reader went away are
  # written: the console is no failure there.
  make_results wide2
  set +o pipefail
  "$bin" compare w.json results/wide2.json --verbose --markdown wide.md 2> pipe2.err | head -c 100 > /dev/null
  pipestatus=${PIPESTATUS[0]}
  set -o pipefail
  echo "limits: compare --verbose --markdown F (3000 workloads) | head -c 100: exit $pipestatus"
  [ "$pipestatus" -eq 0 ] || fail "compare | head: exit $pipestatus, expected 0 ($(head -c 300 pipe2.err))"
  [ -s wide.md ] || fail "compare | head: the Markdown report was not written"
  # With results on standard output the console report is on standard
  # error: a reader of both that went away is no failure either.
  write_suite 5 20
  "$bin" run suite.yaml -o gb.json -q >/dev/null
  set +o pipefail
  "$bin" gate suite.yaml --baseline gb.json --confirm 0 -o - 2>&1 | head -n 1 > /dev/null
  pipestatus=${PIPESTATUS[0]}
  set -o pipefail
  echo "limits: gate -o - 2>&1 | head -n 1: exit $pipestatus"
  [ "$pipestatus" -ne 3 ] || fail "gate -o - 2>&1 | head: exit 3 (a closed pipe read as a tool error)"
}

mode_outputs() {
  write_suite 5 50
  cp template.json base.json
  "$bin" run suite.yaml -o cur.json -q --seed 2 >/dev/null
  local st name
  check_std() {  # the standard stream names must still be what they were
    if ! { [ -L /dev/stdout ] || [ -c /dev/stdout ]; }; then
      ln -sfn /proc/self/fd/1 /dev/stdout 2>/dev/null || true
      fail "/dev/stdout is no longer a link or device after --json $1"
    fi
  }
  for name in /dev/stdout /dev/fd/1 /proc/self/fd/1 -; do
    st=0
    "$bin" compare base.json cur.json -q --json "$name" > out.json 2> out.err || st=$?
    [ "$st" -le 1 ] || [ "$st" -eq 4 ] || fail "compare --json $name: exit $st: $(cat out.err)"
    check_std "$name"
    grep -q '"gpugate/verdicts/v2"' out.json || fail "compare --json $name: no verdicts on stdout"
    echo "outputs: --json $name: verdicts on stdout ($(stat -c %s out.json) bytes), /dev/stdout still $(stat -c %F /dev/stdout)"
  done

  mkdir -p real
  echo old > real/target.json
  ln -s real/target.json link.json
  "$bin" compare base.json cur.json -q --json link.json > /dev/null 2>&1 || [ $? -le 4 ]
  [ -L link.json ] || fail "the symlink output was replaced"
  grep -q '"gpugate/verdicts/v2"' real/target.json || fail "the symlink's target did not get the report"
  [ "$(find real -name '*.tmp.*' | wc -l)" -eq 0 ] || fail "temp file left beside the symlink's target"
  echo "outputs: --json link.json (-> real/target.json): link kept, target written"

  mkfifo pipe.json
  cat pipe.json > from_fifo.json &
  local reader=$!
  st=0
  timeout 20 "$bin" compare base.json cur.json -q --json pipe.json > /dev/null 2> fifo.err || st=$?
  wait "$reader" || true
  [ "$st" -le 1 ] || [ "$st" -eq 4 ] || fail "compare --json FIFO: exit $st: $(cat fifo.err)"
  [ -p pipe.json ] || fail "the FIFO was replaced"
  grep -q '"gpugate/verdicts/v2"' from_fifo.json || fail "the FIFO's reader got no report"
  echo "outputs: --json FIFO: written in place ($(stat -c %s from_fifo.json) bytes read), still a FIFO"
}

case "$mode" in
  kill) mode_kill ;;
  race) mode_race ;;
  limits) mode_limits ;;
  outputs) mode_outputs ;;
  *) echo "unknown mode '$mode' (kill|race|limits|outputs)" >&2; exit 2 ;;
esac
echo "$mode: ok"
