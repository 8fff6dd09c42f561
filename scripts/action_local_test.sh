#!/usr/bin/env bash
# Local runner test of action.yml: executes the composite action's steps the
# way the GitHub runner does (scripts/action/local_runner.py: inputs and
# expressions substituted, each step in `bash --noprofile --norc -eo
# pipefail`, a fresh $GITHUB_OUTPUT file per step parsed into
# steps.<id>.outputs, one $GITHUB_STEP_SUMMARY, GITHUB_ACTIONS=true,
# GITHUB_WORKSPACE and RUNNER_TEMP set, `if:` and `continue-on-error`
# honoured), then asserts the action's outputs, the step summary and whether
# the job failed, for: pass, regression, inconclusive, tool error, input
# error, A/B and baseline refresh. Synthetic suites keep results deterministic.
# The setup cases (cache hit, miss, always, a cached binary that does not
# run, never) run with stand-ins for cmake, apt-get and sudo that record
# their calls: a warm setup must call none of them, a build must configure
# without tests, benchmarks and examples and install into the cached prefix.
#   scripts/action_local_test.sh GPUGATE_BINARY
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$(dirname "${1:?usage: action_local_test.sh GPUGATE_BINARY}")" && pwd)/$(basename "$1")
[ -x "$BIN" ] || { echo "action_local_test: $BIN is not executable" >&2; exit 2; }
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
  echo "action_local_test: needs Debian's python3-yaml (apt-get install python3-yaml)" >&2
  exit 2
fi

WORK=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
mkdir -p "$WORK/path"
ln -s "$BIN" "$WORK/path/gpugate"  # "gpugate on PATH": the action uses it instead of building
# Stand-ins for the setup cases: each records its call in $GPUGATE_TEST_CALLS;
# `cmake --install BUILD --prefix P` puts the binary under test into P/bin.
mkdir -p "$WORK/shims"
for tool in cmake apt-get sudo; do
  cat > "$WORK/shims/$tool" <<EOF
#!/usr/bin/env bash
echo "$tool \$*" >> "\$GPUGATE_TEST_CALLS"
if [ "$tool" = cmake ] && [ "\${1:-}" = --install ]; then mkdir -p "\$4/bin"; ln -sf "$BIN" "\$4/bin/gpugate"; fi
EOF
  chmod +x "$WORK/shims/$tool"
done

# --- the runner: scripts/action/local_runner.py (steps as GitHub runs them) ---

# --- fixtures: synthetic suites ---------------------------------------------------
suite() {  # suite NAME SLOWDOWN CV -> $WORK/ws/NAME.yaml (SLOWDOWN on kernel/a only)
  cat > "$WORK/ws/$1.yaml" <<EOF
version: 1
name: action-test
defaults: {warmup: 0, min_samples: 40, max_samples: 40, min_time: 0, rounds: 5}
workloads:
  - name: kernel/a
    kind: synthetic
    synthetic: {median: 1ms, cv: $3, slowdown: $2, seed: 11}
  - name: kernel/{id}
    kind: synthetic
    params: {id: [b, c, d, e]}
    synthetic: {median: 1ms, cv: $3, seed: 11}
EOF
}
mkdir -p "$WORK/ws"
suite quiet 1.0 0.5%
suite slow 1.30 0.5%
suite unsure 1.05 4%
cat > "$WORK/ws/failing.yaml" <<'EOF'
version: 1
name: action-test
defaults: {warmup: 0, min_samples: 6, max_samples: 6, min_time: 0, rounds: 2}
workloads:
  - name: broken
    kind: command
    argv: ["{bin}/does-not-exist"]
EOF
cat > "$WORK/ws/strict.yaml" <<'EOF'
version: 1
name: inconclusive-fails
defaults: {threshold: 5%, on_inconclusive: fail}
EOF
mkdir -p "$WORK/ws/base" "$WORK/ws/head"
( cd "$WORK/ws"
  "$BIN" run quiet.yaml -o base.json -q --seed 1
  "$BIN" run quiet.yaml -o same.json -q --seed 2
  "$BIN" run slow.yaml -o slow.json -q --seed 2
  "$BIN" run unsure.yaml -o unsure.json -q --seed 2 )

# --- cases ------------------------------------------------------------------------
failures=0
passed=0
run_case() {  # run_case NAME EVENT INPUTS_JSON -> $WORK/job.json, $CASE_LOG, $CASE_CALLS
  # SETUP unset: gpugate on PATH. Else the stand-ins come first on PATH and
  # SETUP=cache: gpugate is not on PATH but in the cached install prefix;
  # SETUP=none: neither; SETUP=always: both; SETUP=broken: the cached binary
  # does not run (its recorded runtime packages are all installed).
  local temp="$WORK/tmp-$1" path="$WORK/path:$PATH" prefix
  rm -rf "$temp"; mkdir -p "$temp"
  prefix="$temp/gpugate-prefix"
  CASE_CALLS="$temp/calls.txt"
  : > "$CASE_CALLS"
  case "${SETUP:-}" in
    "") ;;
    always) path="$WORK/shims:$WORK/path:$PATH" ;;
    *) path="$WORK/shims:$PATH" ;;
  esac
  case "${SETUP:-}" in
    cache|always) mkdir -p "$prefix/bin"; ln -s "$BIN" "$prefix/bin/gpugate" ;;
    broken) mkdir -p "$prefix/bin" "$prefix/share/gpugate"
            printf '#!/bin/sh\nexit 127\n' > "$prefix/bin/gpugate"; chmod +x "$prefix/bin/gpugate"
            echo bash > "$prefix/share/gpugate/runtime-packages" ;;
  esac
  ( cd "$WORK/ws" && PATH="$path" RUNNER_TEMP="$temp" GPUGATE_TEST_CALLS="$CASE_CALLS" \
      /usr/bin/python3 "$ROOT/scripts/action/local_runner.py" "$ROOT" "$3" "$WORK/ws" \
        "{\"event_name\": \"$2\", \"event\": {\"pull_request\": {\"number\": \"7\"}}}" ) > "$temp/log.txt" 2>&1 || true
  cp "$temp/job.json" "$WORK/job.json" 2>/dev/null || echo '{}' > "$WORK/job.json"
  CASE_LOG="$temp/log.txt"
}
get() {  # get EXPR -> value from job.json (python expression over `j`)
  /usr/bin/python3 -c "import json,sys; j=json.load(open('$WORK/job.json')); print($1)" 2>/dev/null || echo "<missing>"
}
expect() {  # expect CASE WHAT EXPR WANT
  local got
  got=$(get "$3")
  if [ "$got" = "$4" ]; then
    passed=$((passed + 1))
  else
    failures=$((failures + 1))
    echo "FAIL [$1] $2: expected '$4', got '$got'"
    sed 's/^/    | /' "$CASE_LOG" | tail -n 15
  fi
}
check() {  # check CASE WHAT COMMAND...: passes when COMMAND succeeds
  local name=$1 what=$2
  shift 2
  if "$@" > /dev/null 2>&1; then passed=$((passed + 1)); else
    failures=$((failures + 1)); echo "FAIL [$name] $what"; sed 's/^/    | /' "$CASE_LOG" | tail -n 15; fi
}
expect_summary() {  # expect_summary CASE TEXT
  local text
  text=$(get "j['summary']")
  if grep -qF -- "$2" <<< "$text"; then passed=$((passed + 1)); else
    failures=$((failures + 1)); echo "FAIL [$1] step summary lacks '$2'"; fi
}

# pass: identical code, quiet noise
run_case pass push '{"mode": "compare", "baseline": "base.json", "current": "same.json"}'
expect pass verdict "j['outputs']['verdict']" pass
expect pass exit-code "j['outputs']['exit-code']" 0
expect pass regressions "j['outputs']['regressions']" 0
expect pass job "j['job_exit']" 0
expect pass junit "j['outputs']['junit']" gpugate-junit.xml
expect pass "junit file" "__import__('os').path.exists('$WORK/ws/gpugate-junit.xml')" True
expect pass "comment step skipped on push" "'skip comment' in j['log']" True
expect_summary pass "unchanged"

# regression: +30% on every workload
run_case regression push '{"mode": "compare", "baseline": "base.json", "current": "slow.json"}'
expect regression verdict "j['outputs']['verdict']" fail
expect regression exit-code "j['outputs']['exit-code']" 1
expect regression regressions "j['outputs']['regressions']" 1
expect regression "job fails" "j['job_exit']" 1
expect_summary regression "regression"
# fail-on: never keeps the job green
run_case regression-never push '{"mode": "compare", "baseline": "base.json", "current": "slow.json", "fail-on": "never"}'
expect regression-never "job passes" "j['job_exit']" 0
expect regression-never verdict "j['outputs']['verdict']" fail

# inconclusive: +5% at 4% noise against the strict policy's 2% threshold; inconclusive fails
run_case inconclusive push '{"mode": "compare", "baseline": "base.json", "current": "unsure.json", "policy": "strict.yaml", "fail-on": "inconclusive"}'
expect inconclusive verdict "j['outputs']['verdict']" inconclusive
expect inconclusive exit-code "j['outputs']['exit-code']" 4
expect inconclusive "job fails" "j['job_exit']" 4
expect inconclusive "inconclusive count > 0" "int(j['outputs']['inconclusive']) > 0" True
# ... with fail-on: regression it only warns
run_case inconclusive-pass push '{"mode": "compare", "baseline": "base.json", "current": "unsure.json", "policy": "strict.yaml", "fail-on": "regression"}'
expect inconclusive-pass "job passes" "j['job_exit']" 0
check inconclusive-pass "warning annotation" grep -q '::warning title=gpugate::exit 4: the policy asks for certainty' "$CASE_LOG"
# ... and by default (fail-on: policy) the policy's exit 4 fails the job
run_case inconclusive-policy push '{"mode": "compare", "baseline": "base.json", "current": "unsure.json", "policy": "strict.yaml"}'
expect inconclusive-policy exit-code "j['outputs']['exit-code']" 4
expect inconclusive-policy "job fails" "j['job_exit']" 4

# tool error: the head build's program does not exist
run_case tool-error push '{"mode": "ab", "suite": "failing.yaml", "base-dir": "base", "head-dir": "head", "rounds": "6"}'
expect tool-error exit-code "j['outputs']['exit-code']" 3
expect tool-error "job fails" "j['job_exit']" 3
# input error: a missing file, even with fail-on: never
run_case input-error push '{"mode": "compare", "baseline": "base.json", "current": "missing.json", "fail-on": "never"}'
expect input-error verdict "j['outputs']['verdict']" error
expect input-error exit-code "j['outputs']['exit-code']" 2
expect input-error "job fails" "j['job_exit']" 2
expect_summary input-error "gpugate: error"

# extra-args are shell words: the quotes group and are removed
run_case extra-args push "{\"mode\": \"ab\", \"suite\": \"quiet.yaml\", \"base-dir\": \"base\", \"head-dir\": \"head\", \"rounds\": \"8\", \"extra-args\": \"--filter 'kernel/[ab]'\"}"
expect extra-args verdict "j['outputs']['verdict']" pass
expect_summary extra-args "2 unchanged"
run_case extra-args-bad push "{\"mode\": \"ab\", \"suite\": \"quiet.yaml\", \"base-dir\": \"base\", \"head-dir\": \"head\", \"extra-args\": \"--filter 'kernel\"}"
expect extra-args-bad exit-code "j['outputs']['exit-code']" 2
expect extra-args-bad verdict "j['outputs']['verdict']" error

# interleaved A/B on the synthetic backend (A/A): passes
run_case ab push '{"mode": "ab", "suite": "quiet.yaml", "base-dir": "base", "head-dir": "head", "rounds": "8"}'
expect ab verdict "j['outputs']['verdict']" pass
expect ab "job passes" "j['job_exit']" 0
expect_summary ab "5 unchanged"
expect_summary ab "vs current head "

# refresh: run and append to a baseline folder
run_case refresh push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "baselines/", "keep": "3"}'
expect refresh "job passes" "j['job_exit']" 0
expect refresh "baseline written" "__import__('glob').glob('$WORK/ws/baselines/action-test/*.json') != []" True
expect_summary refresh "gpugate baseline refresh"

# a history from another environment: refused, and re-keyed with rekey: true
/usr/bin/python3 - "$WORK/ws/baselines/action-test" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    d = json.load(open(f))
    for r in d["runs"]:
        r["run"]["environment"]["cpu_model"] = "Another CPU 9000"
        r["run"]["environment"]["cpu_cores"] = 64
    json.dump(d, open(f, "w"))
PY
run_case refresh-other-env push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "baselines/", "keep": "3"}'
expect refresh-other-env exit-code "j['outputs']['exit-code']" 2
check refresh-other-env "says the environment differs" grep -q "another environment" "$CASE_LOG"
run_case refresh-rekey push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "baselines/", "keep": "3", "rekey": "true"}'
expect refresh-rekey exit-code "j['outputs']['exit-code']" 0
expect refresh-rekey "job passes" "j['job_exit']" 0
run_case rekey-bad push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "baselines/", "rekey": "yes"}'
expect rekey-bad exit-code "j['outputs']['exit-code']" 2
# keep is checked before the suite runs: no results file is written
run_case keep-bad push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "keep-baselines/", "keep": "0", "results": "keep-bad.json"}'
expect keep-bad exit-code "j['outputs']['exit-code']" 2
check keep-bad "nothing was run" test ! -e "$WORK/ws/keep-bad.json"

# refresh on a pull request would store unmerged code as the target's history
run_case refresh-pr pull_request '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "pr-baselines/"}'
expect refresh-pr exit-code "j['outputs']['exit-code']" 2
expect refresh-pr "job fails" "j['job_exit']" 2
expect refresh-pr "nothing stored" "__import__('os').path.exists('$WORK/ws/pr-baselines')" False
check refresh-pr "says why" grep -qF "may check out code that is not merged" "$CASE_LOG"
# ... and so would one on any other event that carries a pull request
run_case refresh-review pull_request_review '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "review-baselines/"}'
expect refresh-review exit-code "j['outputs']['exit-code']" 2
expect refresh-review "nothing stored" "__import__('os').path.exists('$WORK/ws/review-baselines')" False

# a refresh of some workloads only would thin out the history
run_case refresh-filtered push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "filtered-baselines/", "extra-args": "--filter kernel/a"}'
expect refresh-filtered exit-code "j['outputs']['exit-code']" 2
expect refresh-filtered "nothing stored" "__import__('os').path.exists('$WORK/ws/filtered-baselines')" False
run_case refresh-abbreviated push '{"mode": "refresh", "suite": "quiet.yaml", "baseline": "filtered-baselines/", "extra-args": "--fil=kernel/a"}'
expect refresh-abbreviated exit-code "j['outputs']['exit-code']" 2
expect refresh-abbreviated "nothing stored" "__import__('os').path.exists('$WORK/ws/filtered-baselines')" False
# exit 0 without a verdict (help printed instead of a comparison) is no pass
run_case no-verdict push '{"mode": "compare", "baseline": "base.json", "current": "same.json", "extra-args": "-h"}'
expect no-verdict outcome "j['outputs']['outcome']" error
expect no-verdict "job fails" "j['job_exit']" 3
check no-verdict "never says pass" bash -c "! grep -q '^gpugate: pass' '$CASE_LOG'"
# an input error replaces the pull request's comment with an error report
run_case error-comment pull_request '{"mode": "compare", "baseline": "base.json", "current": "missing.json"}'
check error-comment "the comment says error" grep -q "gpugate: error (exit code 2)" "$(get "j['outputs']['comment']")"
key_missing=$(get "j['outputs']['comment-key']")
run_case other-use pull_request '{"mode": "compare", "baseline": "base.json", "current": "slow.json"}'
check other-use "another use of the action has its own comment key" [ "$(get "j['outputs']['comment-key']")" != "$key_missing" ]

# a line break in an input cannot write outputs or workflow commands
run_case newline push '{"mode": "compare", "baseline": "base.json", "current": "slow.json", "junit": "j.xml\nexit-code=0\noutcome=pass"}'
expect newline exit-code "j['outputs']['exit-code']" 2
expect newline "job fails" "j['job_exit']" 2
run_case newline-mode push '{"mode": "gate\n::warning title=x::INJECTED", "suite": "quiet.yaml", "baseline": "base.json"}'
expect newline-mode "job fails" "j['job_exit']" 2
check newline-mode "no injected command" bash -c "! grep -q '^::warning title=x::' '$CASE_LOG'"

# fail-on: inconclusive fails inconclusive comparisons under the default
# policy too (which passes them with exit 0)
run_case inconclusive-default push '{"mode": "compare", "baseline": "base.json", "current": "unsure.json", "fail-on": "inconclusive"}'
expect inconclusive-default exit-code "j['outputs']['exit-code']" 0
expect inconclusive-default "job fails" "j['job_exit']" 4

# a baseline branch that cannot be read (no git checkout here) is an error,
# never "no baseline yet": that would pass a gate that compared nothing
run_case unreadable-branch pull_request '{"mode": "compare", "baseline-branch": "gpugate-baselines", "current": "slow.json"}'
expect unreadable-branch exit-code "j['outputs']['exit-code']" 2
expect unreadable-branch "job fails" "j['job_exit']" 2
check unreadable-branch "not a first run" bash -c "! grep -q 'no baseline (the first refresh creates it)' '$CASE_LOG'"

# setup from the cache: the prefix the cache step restores, no build
SETUP=cache run_case cache-hit push '{"mode": "compare", "baseline": "base.json", "current": "same.json"}'
expect cache-hit verdict "j['outputs']['verdict']" pass
expect cache-hit "cache step played by the caller" "any(l.startswith('uses cache') for l in j['log'])" True
expect cache-hit "nothing to save" "'skip save' in j['log']" True
expect cache-hit "warm setup under 10 s" "j['durations']['setup'] < 10" True
check cache-hit "uses the cached prefix" grep -qF "set up from cache ($WORK/tmp-cache-hit/gpugate-prefix/bin/gpugate)" "$CASE_LOG"
check cache-hit "no cmake, apt-get or sudo (called: $(tr '\n' ';' < "$CASE_CALLS"))" test ! -s "$CASE_CALLS"
echo "warm setup (cache hit): $(get "j['durations']['setup']") s"
# a miss: build (cmake stood in for) without tests, benchmarks or examples,
# install into the prefix, save it
SETUP=none run_case cache-miss push '{"mode": "compare", "baseline": "base.json", "current": "same.json"}'
expect cache-miss verdict "j['outputs']['verdict']" pass
expect cache-miss "built gpugate saved" "any(l.startswith('uses save') for l in j['log'])" True
check cache-miss "installed into the prefix" grep -qF "set up from built ($WORK/tmp-cache-miss/gpugate-prefix/bin/gpugate)" "$CASE_LOG"
for arg in -DGPUGATE_BUILD_TESTS=OFF -DGPUGATE_BUILD_BENCH=OFF -DGPUGATE_BUILD_EXAMPLES=OFF -DGPUGATE_STATIC_DEPS=AUTO; do
  check cache-miss "configured with $arg" grep -q -e "^cmake -S .* $arg" "$CASE_CALLS"
done
check cache-miss "builds only the gpugate target" grep -q -e "^cmake --build .* --target gpugate$" "$CASE_CALLS"
if command -v dpkg > /dev/null; then
  check cache-miss "records the runtime packages" test -s "$WORK/tmp-cache-miss/gpugate-prefix/share/gpugate/runtime-packages"
fi
# always: builds although gpugate is on PATH and in the prefix; no restore
SETUP=always run_case always push '{"mode": "compare", "baseline": "base.json", "current": "same.json", "build-from-source": "always", "cmake-args": "-DGPUGATE_WITH_CUDA=OFF -DCMAKE_CXX_FLAGS='"'"'-O2 -g'"'"'"}'
expect always "no restore" "'skip cache' in j['log']" True
check always "rebuilds" grep -qF "set up from built" "$CASE_LOG"
# cmake-args are shell words: the quoted flags are one argument, unquoted
check always "cmake-args split as shell words" grep -qF -e "-DGPUGATE_WITH_CUDA=OFF -DCMAKE_CXX_FLAGS=-O2 -g" "$CASE_CALLS"
# a cached binary that does not run, its runtime packages present: no
# apt-get, then a build
SETUP=broken run_case broken-cache push '{"mode": "compare", "baseline": "base.json", "current": "same.json"}'
expect broken-cache verdict "j['outputs']['verdict']" pass
check broken-cache "tries the recorded runtime packages" grep -q "installing the packages it was linked against" "$CASE_LOG"
check broken-cache "rebuilds" grep -qF "set up from built" "$CASE_LOG"
check broken-cache "no apt-get when nothing is missing" bash -c "! grep -q -e '^apt-get' -e '^sudo' '$CASE_CALLS'"
# build-from-source: never, and nothing on PATH or in the cache: input error
SETUP=none run_case never push '{"mode": "compare", "baseline": "base.json", "current": "same.json", "build-from-source": "never"}'
expect never "job fails" "j['job_exit']" 2
if grep -q "is not on PATH or in .*build-from-source is 'never'" "$CASE_LOG"; then passed=$((passed + 1)); else
  failures=$((failures + 1)); echo "FAIL [never] no clear error"; tail -n 15 "$CASE_LOG"; fi

echo "action local test: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
