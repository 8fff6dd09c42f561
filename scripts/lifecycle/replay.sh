#!/usr/bin/env bash
# Replays gpugate's whole CI lifecycle the way GitHub's runner runs it, on one
# machine, with a bare git repository as the remote (no network):
#
#   1 bootstrap   a pull request before any baseline: the gate passes with
#                 "no baseline yet" (not judged)
#   2 nightly x10 refreshes on main; each night the hosted runner draws
#                 another CPU model (simulated: as_cpu.py rewrites the run's
#                 CPU model and scales its times); the first creates the
#                 gpugate-baselines branch
#   3 slow PR     a pull request that makes one workload 50% slower: the gate
#                 fails, with an annotation on the workload's line of the suite
#   4 clean PR    passes
#   5 fork PR     the gate runs with a remote it cannot push to; the fork-safe
#                 comment workflow (examples/workflows/pr-comment.yml) posts
#                 the report through a stand-in `gh`
#   6 race        two nightly refreshes at once (the remote holds each push
#                 for 2 s): both runs are kept
#   7 sharded PR  examples/workflows/sharded.yml: four `mode: run` shard jobs
#                 with one run id, then `mode: compare` of the merged shards
#                 against the base branch's history
#
# The action's steps run through scripts/action/local_runner.py with the
# inputs of the example workflows (examples/workflows/*.yml). Each job starts
# as after a cache hit: actions/cache has restored the install prefix, and
# the setup step must use it (a warm setup; its time is checked against 10 s). Workloads are synthetic (drawn timings, seeded), so
# the replay tests the lifecycle, not the machine.
#
#   scripts/lifecycle/replay.sh GPUGATE_BINARY        (KEEP_WORK=1 keeps the folder)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(cd "$(dirname "${1:?usage: replay.sh GPUGATE_BINARY}")" && pwd)/$(basename "$1")
[ -x "$BIN" ] || { echo "replay: $BIN is not executable" >&2; exit 2; }
/usr/bin/python3 -c 'import yaml' 2>/dev/null || { echo "replay: needs python3-yaml" >&2; exit 2; }
command -v git >/dev/null || { echo "replay: needs git" >&2; exit 2; }

WORK=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] && echo "replay: kept $WORK" || rm -rf "$WORK"' EXIT
export GIT_AUTHOR_NAME=replay GIT_AUTHOR_EMAIL=replay@localhost
export GIT_COMMITTER_NAME=replay GIT_COMMITTER_EMAIL=replay@localhost
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
# A GitHub-hosted runner: its image names the runner class (linux-x64-ubuntu24).
export RUNNER_OS=Linux RUNNER_ARCH=X64 ImageOS=ubuntu24
unset GPUGATE_ENV_KEY

# gpugate as the cache restores it ($RUNNER_TEMP/gpugate-prefix/bin); `run`
# results are rewritten to the night's CPU model when REPLAY_CPU="MODEL:FACTOR"
# is set.
mkdir -p "$WORK/path"
cat > "$WORK/path/gpugate" <<EOF
#!/usr/bin/env bash
out=""; prev=""
for a in "\$@"; do [ "\$prev" = "-o" ] && out=\$a; prev=\$a; done
rc=0; "$BIN" "\$@" || rc=\$?
if [ "\$rc" -eq 0 ] && [ "\${1:-}" = run ] && [ -n "\${REPLAY_CPU:-}" ] && [ -n "\$out" ]; then
  /usr/bin/python3 "$ROOT/scripts/lifecycle/as_cpu.py" "\$out" "\${REPLAY_CPU%%:*}" "\${REPLAY_CPU##*:}"
fi
exit "\$rc"
EOF
chmod +x "$WORK/path/gpugate"

# --- the user's repository and its remote ----------------------------------
git init -q --bare "$WORK/remote.git"
git -C "$WORK/remote.git" symbolic-ref HEAD refs/heads/main
mkdir -p "$WORK/hooks-off"
cat > "$WORK/remote.git/hooks/pre-receive" <<EOF
#!/usr/bin/env bash
# Holds a push for 2 s while $WORK/slow-push exists (the race step).
cat >/dev/null
[ -e "$WORK/slow-push" ] && sleep 2
exit 0
EOF
chmod +x "$WORK/remote.git/hooks/pre-receive"

suite() {  # suite SLOWDOWN -> perf/suite.yaml text (sgemm on line 5)
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
git init -q -b main "$WORK/seed"
mkdir -p "$WORK/seed/perf"
suite 1.0 > "$WORK/seed/perf/suite.yaml"
cat > "$WORK/seed/perf/policy.yaml" <<'EOF'
version: 1
name: hosted-runners
defaults: {threshold: 15%}
EOF
( cd "$WORK/seed" && git add -A && git commit -qm "perf suite" &&
  git remote add origin "$WORK/remote.git" && git push -q origin main
  git switch -qc pr-slow && suite 1.5 > perf/suite.yaml && git commit -qam "slower sgemm" && git push -q origin pr-slow
  git switch -q main && git switch -qc pr-clean && echo "# docs" >> perf/policy.yaml &&
  git commit -qam "a clean change" && git push -q origin pr-clean )

checkout() {  # checkout DIR BRANCH -- shallow, as actions/checkout does
  git clone -q --depth 1 --no-single-branch "file://$WORK/remote.git" "$1"
  git -C "$1" switch -q "$2" 2>/dev/null || git -C "$1" switch -q -c "$2" "origin/$2"
}

# The `with:` inputs of the gpugate step of an example workflow, as JSON.
# ${{ matrix.shard }}, ${{ github.run_id }} and ${{ github.run_attempt }} are
# replaced by MATRIX_SHARD, 4242 and 1.
example_inputs() {  # example_inputs WORKFLOW JOB
  /usr/bin/python3 - "$ROOT/examples/workflows/$1" "$2" "${MATRIX_SHARD:-}" <<'PY'
import json, re, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
ctx = {"matrix.shard": sys.argv[3], "github.run_id": "4242", "github.run_attempt": "1"}
def sub(v):
    return re.sub(r"\$\{\{\s*([a-z_.]+)\s*\}\}", lambda m: ctx[m.group(1)], str(v))
for step in wf["jobs"][sys.argv[2]]["steps"]:
    if "gpugate" in str(step.get("uses", "")):
        print(json.dumps({k: sub(v) for k, v in (step.get("with") or {}).items()}))
        break
else:
    sys.exit("no gpugate step in " + sys.argv[1])
PY
}
get_extra() { /usr/bin/python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get("extra-args", ""))' "$1"; }
merge_json() { /usr/bin/python3 -c 'import json,sys; a=json.loads(sys.argv[1]); a.update(json.loads(sys.argv[2])); print(json.dumps(a))' "$1" "$2"; }

NIGHTLY=$(example_inputs nightly-refresh.yml refresh)
GATE=$(example_inputs pr-gate.yml gate)

failures=0
passed=0
declare -a TIMES=()
job() {  # job NAME WORKSPACE INPUTS_JSON GITHUB_JSON -> $WORK/NAME/job.json
  local temp="$WORK/$1" t0 t1
  mkdir -p "$temp/gpugate-prefix/bin"
  cp "$WORK/path/gpugate" "$temp/gpugate-prefix/bin/gpugate"   # the cache hit
  t0=$(date +%s.%N)
  ( cd "$2" && RUNNER_TEMP="$temp" \
      /usr/bin/python3 "$ROOT/scripts/action/local_runner.py" "$ROOT" "$3" "$2" "$4" ) > "$temp/log.txt" 2>&1 || true
  t1=$(date +%s.%N)
  [ -f "$temp/job.json" ] || echo '{}' > "$temp/job.json"
  TIMES+=("$(printf '%-14s %6.2f s   (setup step %s s)' "$1" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
             "$(get "$1" "j['durations'].get('setup', '-')")")")
}
get() {  # get JOB EXPR
  /usr/bin/python3 -c "import json; j=json.load(open('$WORK/$1/job.json')); print($2)" 2>/dev/null || echo "<missing>"
}
expect() {  # expect JOB WHAT EXPR WANT
  local got
  got=$(get "$1" "$3")
  if [ "$got" = "$4" ]; then passed=$((passed + 1)); else
    failures=$((failures + 1)); echo "FAIL [$1] $2: expected '$4', got '$got'"
    sed 's/^/    | /' "$WORK/$1/log.txt" | tail -n 20
  fi
}
expect_log() {  # expect_log JOB TEXT
  if grep -qF -- "$2" "$WORK/$1/log.txt"; then passed=$((passed + 1)); else
    failures=$((failures + 1)); echo "FAIL [$1] log lacks '$2'"; sed 's/^/    | /' "$WORK/$1/log.txt" | tail -n 20; fi
}
check() {  # check WHAT COMMAND...
  local what=$1; shift
  if "$@"; then passed=$((passed + 1)); else failures=$((failures + 1)); echo "FAIL $what"; fi
}
pr_github() {  # pr_github BRANCH NUMBER [FORK]
  printf '{"event_name": "pull_request", "ref_name": "%s/merge", "base_ref": "main", "event": {"pull_request": {"number": "%s", "head": {"repo": {"fork": %s}}}}}' \
    "$2" "$2" "${3:-false}"
}
NIGHT_GITHUB='{"event_name": "schedule", "ref_name": "main", "base_ref": ""}'
BASELINE_FILE=main/perf/linux-x64-ubuntu24.json
branch_runs() {  # number of runs in the baseline file on the remote branch
  git -C "$WORK/remote.git" show "gpugate-baselines:$BASELINE_FILE" 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))' 2>/dev/null || echo 0
}
T_START=$(date +%s)

# 1. bootstrap: a PR before any baseline.
checkout "$WORK/ws-bootstrap" pr-clean
job bootstrap "$WORK/ws-bootstrap" "$(merge_json "$GATE" '{"extra-args": "--seed 500"}')" "$(pr_github pr-clean 1)"
expect bootstrap outcome "j['outputs']['outcome']" not_judged
expect bootstrap job "j['job_exit']" 0
expect bootstrap new "j['outputs']['new']" 6
expect_log bootstrap "no branch 'gpugate-baselines' on origin yet"
expect_log bootstrap "gpugate: set up from cache"
check "bootstrap: the step summary says no baseline yet" grep -qF "no baseline yet" <(get bootstrap "j['summary']")
# ... and that the nightly refresh starts it, not an update of the scratch copy
check "bootstrap: the hint names the nightly refresh" grep -qF "is written by mode: refresh with baseline-branch: gpugate-baselines" <(get bootstrap "j['summary']")
check "bootstrap: the gate does not claim to start the history" bash -c '! grep -qF -- "this run starts it" <<< "$1"' _ "$(get bootstrap "j['summary']")"
check "bootstrap: the hint names no update of the scratch copy" bash -c '! grep -qF -- "baseline update --results" <<< "$1"' _ "$(get bootstrap "j['summary']")"

# 2. ten nightly refreshes on main, the CPU model changing between nights:
# this machine's own CPU (where the pull requests run, below), one 25% slower
# and one 15% faster, each with its own +-4% per workload.
CPUS=("" "Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz:1.25" "AMD EPYC 9V74 80-Core Processor:0.85")
checkout "$WORK/ws-main" main
for night in $(seq 1 10); do
  export REPLAY_CPU=${CPUS[$((night % 3))]}
  [ -n "$REPLAY_CPU" ] || unset REPLAY_CPU
  job "night-$night" "$WORK/ws-main" "$(merge_json "$NIGHTLY" "{\"extra-args\": \"--seed $night\"}")" "$NIGHT_GITHUB"
  expect "night-$night" exit-code "j['outputs']['exit-code']" 0
  expect "night-$night" job "j['job_exit']" 0
  expect "night-$night" baseline "j['outputs']['baseline']" "gpugate-baselines:$BASELINE_FILE"
done
unset REPLAY_CPU
check "10 nightly runs on the branch (got $(branch_runs))" [ "$(branch_runs)" = 10 ]
check "the baseline branch has exactly one commit" \
  [ "$(git -C "$WORK/remote.git" rev-list --count gpugate-baselines)" = 1 ]
cpus=$(git -C "$WORK/remote.git" show "gpugate-baselines:$BASELINE_FILE" |
       /usr/bin/python3 -c 'import json,sys; print(len({r["run"]["environment"]["cpu_model"] for r in json.load(sys.stdin)["runs"]}))')
check "the history spans 3 CPU models (got $cpus)" [ "$cpus" = 3 ]
expect_log night-1 "no branch 'gpugate-baselines' on origin yet: creating it"

# 3. a PR that makes sgemm 50% slower fails, annotated on the suite's line 6.
checkout "$WORK/ws-slow" pr-slow
job pr-slow "$WORK/ws-slow" "$(merge_json "$GATE" '{"extra-args": "--seed 600"}')" "$(pr_github pr-slow 2)"
expect pr-slow outcome "j['outputs']['outcome']" fail
expect pr-slow exit-code "j['outputs']['exit-code']" 1
expect pr-slow regressions "j['outputs']['regressions']" 1
expect pr-slow "sgemm +50% found" "'sgemm' in j['summary'] and any(f'+{p}.' in j['summary'] for p in range(44, 57))" True
expect pr-slow "job failed" "j['job_exit'] != 0" True
expect_log pr-slow "::error file=perf/suite.yaml,line=5"
expect_log pr-slow "linux-x64-ubuntu24"

# 4. a clean PR passes.
checkout "$WORK/ws-clean" pr-clean
job pr-clean "$WORK/ws-clean" "$(merge_json "$GATE" '{"extra-args": "--seed 700"}')" "$(pr_github pr-clean 3)"
expect pr-clean outcome "j['outputs']['outcome']" pass
expect pr-clean exit-code "j['outputs']['exit-code']" 0
expect pr-clean job "j['job_exit']" 0
expect pr-clean regressions "j['outputs']['regressions']" 0

# 5. a fork PR: the gate cannot push anywhere, and still reads the baseline;
# the comment workflow posts its report.
checkout "$WORK/ws-fork" pr-slow
git -C "$WORK/ws-fork" config remote.origin.pushurl "$WORK/no-such-remote.git"
job pr-fork "$WORK/ws-fork" "$(merge_json "$GATE" '{"extra-args": "--seed 800"}')" "$(pr_github pr-slow 4 true)"
expect pr-fork outcome "j['outputs']['outcome']" fail
expect pr-fork regressions "j['outputs']['regressions']" 1
# The gate workflow's "Save the report" step, then pr-comment.yml's comment
# step, each run from the example files with a stand-in gh.
/usr/bin/python3 - "$ROOT/examples/workflows" "$WORK/comment" <<'PY'
import os, sys, yaml
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
gate = yaml.safe_load(open(os.path.join(src, "pr-gate.yml")))
save = [s for s in gate["jobs"]["gate"]["steps"] if s.get("name", "").startswith("Save the report")][0]
open(os.path.join(out, "save.sh"), "w").write(save["run"])
wf = yaml.safe_load(open(os.path.join(src, "pr-comment.yml")))
post = [s for s in wf["jobs"]["comment"]["steps"] if "run" in s][0]
open(os.path.join(out, "post.sh"), "w").write(post["run"])
PY
mkdir -p "$WORK/comment/bin" "$WORK/comment/artifact"
cat > "$WORK/comment/bin/gh" <<EOF
#!/usr/bin/env bash
# Stand-in for the GitHub CLI: the PR's head sha, no comment yet, and a POST
# whose body is kept for the test.
echo "gh \$*" >> "$WORK/comment/gh.log"
case "\$*" in
  *"/pulls/4 --jq .head.sha"*) echo "$(git -C "$WORK/ws-fork" rev-parse HEAD)" ;;
  *"--paginate"*) ;;
  *"-X POST"*) for a in "\$@"; do case "\$a" in body=@*) cp "\${a#body=@}" "$WORK/comment/posted.md" ;; esac; done ;;
  *) echo "unexpected gh call: \$*" >&2; exit 1 ;;
esac
EOF
chmod +x "$WORK/comment/bin/gh"
( cd "$WORK/ws-fork" && PR_NUMBER=4 REPORT=$(get pr-fork "j['outputs']['comment']") \
    bash -eo pipefail "$WORK/comment/save.sh" && cp -r gpugate-pr "$WORK/comment/artifact/" )
( cd "$WORK/comment/artifact" && PATH="$WORK/comment/bin:$PATH" GH_TOKEN=fake REPO=example/repo \
    HEAD_SHA=$(git -C "$WORK/ws-fork" rev-parse HEAD) bash -eo pipefail "$WORK/comment/post.sh" ) \
  > "$WORK/comment/log.txt" 2>&1 || { echo "comment step failed:"; cat "$WORK/comment/log.txt"; }
check "fork PR: the comment was posted with the marker" grep -q '^<!-- gpugate-report -->' "$WORK/comment/posted.md"
check "fork PR: the comment holds the regression" grep -q 'sgemm' "$WORK/comment/posted.md"

# 5b. comment-on-pr: the action's own comment step posts the report gpugate
# fitted to one comment (outputs.comment; the body has no last line break),
# with a stand-in gh.
mkdir -p "$WORK/own-comment/bin"
cat > "$WORK/own-comment/bin/gh" <<EOF
#!/usr/bin/env bash
# Stand-in for the GitHub CLI: no comment yet; a POST keeps its body.
echo "gh \$*" >> "$WORK/own-comment/gh.log"
case "\$*" in
  *"-X POST"*) for a in "\$@"; do case "\$a" in body=*) printf '%s' "\${a#body=}" > "$WORK/own-comment/posted.md" ;; esac; done ;;
esac
EOF
chmod +x "$WORK/own-comment/bin/gh"
checkout "$WORK/ws-own" pr-slow
PATH="$WORK/own-comment/bin:$PATH" job pr-own "$WORK/ws-own" \
  "$(merge_json "$GATE" '{"extra-args": "--seed 800", "comment-on-pr": "true"}')" "$(pr_github pr-slow 5)"
expect pr-own outcome "j['outputs']['outcome']" fail
check "comment-on-pr: the comment was posted with the marker of this use of the action" grep -qE '^<!-- gpugate-report [0-9]+ -->' "$WORK/own-comment/posted.md"
check "comment-on-pr: the comment holds the regression" grep -q 'sgemm' "$WORK/own-comment/posted.md"
check "comment-on-pr: the comment is the report gpugate fitted to one" \
  cmp -s <(tail -n +2 "$WORK/own-comment/posted.md"; echo) "$(get pr-own "j['outputs']['comment']")"

# 6. two nightlies racing: the remote holds each push 2 s, both read the same
# branch commit, one push loses the lease and is redone on top.
touch "$WORK/slow-push"
checkout "$WORK/ws-race-a" main
checkout "$WORK/ws-race-b" main
RACE_T0=$(date +%s.%N)
REPLAY_CPU=${CPUS[1]} job race-a "$WORK/ws-race-a" "$(merge_json "$NIGHTLY" '{"extra-args": "--seed 901"}')" "$NIGHT_GITHUB" &
REPLAY_CPU=${CPUS[2]} job race-b "$WORK/ws-race-b" "$(merge_json "$NIGHTLY" '{"extra-args": "--seed 902"}')" "$NIGHT_GITHUB" &
wait
RACE_T1=$(date +%s.%N)
rm -f "$WORK/slow-push"
TIMES+=("$(printf '%-14s %6.2f s   (both jobs, concurrently)' race "$(awk -v a="$RACE_T0" -v b="$RACE_T1" 'BEGIN { print b - a }')")")
expect race-a job "j['job_exit']" 0
expect race-b job "j['job_exit']" 0
check "race: both runs kept (12 runs, got $(branch_runs))" [ "$(branch_runs)" = 12 ]
check "race: one job lost the lease and updated again" \
  grep -qh "moved while updating" "$WORK/race-a/log.txt" "$WORK/race-b/log.txt"
check "race: the branch still has one commit" \
  [ "$(git -C "$WORK/remote.git" rev-list --count gpugate-baselines)" = 1 ]

# 6b. a push whose git steps fail (commit-tree refuses an empty committer
# name): an error, and the branch keeps its history (never an empty push).
( cd "$WORK/ws-race-a" &&
  /usr/bin/python3 -c 'import json; d = json.load(open("gpugate-results.json")); d["run"]["run_id"] = "broken-push"; json.dump(d, open("broken-run.json", "w"))' &&
  GPUGATE_BIN="$BIN" GIT_COMMITTER_NAME='<>' bash "$ROOT/scripts/action/baseline_branch.sh" \
    push gpugate-baselines main broken-run.json 30 ) > "$WORK/broken-push.log" 2>&1 && broken_rc=0 || broken_rc=$?
check "a failed git step is an error (exit $broken_rc)" [ "$broken_rc" -ne 0 ]
check "a failed git step pushes nothing (12 runs, got $(branch_runs))" [ "$(branch_runs)" = 12 ]
check "a failed git step says so" grep -q "commit-tree failed" "$WORK/broken-push.log"

# 6c. a push from a runner whose clock ran ahead (its commit dated 10
# minutes on) of a second suite's history: the next refresh still tells the
# one file it updated (extracted files take the time of extraction). On a
# copy of the remote, so the replay's own history is left as it is.
git clone --quiet --bare "$WORK/remote.git" "$WORK/remote-skew.git"
( cd "$WORK/ws-race-a" &&
  /usr/bin/python3 -c 'import json; d = json.load(open("gpugate-results.json")); d["run"]["run_id"] = "skew-1"; d["run"]["suite"] = "skewed-suite"; json.dump(d, open("skew-1.json", "w"))' &&
  /usr/bin/python3 -c 'import json; d = json.load(open("gpugate-results.json")); d["run"]["run_id"] = "skew-2"; json.dump(d, open("skew-2.json", "w"))' &&
  GPUGATE_BIN="$BIN" GPUGATE_REMOTE="$WORK/remote-skew.git" GIT_COMMITTER_DATE="$(date -d '+10 min' -R)" \
    bash "$ROOT/scripts/action/baseline_branch.sh" push gpugate-baselines main skew-1.json 30 &&
  GPUGATE_BIN="$BIN" GPUGATE_REMOTE="$WORK/remote-skew.git" \
    bash "$ROOT/scripts/action/baseline_branch.sh" push gpugate-baselines main skew-2.json 30 ) > "$WORK/skew-push.log" 2>&1 && skew_rc=0 || skew_rc=$?
check "a push after one dated in the future stores its run (exit $skew_rc)" [ "$skew_rc" -eq 0 ]
check "a push after one dated in the future updated its own history" \
  [ "$(git -C "$WORK/remote-skew.git" show "gpugate-baselines:$BASELINE_FILE" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][-1]["run"]["run_id"])')" = skew-2 ]

# 6d. a push to a branch that is not gpugate's (baseline-branch: main, a
# typo): refused, and the branch keeps its history (a refresh replaces the
# branch it writes with one commit).
main_before=$(git -C "$WORK/remote.git" rev-parse main)
( cd "$WORK/ws-race-a" &&
  GPUGATE_BIN="$BIN" bash "$ROOT/scripts/action/baseline_branch.sh" push main main gpugate-results.json 30 ) \
  > "$WORK/foreign-push.log" 2>&1 && foreign_rc=0 || foreign_rc=$?
check "a push to a branch that is not gpugate's is refused (exit $foreign_rc)" [ "$foreign_rc" -eq 2 ]
check "a push to a branch that is not gpugate's leaves it as it was" \
  [ "$(git -C "$WORK/remote.git" rev-parse main)" = "$main_before" ]
check "a push to a branch that is not gpugate's says why" grep -q "is not a gpugate baselines branch" "$WORK/foreign-push.log"

# 7. the sharded workflow on a clean PR: four shard jobs, one gate job.
mkdir -p "$WORK/ws-gate-sharded"
checkout "$WORK/ws-shards" pr-clean
SHARD_T0=$(date +%s.%N)
for shard in 1 2 3 4; do
  inputs=$(MATRIX_SHARD=$shard example_inputs sharded.yml shard)
  job "shard-$shard" "$WORK/ws-shards" "$(merge_json "$inputs" "{\"extra-args\": \"$(get_extra "$inputs") --seed $((1000 + shard))\"}")" "$(pr_github pr-clean 5)"
  expect "shard-$shard" exit-code "j['outputs']['exit-code']" 0
  expect "shard-$shard" outcome "j['outputs']['outcome']" not_judged
  cp "$WORK/ws-shards/shard-$shard.json" "$WORK/ws-gate-sharded/"   # upload + download-artifact
done
checkout "$WORK/ws-gate-sharded/repo" pr-clean
mv "$WORK"/ws-gate-sharded/shard-*.json "$WORK/ws-gate-sharded/repo/"
job gate-sharded "$WORK/ws-gate-sharded/repo" "$(example_inputs sharded.yml gate)" "$(pr_github pr-clean 5)"
SHARD_T1=$(date +%s.%N)
TIMES+=("$(printf '%-14s %6.2f s   (4 shard jobs and the gate job)' sharded "$(awk -v a="$SHARD_T0" -v b="$SHARD_T1" 'BEGIN { print b - a }')")")
expect gate-sharded exit-code "j['outputs']['exit-code']" 0
expect gate-sharded job "j['job_exit']" 0
expect gate-sharded "outcome decided or honestly not" "j['outputs']['outcome'] in ('pass', 'not_judged')" True
expect gate-sharded "all six workloads compared" "int(j['outputs']['new'] or 0) + int(j['outputs']['removed'] or 0)" 0
expect_log gate-sharded "merged 4 shards of run 4242"

# Warm setup (gpugate found ready, as after a cache hit) in every job: < 10 s.
slowest=$(/usr/bin/python3 - "$WORK" <<'PY'
import glob, json, sys
print(max(json.load(open(f)).get("durations", {}).get("setup", 99) for f in glob.glob(sys.argv[1] + "/*/job.json")))
PY
)
check "warm setup under 10 s in every job (slowest $slowest s)" \
  /usr/bin/python3 -c "import sys; sys.exit(0 if $slowest < 10 else 1)"

echo "lifecycle replay: $(( $(date +%s) - T_START )) s"
printf '  %s\n' "${TIMES[@]}"
echo "lifecycle replay: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
