#!/usr/bin/env bash
# Local runner test of action.yml: executes the composite action's steps the
# way the GitHub runner does (inputs and expressions substituted, each step in
# `bash --noprofile --norc -eo pipefail`, a fresh $GITHUB_OUTPUT file per step
# parsed into steps.<id>.outputs, one $GITHUB_STEP_SUMMARY, GITHUB_ACTIONS=true,
# GITHUB_WORKSPACE and RUNNER_TEMP set, `if:` and `continue-on-error`
# honoured), then asserts the action's outputs, the step summary and whether
# the job failed, for: pass, regression, inconclusive, tool error, input
# error, A/B and baseline refresh. Synthetic suites keep results deterministic.
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

# --- the runner ---------------------------------------------------------------
cat > "$WORK/runner.py" <<'PY'
"""Runs a composite action's steps like the GitHub Actions runner."""
import json, os, re, subprocess, sys, tempfile
import yaml

action_path, inputs_json, workspace, event = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
action = yaml.safe_load(open(os.path.join(action_path, "action.yml")))
inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
given = json.loads(inputs_json)
unknown = set(given) - set(inputs)
if unknown:
    sys.exit(f"runner: unknown inputs {sorted(unknown)}")
inputs.update(given)
ctx = {"inputs": inputs, "steps": {},
       "github": {"action_path": action_path, "event_name": event, "token": "fake-token",
                  "repository": "example/repo", "event": {"pull_request": {"number": "7"}}}}

def lookup(path):
    cur = ctx
    for part in path.split("."):
        if not isinstance(cur, dict):
            return ""
        cur = cur.get(part, "")
    return "" if isinstance(cur, dict) else str(cur)

IDENT = re.compile(r"\b(inputs|steps|github)((?:\.[A-Za-z0-9_-]+)+)")

def evaluate(expr):
    expr = IDENT.sub(lambda m: repr(lookup(m.group(1) + m.group(2))), expr.strip())
    expr = expr.replace("&&", " and ").replace("||", " or ")
    return eval(expr, {"__builtins__": {}}, {})

def substitute(text):
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(evaluate(m.group(1))), str(text))

def parse_outputs(path):
    out, lines, i = {}, open(path).read().split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^([A-Za-z0-9_-]+)<<(.+)$", line)
        if m:
            name, delim, value = m.group(1), m.group(2), []
            i += 1
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i]); i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
        i += 1
    return out

temp = os.environ["RUNNER_TEMP"]
summary = os.path.join(temp, "step_summary.md")
open(summary, "w").close()
failed_code = 0
log = []
for step in action["runs"]["steps"]:
    sid = step.get("id", "")
    cond = step.get("if")
    if cond is not None:
        cond = cond.strip()
        if cond.startswith("${{"):
            cond = cond[3:-2]
        if failed_code or not evaluate(cond):
            log.append(f"skip {sid}")
            continue
    elif failed_code:
        log.append(f"skip {sid} (job failed)")
        continue
    out_file = tempfile.mktemp(dir=temp, prefix="output_")
    open(out_file, "w").close()
    env = dict(os.environ)
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": out_file, "GITHUB_STEP_SUMMARY": summary,
                "GITHUB_WORKSPACE": workspace, "GITHUB_ACTION_PATH": action_path, "GITHUB_EVENT_NAME": event,
                "CI": "true"})
    for k, v in (step.get("env") or {}).items():
        env[k] = substitute(v)
    script = tempfile.mktemp(dir=temp, prefix="step_", suffix=".sh")
    open(script, "w").write(substitute(step["run"]))
    rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], env=env, cwd=workspace)
    ctx["steps"][sid] = {"outputs": parse_outputs(out_file)}
    log.append(f"step {sid}: exit {rc}")
    if rc != 0 and not step.get("continue-on-error", False):
        failed_code = rc

outputs = {k: substitute(v["value"]) for k, v in action.get("outputs", {}).items()}
json.dump({"outputs": outputs, "job_exit": failed_code, "log": log, "summary": open(summary).read()},
          open(os.path.join(temp, "job.json"), "w"), indent=1)
PY

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
run_case() {  # run_case NAME EVENT INPUTS_JSON -> $WORK/job.json
  local temp="$WORK/tmp-$1"
  rm -rf "$temp"; mkdir -p "$temp"
  ( cd "$WORK/ws" && PATH="$WORK/path:$PATH" RUNNER_TEMP="$temp" \
      /usr/bin/python3 "$WORK/runner.py" "$ROOT" "$3" "$WORK/ws" "$2" ) > "$temp/log.txt" 2>&1 || true
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
# ... and with fail-on: regression it only informs
run_case inconclusive-pass push '{"mode": "compare", "baseline": "base.json", "current": "unsure.json", "policy": "strict.yaml"}'
expect inconclusive-pass "job passes" "j['job_exit']" 0

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

echo "action local test: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
