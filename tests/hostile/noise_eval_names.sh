#!/bin/sh
# gpugate_noise_eval on a corpus with hostile text: benchmark names with
# Markdown and HTML metacharacters (control characters never get in: every
# reader refuses such names) and file names with a terminal escape sequence.
# Names reach the Markdown tables escaped, paths reach the terminal
# (--show-false) escaped.
#   noise_eval_names.sh EVALUATOR SOURCE_CORPUS_DIR
set -eu
eval_bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
esc=$(printf '\033')
i=0
for f in "$src"/*.json; do
  i=$((i + 1))
  [ "$i" -le 6 ] || break
  # Every file: BM_IntHash renamed to a Markdown table breaker; only the
  # first: BM_FmaChain to another (left out, named on stderr).
  out="$tmp/corpus/run${esc}[31m$i.json"
  sed 's/"BM_IntHash/"BM_|*x*<b>IntHash/g' "$f" > "$out"
  if [ "$i" = 1 ]; then sed -i 's/"BM_FmaChain/"BM_[l](http:\/\/x)FmaChain/g' "$out"; fi
done
"$eval_bin" --corpus "$tmp/corpus" --cases 40 --seed 1 --modes two-files --effects 100 \
  --show-false 1000 > "$tmp/out.md" 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
if LC_ALL=C grep -q "$esc" "$tmp/out.md" "$tmp/err.txt"; then
  echo "FAIL: a raw escape character reached the output"; LC_ALL=C grep -n "$esc" "$tmp/err.txt" | head -3 | cat -v; exit 1
fi
grep -q 'BM\\_\\|\\\*x\\\*&lt;b&gt;IntHash' "$tmp/out.md" ||
  { echo "FAIL: the name's | * < > are not escaped in Markdown"; cat "$tmp/out.md"; exit 1; }
grep -q 'left out BM_\[l\](http://x)FmaChain (ok in 1 of 6)' "$tmp/err.txt" ||
  { echo "FAIL: the rare name was not named"; cat "$tmp/err.txt"; exit 1; }
grep -q '^false regression' "$tmp/err.txt" ||
  { echo "FAIL: no false regression was shown, so the paths were not printed"; exit 1; }
echo "ok: hostile names and paths escaped in Markdown and on the terminal"
