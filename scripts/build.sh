#!/usr/bin/env bash
# Configures and builds fabriclab into ./build (the binary: ./build/fabriclab).
# Incremental: a second run only rebuilds what changed. Ninja when installed
# (scripts/setup.sh installs it); ccache when installed (CMakeLists.txt).
#   FABRICLAB_BUILD_TARGETS="fabriclab"  builds only those targets
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
if command -v ninja >/dev/null; then
  generator=(-G Ninja)
  # A tree configured by another generator cannot switch: start it again.
  if [ -f build/CMakeCache.txt ] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' build/CMakeCache.txt; then
    rm -rf build/CMakeCache.txt build/CMakeFiles
  fi
fi
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# shellcheck disable=SC2086
cmake --build build -j"$(nproc)" ${FABRICLAB_BUILD_TARGETS:+--target $FABRICLAB_BUILD_TARGETS}
