#!/bin/sh
# Checks the CUPTI injection library's dynamic symbol table (nm -D): it must
# export InitializeInjection, the entry point the CUDA driver calls for
# CUDA_INJECTION64_PATH, and InitializeInjectionNvtx2, the one NVTX calls for
# NVTX_INJECTION64_PATH, and nothing else (the library is loaded into other
# programs, whose own symbols must not be interposed).
# Usage: check_exports.sh path/to/libgpugate_inject.so
set -eu
lib=${1:?usage: check_exports.sh LIBRARY}
if ! command -v nm >/dev/null 2>&1; then
  echo "check_exports: nm (binutils) is not installed" >&2
  exit 1
fi
defined=$(nm -D --defined-only "$lib")
for entry in InitializeInjection InitializeInjectionNvtx2; do
  if ! printf '%s\n' "$defined" | grep -Eq "^[0-9a-f]+ T $entry\$"; then
    echo "check_exports: $lib does not export $entry as a function:" >&2
    printf '%s\n' "$defined" >&2
    exit 1
  fi
done
others=$(printf '%s\n' "$defined" | grep -E '^[0-9a-f]+ [A-Za-z] ' |
  grep -Ev ' (InitializeInjection|InitializeInjectionNvtx2)$' || true)
if [ -n "$others" ]; then
  echo "check_exports: $lib exports more than InitializeInjection and InitializeInjectionNvtx2:" >&2
  printf '%s\n' "$others" >&2
  exit 1
fi
echo "check_exports: $lib exports InitializeInjection, InitializeInjectionNvtx2 and nothing else"
