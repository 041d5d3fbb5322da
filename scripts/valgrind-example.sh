#!/usr/bin/env bash
# Replays the example trace (README's first command) under valgrind memcheck: any invalid read or
# write, use of uninitialised memory in a branch, or definitely lost block fails the run (exit 1).
# It checks what the sanitizer build cannot: oneDNN's own code and JIT kernels reading and
# writing the buffers dnncompat hands them. Single iteration, no warm-up, one OpenMP thread
# (valgrind runs threads one at a time anyway). About 25 minutes on one core.
# scripts/valgrind-onednn.supp hides the 32-byte reads oneDNN's JIT GEMM kernels make past the
# stack block they allocate themselves (generated code, no symbols; the file says why).
# Usage: scripts/valgrind-example.sh [TRACE] (default examples/traces/resnet50-eval-b4-fp32.json)
set -euo pipefail
cd "$(dirname "$0")/.."
trace=${1:-examples/traces/resnet50-eval-b4-fp32.json}
./scripts/setup.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target dnncompat-replay
# oneDNN keeps process-lifetime caches (primitive cache, JIT code) that are reachable at exit:
# only definite leaks count.
OMP_NUM_THREADS=1 exec valgrind --tool=memcheck --error-exitcode=1 --leak-check=full \
  --suppressions=scripts/valgrind-onednn.supp \
  --show-leak-kinds=definite --errors-for-leak-kinds=definite --num-callers=30 \
  ./build/dnncompat-replay "$trace" --quiet --warmup 0 --iterations 1
