#!/usr/bin/env bash
# Sets up, builds and replays the shipped ResNet-50 trace. README.md's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target dnncompat-import dnncompat-replay
exec ./build/dnncompat-replay examples/traces/resnet50-eval-b4-fp32.json "$@"
