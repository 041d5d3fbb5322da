#!/usr/bin/env bash
# Sets up (Debian packages), builds and runs every test. README.md's second command.
#
# Which convolution kernels oneDNN has depends on the CPU (AVX-512 adds brgemm, Winograd and VNNI
# int8 kernels to AVX2's), so on a machine above AVX2 the tests that run kernels (tests/lib,
# tests/solver, tests/catalogue, tests/replay) run a second time with DNNL_MAX_CPU_ISA=AVX2, where
# oneDNN dispatches as on an AVX2 machine. On an AVX2 machine both runs would be the same: the
# second is skipped. DNNCOMPAT_TEST_ISAS=native runs the first only.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh build
werror=OFF
[ -n "${CI:-}" ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDNNCOMPAT_WERROR=$werror >/dev/null
cmake --build build -j"$(nproc)"
cd build
native=$(tests/onednn_isa)
echo "test: oneDNN dispatches to $native"
ctest -j"$(nproc)" --output-on-failure
capped=$(DNNL_MAX_CPU_ISA=AVX2 tests/onednn_isa)
if [ "${DNNCOMPAT_TEST_ISAS:-all}" != native ] && [ "$capped" != "$native" ]; then
  echo "test: again with DNNL_MAX_CPU_ISA=AVX2 ($capped): the tests that run kernels"
  DNNL_MAX_CPU_ISA=AVX2 ctest -j"$(nproc)" --output-on-failure -L '^(lib|graph|solver|catalogue|replay)$'
fi
