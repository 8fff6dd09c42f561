#!/usr/bin/env bash
# Action step "Run gpugate": builds the command line for the mode, runs it
# with --github (step summary, outputs, annotations), records the exit code
# and the report paths in $GITHUB_OUTPUT. Always exits 0: the "Gate" step
# (decide.sh) fails the job according to fail-on.
set -uo pipefail
bin=${GPUGATE_BIN:?no gpugate binary from the setup step}
out=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}

fail_input() {  # a problem with the action's inputs: exit code 2
  echo "::error title=gpugate::$1"
  echo "exit-code=2" >> "$out"
  echo "verdict=error" >> "$out"
  exit 0
}
need() { [ -n "${!1:-}" ] || fail_input "mode '$GPUGATE_MODE' needs the input '$2'"; }

reports=()
[ -n "${GPUGATE_JUNIT:-}" ] && reports+=(--junit "$GPUGATE_JUNIT")
[ -n "${GPUGATE_MARKDOWN:-}" ] && reports+=(--markdown "$GPUGATE_MARKDOWN")
[ -n "${GPUGATE_JSON:-}" ] && reports+=(--json "$GPUGATE_JSON")
[ -n "${GPUGATE_HTML:-}" ] && reports+=(--html "$GPUGATE_HTML")
policy=()
[ -n "${GPUGATE_POLICY:-}" ] && policy=(--policy "$GPUGATE_POLICY")
# extra-args are shell words: quotes group ("--filter 'sgemm *'" is two
# arguments, the second without its quotes); nothing is evaluated.
extra=()
if [ -n "${GPUGATE_EXTRA_ARGS:-}" ]; then
  if command -v python3 >/dev/null 2>&1; then
    words=$(mktemp)
    python3 -c 'import shlex, sys
words = shlex.split(sys.argv[1])
sys.stdout.write("".join(w + "\0" for w in words))' "$GPUGATE_EXTRA_ARGS" > "$words" 2>/dev/null ||
      { rm -f "$words"; fail_input "extra-args: not valid shell words (an unclosed quote?)"; }
    mapfile -d '' -t extra < "$words"
    rm -f "$words"
  elif [[ "$GPUGATE_EXTRA_ARGS" == *[\'\"\\]* ]]; then
    fail_input "extra-args with quotes or backslashes needs python3 on the runner to split them into words"
  else
    read -r -a extra <<< "$GPUGATE_EXTRA_ARGS"
  fi
fi

code=0
case "${GPUGATE_MODE:-gate}" in
  gate)
    need GPUGATE_SUITE suite; need GPUGATE_BASELINE baseline
    "$bin" gate "$GPUGATE_SUITE" --baseline "$GPUGATE_BASELINE" "${policy[@]}" "${reports[@]}" --github "${extra[@]}"
    code=$? ;;
  ab)
    need GPUGATE_SUITE suite; need GPUGATE_BASE_DIR base-dir; need GPUGATE_HEAD_DIR head-dir
    "$bin" ab "$GPUGATE_SUITE" --base "$GPUGATE_BASE_DIR" --head "$GPUGATE_HEAD_DIR" \
      --rounds "${GPUGATE_ROUNDS:-10}" "${policy[@]}" "${reports[@]}" --github "${extra[@]}"
    code=$? ;;
  compare)
    need GPUGATE_BASELINE baseline; need GPUGATE_CURRENT current
    "$bin" compare "$GPUGATE_BASELINE" "$GPUGATE_CURRENT" "${policy[@]}" "${reports[@]}" --github "${extra[@]}"
    code=$? ;;
  refresh)
    need GPUGATE_SUITE suite; need GPUGATE_BASELINE baseline
    results=${GPUGATE_RESULTS:-gpugate-results.json}
    "$bin" run "$GPUGATE_SUITE" -o "$results" "${extra[@]}"
    code=$?
    if [ "$code" -eq 0 ]; then
      line=$("$bin" baseline update --results "$results" --baseline "$GPUGATE_BASELINE" --keep "${GPUGATE_KEEP:-30}")
      code=$?
      echo "$line"
    fi
    if [ "$code" -eq 0 ]; then
      path=${line%%: appended*}
      echo "baseline=$path" >> "$out"
      echo "results=$results" >> "$out"
      history=$("$bin" history "$path")
      echo "$history"
      if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        { echo "### gpugate baseline refresh"; echo; echo '```'; echo "$line"; echo "$history"; echo '```'; } \
          >> "$GITHUB_STEP_SUMMARY"
      fi
      echo "verdict=pass" >> "$out"
    fi ;;
  *)
    fail_input "mode must be gate, ab, compare or refresh (got '${GPUGATE_MODE}')" ;;
esac

echo "exit-code=$code" >> "$out"
# gpugate writes verdict= itself with --github; when it stopped before
# judging (input or tool error), say so.
if ! grep -q '^verdict=' "$out"; then
  echo "verdict=error" >> "$out"
  for k in regressions improvements inconclusive; do echo "$k=0" >> "$out"; done
  echo "::error title=gpugate::gpugate exited with code $code before reaching a verdict (see the log above)"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    echo "**gpugate: error** (exit code $code) before reaching a verdict; see the job log." >> "$GITHUB_STEP_SUMMARY"
  fi
fi
for k in junit markdown json html; do
  var="GPUGATE_${k^^}"
  f=${!var:-}
  if [ -n "$f" ] && [ -f "$f" ]; then echo "$k=$f" >> "$out"; else echo "$k=" >> "$out"; fi
done
exit 0
