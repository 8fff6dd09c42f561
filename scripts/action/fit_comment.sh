#!/usr/bin/env bash
# Fits gpugate's Markdown report into one pull-request comment (GitHub takes
# at most 65536 characters): the report as it is when it fits; else without
# its folded <details> blocks (the unchanged rows), which a note counts; else
# also cut at the end of a line, with a note. Never cuts inside a <details>
# block, so no note is hidden in a collapsed one and no block stays open.
# Usage: fit_comment.sh REPORT.md [LIMIT_BYTES]   (writes the body on stdout)
set -euo pipefail
report=$1
limit=${2:-60000}
size=$(wc -c < "$report")
if [ "$size" -le "$limit" ]; then
  cat "$report"
  exit 0
fi
note_room=400
[ "$limit" -gt "$((note_room * 2))" ] || { echo "fit_comment.sh: a limit of $limit bytes leaves no room for the report" >&2; exit 2; }
LC_ALL=C awk -v limit="$((limit - note_room))" '
  /^<details>/ { folded = 1; rows = 0; held = ""; next }
  folded && /^<\/details>/ {
    folded = 0; dropped += (rows > 2 ? rows - 2 : 0); next  # less the header and its rule
  }
  folded { if ($0 ~ /^\|/) rows++; held = held $0 "\n"; next }
  {
    if (cut) next
    if (used + length($0) + 1 > limit) { cut = 1; next }
    out = out $0 "\n"; used += length($0) + 1
  }
  END {
    # A <details> never closed (not gpugate Markdown): its lines were held
    # back; they end the report, cut to the room left.
    if (folded) {
      n = split(held, lines, "\n")
      for (i = 1; i < n; i++) {
        if (cut || used + length(lines[i]) + 1 > limit) { cut = 1; break }
        out = out lines[i] "\n"; used += length(lines[i]) + 1
      }
    }
    printf "%s", out
    if (dropped > 0)
      printf "\n_(%d folded rows left out to fit a pull-request comment; the job summary and the report artifacts have every row)_\n", dropped
    if (cut)
      printf "\n_(report cut to fit a pull-request comment; the job summary and the report artifacts are complete)_\n"
  }' "$report"
