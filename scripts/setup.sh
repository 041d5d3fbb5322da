#!/usr/bin/env bash
# Installs the Debian 12 packages dnncompat builds with, and fetches valijson's headers
# (header-only; its Debian package hard-depends on Qt5 and Poco, so it is unpacked, not installed).
# Idempotent: packages already present are not reinstalled. Runs as root or through sudo.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}

packages=(cmake g++ make pkg-config libdnnl-dev ocl-icd-opencl-dev libcli11-dev nlohmann-json3-dev
          libfmt-dev libgtest-dev libbenchmark-dev liblzma-dev zlib1g-dev xz-utils
          chromium chromium-driver
          clang libclang-rt-14-dev llvm-14 valgrind  # sanitizers, libFuzzer, llvm-symbolizer, memcheck
          clang-format)  # scripts/format.sh, the format check

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: not root and no sudo" >&2; exit 1; }
  sudo_cmd=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# valijson headers: prefer a system copy, else unpack the Debian package into the build tree.
if [ ! -f /usr/include/valijson/validator.hpp ] && [ ! -f "$build/third_party/valijson/usr/include/valijson/validator.hpp" ]; then
  mkdir -p "$build/third_party/valijson"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download libvalijson-dev >/dev/null 2>&1 || {
     "${sudo_cmd[@]}" apt-get update -qq && apt-get download libvalijson-dev >/dev/null; })
  dpkg -x "$tmp"/libvalijson-dev_*.deb "$build/third_party/valijson"
  rm -rf "$tmp"
fi
echo "setup: ok"
