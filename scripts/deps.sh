#!/usr/bin/env bash
# Installs the Debian packages gpugate needs, if missing. Safe to run
# repeatedly; uses root (or sudo) only when something is missing.
#   scripts/deps.sh           build and test (development, CI)
#   scripts/deps.sh --build   only what building the gpugate binary needs
set -euo pipefail

BUILD_PKGS=(cmake g++ make ninja-build pkg-config libyaml-cpp-dev rapidjson-dev
            libboost-program-options-dev zlib1g-dev)
case "${1:-}" in
  --build) PKGS=("${BUILD_PKGS[@]}") ;;
  "") PKGS=("${BUILD_PKGS[@]}" libgtest-dev libgmock-dev libbenchmark-dev libxml2-utils cmark-gfm
            python3 python3-yaml valgrind git) ;;
  *) echo "usage: scripts/deps.sh [--build]" >&2; exit 2 ;;
esac

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "gpugate: installing build dependencies: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
