#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test. README.md's second command.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh build
werror=OFF
[ -n "${CI:-}" ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDNNCOMPAT_WERROR=$werror >/dev/null
cmake --build build -j"$(nproc)"
cd build && ctest -j"$(nproc)" --output-on-failure
