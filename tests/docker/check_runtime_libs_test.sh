#!/usr/bin/env bash
# ctest runtime_libs: scripts/docker/check_runtime_libs.sh passes on the
# built binaries (FILE... given by CMake) and fails, naming the library, on a
# library whose dependency is gone.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
check=$here/scripts/docker/check_runtime_libs.sh
"$check" "$@"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
printf 'int gone(void) { return 1; }\n' > "$tmp/gone.c"
printf 'int gone(void);\nint user(void) { return gone(); }\n' > "$tmp/user.c"
"$cc" -shared -fPIC -o "$tmp/libgpugategone.so" "$tmp/gone.c"
"$cc" -shared -fPIC -o "$tmp/libuser.so" "$tmp/user.c" -L"$tmp" -lgpugategone -Wl,--no-as-needed
rm "$tmp/libgpugategone.so"
if out=$("$check" "$tmp/libuser.so" 2>&1); then
  echo "FAIL: a library with a missing dependency passed:"; echo "$out"; exit 1
fi
grep -q 'libgpugategone.so  NOT FOUND' <<<"$out" || { echo "FAIL: missing library not named:"; echo "$out"; exit 1; }
echo "runtime_libs: built binaries resolve; a missing dependency is caught and named"
