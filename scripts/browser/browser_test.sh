#!/usr/bin/env bash
# Loads gpugate's HTML pages in a real browser (Debian's chromium, headless)
# and checks what a person would get: the script ran without a JavaScript
# error, the expected rows are there, a hostile workload name stayed text,
# and a link's filter (#verdict=regression) hides the other rows. Writes
# screenshots next to the pages (OUT_DIR/*.png) for people to look at.
# Usage: browser_test.sh GPUGATE OUT_DIR      (ctest: browser_report)
# Exit 77 (skipped) when chromium is missing outside CI; in CI it must exist.
set -euo pipefail
gpugate=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  if [ -n "${CI:-}" ]; then echo "browser_test: no chromium in CI (scripts/deps.sh installs it)" >&2; exit 1; fi
  echo "browser_test: skipped: no chromium (apt-get install chromium)" >&2
  exit 77
fi

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
"$here/make_reports.sh" "$gpugate" "$out" >/dev/null

profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT
run_browser() {  # extra args...; a fresh profile each time, no network, no GPU
  local profile
  profile=$(mktemp -d -p "$profiles")
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" "$@" 2>>"$out/browser.log"
}

fail=0
check() {  # description, command...
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what" >&2; fail=1; fi
}

page="file://$out/report.html"
run_browser --dump-dom "$page" > "$out/report.dom.html"
dom="$out/report.dom.html"
html_tag=$(grep -o '<html[^>]*>' "$dom" | head -1 || true)
check "the browser returned the page" test -n "$html_tag"
check "the script ran to its end" grep -q 'data-js="ready"' <<<"$html_tag"
check "no JavaScript error" bash -c '! grep -q "data-js-errors" <<<"$0"' "$html_tag"
check "the hostile name did not run" bash -c '! grep -q "data-pwned" <<<"$0"' "$html_tag"
check "the hostile name is shown as text" grep -q '&lt;img src=x onerror=' "$dom"
check "4 rows in the results table" test "$(grep -c '<tr data-verdict=' "$dom")" -eq 4
check "4 rows in the forest plot" test "$(grep -c '<g data-verdict=' "$dom")" -eq 4
check "decode is the regression" grep -q '<tr data-verdict="regression" data-name="decode time">' "$dom"
check "a change point is drawn" grep -q 'class="cp"' "$dom"
check "the counter says what is shown" grep -q '4 of 4 results shown' "$dom"

run_browser --dump-dom "$page#verdict=regression" > "$out/filtered.dom.html"
visible=$(grep -o '<tr data-verdict="[a-z]*" data-name="[^"]*"[^>]*>' "$out/filtered.dom.html" | grep -vc 'display: none' || true)
check "#verdict=regression leaves 1 visible row" test "$visible" -eq 1
check "the counter follows the filter" grep -q '1 of 4 results shown' "$out/filtered.dom.html"
# A search by a name's non-ASCII capitals (the page keys names in ASCII
# lower case; the script folds both sides alike).
run_browser --dump-dom "$page#q=%CE%A9MEGA" > "$out/search.dom.html"
check "#q= finds a name by its non-ASCII capitals" grep -q '1 of 4 results shown' "$out/search.dom.html"

# The history dashboard: the index, the suite's page, a workload's page.
site="$out/site"
run_browser --dump-dom "file://$site/index.html" > "$out/site-index.dom.html"
check "the dashboard lists the history" grep -q '>ci-runner</a>' "$out/site-index.dom.html"
suite_page=$(ls "$site"/browser-*/ci-runner-*/index.html | head -1)
run_browser --dump-dom "file://$suite_page" > "$out/site-suite.dom.html"
check "the suite page lists 4 workloads" test "$(grep -c '<tr><td><a href=' "$out/site-suite.dom.html")" -eq 4
check "the hostile name is text on the suite page" grep -q '&lt;img src=x onerror=' "$out/site-suite.dom.html"
check "the suite page kept its markup (no injected element)" bash -c '! grep -q "data-pwned=\"1\"" "$0"' "$out/site-suite.dom.html"
encode_page=$(grep -o 'href="encode-[0-9a-f]*\.html"' "$out/site-suite.dom.html" | head -1 | sed 's/href="//; s/"$//')
check "encode has a page" test -n "$encode_page"
run_browser --dump-dom "file://$(dirname "$suite_page")/$encode_page" > "$out/site-encode.dom.html"
check "encode's step is a change point with its commit" grep -q 'Change points (1)' "$out/site-encode.dom.html"

run_browser --hide-scrollbars --window-size=1280,2400 --screenshot="$out/report.png" "$page" >/dev/null
run_browser --hide-scrollbars --window-size=1280,900 --screenshot="$out/dashboard.png" "file://$suite_page" >/dev/null
run_browser --hide-scrollbars --window-size=1280,1100 --screenshot="$out/dashboard-workload.png" "file://$(dirname "$suite_page")/$encode_page" >/dev/null
run_browser --hide-scrollbars --window-size=1280,1400 --screenshot="$out/report-filtered.png" "$page#verdict=inconclusive" >/dev/null
check "screenshots written" test -s "$out/report.png" -a -s "$out/report-filtered.png" -a -s "$out/dashboard.png"
exit $fail
