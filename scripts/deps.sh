#!/usr/bin/env bash
# Installs the Debian packages gpugate needs, if missing. Safe to run
# repeatedly; uses root (or sudo) only when something is missing, and runs
# no apt-get at all when nothing is.
#   scripts/deps.sh                 build and test (development, CI)
#   scripts/deps.sh --build         only what building the gpugate binary needs
#   scripts/deps.sh --fuzz          building plus clang and its libFuzzer and
#                                   sanitizer runtimes (scripts/fuzz.sh)
#   scripts/deps.sh --packages P..  just these (e.g. the runtime packages a
#                                   cached gpugate recorded when it was built)
set -euo pipefail

BUILD_PKGS=(cmake g++ make ninja-build libyaml-cpp-dev rapidjson-dev
            libboost-program-options-dev zlib1g-dev libzstd-dev)
# clang with libFuzzer (libclang_rt.fuzzer comes with libclang-rt-dev), for
# scripts/fuzz.sh and the sanitizer build of scripts/sanitize.sh.
FUZZ_PKGS=(clang libclang-rt-dev)
case "${1:-}" in
  --build) PKGS=("${BUILD_PKGS[@]}") ;;
  --fuzz) PKGS=("${BUILD_PKGS[@]}" "${FUZZ_PKGS[@]}") ;;
  --packages) shift; PKGS=("$@") ;;
  "") PKGS=("${BUILD_PKGS[@]}" pkg-config libgtest-dev libgmock-dev libbenchmark-dev libxml2-utils
            cmark-gfm python3 python3-yaml valgrind git chromium ccache "${FUZZ_PKGS[@]}") ;;
  *) echo "usage: scripts/deps.sh [--build | --fuzz | --packages PACKAGE...]" >&2; exit 2 ;;
esac

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "gpugate: installing missing packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
