#!/usr/bin/env bash
# Lists the shared libraries that gpugate's binaries load and fails when one
# cannot be found. Used by the Dockerfile's runtime stage (so an image that
# lacks, say, libcupti for the injection library does not build) and by ctest
# on the build tree.
#   scripts/docker/check_runtime_libs.sh FILE...
# Libraries that the NVIDIA driver provides at run time (libcuda, NVML) are
# listed as "from the driver" and not required: an image or a CPU-only runner
# has no driver, and `docker run --gpus` mounts it.
set -euo pipefail
if [ $# -eq 0 ]; then
  echo "usage: scripts/docker/check_runtime_libs.sh FILE..." >&2
  exit 2
fi
DRIVER_LIBS='^(libcuda\.so|libnvidia-ml\.so|libnvidia-)'
missing=0
for f in "$@"; do
  if [ ! -f "$f" ]; then
    echo "check_runtime_libs: $f: no such file" >&2
    missing=1
    continue
  fi
  echo "$f:"
  # ldd prints "name => path (addr)", "name => not found" or "path (addr)".
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    [ -z "$line" ] && continue
    name=${line%% *}
    case "$line" in
      *"=> not found"*)
        if [[ "$name" =~ $DRIVER_LIBS ]]; then
          echo "  $name  (from the driver at run time)"
        else
          echo "  $name  NOT FOUND"
          missing=1
        fi ;;
      *"=>"*)
        path=${line#*=> }; path=${path%% (*}
        echo "  $name  $path" ;;
      *) echo "  ${line%% (*}" ;;
    esac
  done < <(ldd "$f" 2>&1)
done
if [ "$missing" != 0 ]; then
  echo "check_runtime_libs: some libraries cannot be found (above)" >&2
  exit 1
fi
