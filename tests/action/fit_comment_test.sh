#!/usr/bin/env bash
# scripts/action/fit_comment.sh: a report that fits is posted as it is; a
# larger one loses its folded <details> rows first (and counts them), then is
# cut at a line; no <details> is left open and every note is outside one.
# Usage: fit_comment_test.sh REPO_ROOT
set -euo pipefail
fit="$1/scripts/action/fit_comment.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # description, command...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what" >&2; fail=1; fi
}
report() {  # $1 = regression rows, $2 = unchanged rows
  echo "## gpugate: fail"
  echo
  echo "### Regressions ($1)"
  echo
  echo "| Workload | Change |"
  echo "| :--- | ---: |"
  for ((i = 0; i < $1; i++)); do printf '| bench/%05d/%s | +50%% |\n' "$i" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; done
  echo
  echo "<details>"
  echo "<summary>$2 unchanged</summary>"
  echo
  echo "| Workload | Change |"
  echo "| :--- | ---: |"
  for ((i = 0; i < $2; i++)); do printf '| same/%05d/%s | +0.1%% |\n' "$i" "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"; done
  echo
  echo "</details>"
  echo
  echo "### Warnings"
  echo
  echo "- the last section"
}

report 3 10 > "$work/small.md"
bash "$fit" "$work/small.md" 60000 > "$work/small.out"
check "a report that fits is unchanged" cmp -s "$work/small.md" "$work/small.out"

report 3 2000 > "$work/folded.md"
bash "$fit" "$work/folded.md" 60000 > "$work/folded.out"
check "folded rows left out: under the limit" [ "$(wc -c < "$work/folded.out")" -le 60000 ]
check "no <details> left" bash -c '! grep -q "details>" "$0"' "$work/folded.out"
check "the folded rows are counted" grep -q '^_(2000 folded rows left out to fit a pull-request comment' "$work/folded.out"
check "the sections after the folded block stay" grep -q '^- the last section$' "$work/folded.out"
check "the regressions stay" [ "$(grep -c '^| bench/' "$work/folded.out")" -eq 3 ]

report 3000 10 > "$work/cut.md"
bash "$fit" "$work/cut.md" 60000 > "$work/cut.out"
check "cut: under the limit" [ "$(wc -c < "$work/cut.out")" -le 60000 ]
check "cut: at the end of a row" bash -c 'grep "^| bench/" "$0" | tail -1 | grep -q "| +50% |$"' "$work/cut.out"
check "cut: says so" grep -q '^_(report cut to fit a pull-request comment' "$work/cut.out"
check "cut: no <details> left open" \
  [ "$(grep -c '^<details>' "$work/cut.out")" -eq "$(grep -c '^</details>' "$work/cut.out")" ]
# A <details> never closed (not gpugate's Markdown) loses nothing after it.
{ report 3 10; echo "<details>"; echo "<summary>open</summary>"; echo "| a | b |";
  for ((i = 0; i < 4000; i++)); do echo "| filler $i | x |"; done; echo "### After"; } > "$work/open.md"
bash "$fit" "$work/open.md" 60000 > "$work/open.out"
check "unclosed <details>: under the limit" [ "$(wc -c < "$work/open.out")" -le 60000 ]
check "unclosed <details>: the rows after it are kept up to the cut" grep -q '^| filler 1 | x |$' "$work/open.out"
check "unclosed <details>: the cut is said" grep -q '^_(report cut to fit a pull-request comment' "$work/open.out"
# A limit with no room for the report and its note is refused.
if bash "$fit" "$work/cut.md" 100 > /dev/null 2>&1; then rc=0; else rc=$?; fi
check "a limit of 100 bytes is refused (exit $rc)" [ "$rc" -eq 2 ]
exit "$fail"
