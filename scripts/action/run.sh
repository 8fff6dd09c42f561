#!/usr/bin/env bash
# Action step "Run gpugate": builds the command line for the mode, runs it
# with --github (step summary, outputs, annotations), records the exit code
# and the report paths in $GITHUB_OUTPUT. Always exits 0: the "Gate" step
# (decide.sh) fails the job according to fail-on.
set -uo pipefail
bin=${GPUGATE_BIN:?no gpugate binary from the setup step}
out=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}

. "$(dirname "$0")/annotate.sh"
. "$(dirname "$0")/words.sh"
# This use of the action in the job: the inputs that say what it measures
# and judges (mode, suite, current results, baseline, policy, runner class,
# builds, extra-args). Two uses in one job (two suites, two runner classes,
# one suite with --tag fast and --tag slow) get their own scratch files and
# their own sticky pull-request comment.
key=$(printf '%s\n' "${GPUGATE_MODE:-gate}" "${GPUGATE_SUITE:-}" "${GPUGATE_CURRENT:-}" "${GPUGATE_SHARDS:-}" \
        "${GPUGATE_BASELINE:-}" "${GPUGATE_BASELINE_BRANCH:-}" "${GPUGATE_POLICY:-}" "${GPUGATE_ENV_KEY_INPUT:-}" \
        "${GPUGATE_BASE_DIR:-}" "${GPUGATE_HEAD_DIR:-}" "${GPUGATE_EXTRA_ARGS:-}" | cksum | cut -d' ' -f1)
scratch="${RUNNER_TEMP:-/tmp}/gpugate-$key"
echo "comment-key=$key" >> "$out"
# The pull-request comment: gpugate fits the Markdown report to one comment.
comment="$scratch-comment.md"
rm -f "$comment"
say_outcome() {  # the outcome and its older name, verdict
  { echo "outcome=$1"; echo "verdict=$1"; } >> "$out"
}
# Without a report, the comment says so: a comment left from an earlier push
# would read as this commit's verdict.
error_comment() {  # exit code, what happened
  local run_url=""
  if [ -n "${GITHUB_SERVER_URL:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ] && [ -n "${GITHUB_RUN_ID:-}" ]; then
    run_url="$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
  fi
  {
    echo "## :x: gpugate: error (exit code $1)"
    echo
    echo "$2, so this commit has no report${run_url:+; see the job log: $run_url}."
  } > "$comment"
}
fail_input() {  # a problem with the action's inputs: exit code 2
  annotate error "$1"
  echo "exit-code=2" >> "$out"
  say_outcome error
  error_comment 2 "The action's inputs were refused before gpugate ran"
  echo "comment=$comment" >> "$out"
  exit 0
}
need() { [ -n "${!1:-}" ] || fail_input "mode '$GPUGATE_MODE' needs the input '$2'"; }

# Paths and names from the workflow go into $GITHUB_OUTPUT lines and
# messages: a line break in one would write outputs of its own.
for var in GPUGATE_SUITE GPUGATE_BASELINE GPUGATE_CURRENT GPUGATE_SHARDS GPUGATE_POLICY \
           GPUGATE_BASE_DIR GPUGATE_HEAD_DIR GPUGATE_RESULTS GPUGATE_JUNIT GPUGATE_MARKDOWN \
           GPUGATE_JSON GPUGATE_HTML GPUGATE_MODE GPUGATE_BASELINE_BRANCH GPUGATE_SOURCE_BRANCH \
           GPUGATE_ROUNDS GPUGATE_KEEP GPUGATE_ENV_KEY_INPUT; do
  case "${!var:-}" in *$'\n'* | *$'\r'*)
    fail_input "the input behind $var holds a line break: paths, names and numbers are one line" ;;
  esac
done
# rekey: true lets refresh re-key a history from another environment.
case "${GPUGATE_REKEY:-false}" in
  true) export GPUGATE_UPDATE_FORCE=1 ;;
  false | "") unset GPUGATE_UPDATE_FORCE ;;
  *) fail_input "rekey must be true or false (got '${GPUGATE_REKEY}')" ;;
esac
# keep: the number of runs a refresh keeps, checked before the suite runs
# (gpugate baseline update takes 1 to 1000; other modes do not use it).
if [ "${GPUGATE_MODE:-}" = refresh ]; then
  case "${GPUGATE_KEEP:-30}" in
    *[!0-9]*) fail_input "keep must be a whole number from 1 to 1000 (got '${GPUGATE_KEEP}')" ;;
  esac
  keep_digits=${GPUGATE_KEEP:-30}
  if [ "${#keep_digits}" -gt 9 ] || [ $((10#$keep_digits)) -lt 1 ] || [ $((10#$keep_digits)) -gt 1000 ]; then
    fail_input "keep must be a whole number from 1 to 1000 (got '${GPUGATE_KEEP}')"
  fi
fi
# Reports written by this step (not files an earlier step left there).
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT

reports=()
[ -n "${GPUGATE_JUNIT:-}" ] && reports+=(--junit "$GPUGATE_JUNIT")
[ -n "${GPUGATE_MARKDOWN:-}" ] && reports+=(--markdown "$GPUGATE_MARKDOWN")
[ -n "${GPUGATE_JSON:-}" ] && reports+=(--json "$GPUGATE_JSON")
[ -n "${GPUGATE_HTML:-}" ] && reports+=(--html "$GPUGATE_HTML")
reports+=(--pr-comment "$comment")
policy=()
[ -n "${GPUGATE_POLICY:-}" ] && policy=(--policy "$GPUGATE_POLICY")
# extra-args are shell words: quotes group ("--filter 'sgemm *'" is two
# arguments, the second without its quotes); nothing is evaluated.
extra=()
read_words extra extra-args "${GPUGATE_EXTRA_ARGS:-}" || fail_input "$WORDS_ERROR"

# The runner class: gpugate reads GPUGATE_ENV_KEY (default: <os>-<arch>-<image>
# on GitHub-hosted runners; self-hosted runners should name one).
if [ -n "${GPUGATE_ENV_KEY_INPUT:-}" ]; then export GPUGATE_ENV_KEY="$GPUGATE_ENV_KEY_INPUT"; fi
branch=${GPUGATE_BASELINE_BRANCH:-}
source_branch=${GPUGATE_SOURCE_BRANCH:-}
source_branch=${source_branch#refs/heads/}  # a merge queue's base_ref is a full ref
branch_tool="$(dirname "$0")/baseline_branch.sh"
if [ -n "$branch" ] && [ -z "$source_branch" ]; then
  fail_input "baseline-branch needs the branch the runs belong to (github.base_ref or github.ref_name is empty)"
fi

# The baseline for gate and compare: the input, or the history of the branch
# this change goes into, read from the baseline branch (read-only).
resolve_baseline() {
  baseline=${GPUGATE_BASELINE:-}
  if [ -n "$branch" ]; then
    baseline="$scratch-baselines/"
    rm -rf "$baseline"
    GPUGATE_BIN="$bin" bash "$branch_tool" fetch "$branch" "$source_branch" "$baseline" ||
      fail_input "could not read the baseline branch '$branch'"
    # The folder is a scratch copy: what starts the history is the nightly
    # refresh that writes the branch, not an update of this copy.
    export GPUGATE_FIRST_RUN_HINT="the history of '${source_branch:-the base branch}' on the branch '$branch' is written by mode: refresh with baseline-branch: $branch (the nightly); run it once by hand to start it"
  fi
  [ -n "$baseline" ] || fail_input "mode '$GPUGATE_MODE' needs the input 'baseline' or 'baseline-branch'"
}

code=0
case "${GPUGATE_MODE:-gate}" in
  gate)
    need GPUGATE_SUITE suite
    resolve_baseline
    "$bin" gate "$GPUGATE_SUITE" --baseline "$baseline" "${policy[@]}" "${reports[@]}" --github "${extra[@]}"
    code=$? ;;
  ab)
    need GPUGATE_SUITE suite; need GPUGATE_BASE_DIR base-dir; need GPUGATE_HEAD_DIR head-dir
    "$bin" ab "$GPUGATE_SUITE" --base "$GPUGATE_BASE_DIR" --head "$GPUGATE_HEAD_DIR" \
      --rounds "${GPUGATE_ROUNDS:-10}" "${policy[@]}" "${reports[@]}" --github "${extra[@]}"
    code=$? ;;
  compare)
    current=${GPUGATE_CURRENT:-}
    if [ -n "${GPUGATE_SHARDS:-}" ]; then
      # The shards of one run (gpugate run --shard i/N on N jobs), joined.
      mapfile -t shard_files < <(compgen -G "$GPUGATE_SHARDS" || true)
      [ "${#shard_files[@]}" -gt 0 ] || fail_input "shards: no file matches '$GPUGATE_SHARDS'"
      current="$scratch-merged.json"
      "$bin" merge "${shard_files[@]}" -o "$current"
      code=$?
      [ "$code" -eq 0 ] && echo "results=$current" >> "$out"
    fi
    if [ "$code" -eq 0 ]; then  # (a failed merge is reported below, as any error)
      [ -n "$current" ] || fail_input "mode 'compare' needs the input 'current' or 'shards'"
      resolve_baseline
      "$bin" compare "$baseline" "$current" "${policy[@]}" "${reports[@]}" --github "${extra[@]}"
      code=$?
    fi ;;
  run)
    need GPUGATE_SUITE suite
    results=${GPUGATE_RESULTS:-gpugate-results.json}
    "$bin" run "$GPUGATE_SUITE" -o "$results" "${extra[@]}"
    code=$?
    if [ "$code" -eq 0 ]; then
      echo "results=$results" >> "$out"
      say_outcome not_judged   # measured only: nothing compared
    fi ;;
  refresh)
    # A refresh stores the measured code as the history of its branch: on a
    # pull request or in a merge queue that code is not merged yet, and would
    # go into the target branch's history.
    # Only events whose checkout is a branch's own code: every event that
    # carries a pull request (reviews and review comments included) checks
    # out its unmerged merge ref. Outside GitHub (no event) it is the user's
    # checkout.
    case "${GPUGATE_EVENT:-}" in
      push | schedule | workflow_dispatch | repository_dispatch | "") ;;
      *) fail_input "mode 'refresh' stores a run as the history of '$source_branch', but a '$GPUGATE_EVENT' event may check out code that is not merged: run refresh on push, schedule, workflow_dispatch or repository_dispatch (mode 'gate' on pull requests)" ;;
    esac
    case "${GITHUB_REF:-}" in refs/pull/*)
      fail_input "mode 'refresh' stores a run as the history of '$source_branch', but the checkout is a pull request's ($GITHUB_REF), not merged code" ;;
    esac
    need GPUGATE_SUITE suite
    [ -n "$branch" ] || need GPUGATE_BASELINE baseline
    # A history holds whole runs: a run of some workloads would push whole
    # ones out of the `keep` newest and leave the others without history.
    # Any prefix too: a gpugate on PATH from before options had to be given
    # in full takes "--filt" for --filter.
    for a in "${extra[@]}"; do
      name=${a%%=*}
      [ "${#name}" -ge 3 ] && [[ "$name" == --* ]] || continue
      for o in --filter --tag --shard; do
        if [[ "$o" == "$name"* ]]; then
          fail_input "mode 'refresh' stores whole runs of the suite: extra-args must not select workloads ($a); give refresh a suite of the workloads to keep"
        fi
      done
    done
    results=${GPUGATE_RESULTS:-gpugate-results.json}
    "$bin" run "$GPUGATE_SUITE" -o "$results" "${extra[@]}"
    code=$?
    history=""
    if [ "$code" -eq 0 ] && [ -n "$branch" ]; then
      # Append on the baseline branch (compare-and-swap push, retried on a race).
      line=$(GPUGATE_BIN="$bin" bash "$branch_tool" push "$branch" "$source_branch" "$results" "${GPUGATE_KEEP:-30}")
      code=$?
      echo "$line"
      if [ "$code" -eq 0 ]; then
        rel=$(sed -n 's/^gpugate: pushed [^ ]* (\(.*\))$/\1/p' <<< "$line" | tail -n 1)
        echo "baseline=$branch:$rel" >> "$out"
        check="$scratch-baselines-check/"
        rm -rf "$check"
        GPUGATE_BIN="$bin" bash "$branch_tool" fetch "$branch" "$source_branch" "$check" >/dev/null &&
          history=$(cd "$check" && "$bin" history "${rel#"$source_branch"/}")
      fi
    elif [ "$code" -eq 0 ]; then
      touch "$marker"
      line=$("$bin" baseline update --results "$results" --baseline "$GPUGATE_BASELINE" --keep "${GPUGATE_KEEP:-30}" \
               ${GPUGATE_UPDATE_FORCE:+--force})
      code=$?
      echo "$line"
      if [ "$code" -eq 0 ]; then
        # The file it wrote (not the path in its console line, which is
        # escaped for the terminal).
        if [ -d "$GPUGATE_BASELINE" ]; then
          path=$(find "$GPUGATE_BASELINE" -type f -name '*.json' -newer "$marker" -print | head -n 1)
        else
          path=$GPUGATE_BASELINE
        fi
        echo "baseline=$path" >> "$out"
        history=$("$bin" history "$path")
      fi
    fi
    if [ "$code" -eq 0 ]; then
      echo "results=$results" >> "$out"
      echo "$history"
      if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        { echo "### gpugate baseline refresh"; echo; echo '```'; echo "$line"; echo "$history"; echo '```'; } \
          >> "$GITHUB_STEP_SUMMARY"
      fi
      say_outcome not_judged   # a refresh stores a run; it judges nothing
    fi ;;
  *)
    fail_input "mode must be gate, ab, compare, refresh or run (got '${GPUGATE_MODE}')" ;;
esac

echo "exit-code=$code" >> "$out"
# gpugate writes verdict= itself with --github; when it stopped before
# judging (input or tool error), say so.
if ! grep -q '^verdict=' "$out"; then
  say_outcome error
  for k in regressions rule_failures failing improvements inconclusive; do echo "$k=0" >> "$out"; done
  annotate error "gpugate exited with code $code before reaching a verdict (see the log above)"
  [ -f "$comment" ] || error_comment "$code" "gpugate stopped before reaching a verdict"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    echo "**gpugate: error** (exit code $code) before reaching a verdict; see the job log." >> "$GITHUB_STEP_SUMMARY"
  fi
fi
for k in junit markdown json html; do
  var="GPUGATE_${k^^}"
  f=${!var:-}
  if [ -n "$f" ] && [ -f "$f" ] && [ "$f" -nt "$marker" ]; then echo "$k=$f" >> "$out"; else echo "$k=" >> "$out"; fi
done
if [ -f "$comment" ]; then echo "comment=$comment" >> "$out"; else echo "comment=" >> "$out"; fi
exit 0
