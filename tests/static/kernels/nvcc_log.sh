#!/usr/bin/env bash
# Runs nvcc (or ar) with its stderr, the ptxas -v report, saved to a file.
#   nvcc_log.sh LOG COMMAND...
set -euo pipefail
log=$1
shift
"$@" 2> "$log.tmp" || { cat "$log.tmp" >&2; exit 1; }
mv "$log.tmp" "$log"
