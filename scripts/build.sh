#!/usr/bin/env bash
# Configures and builds fabriclab into ./build (the binary: ./build/fabriclab).
# Incremental: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
