#!/usr/bin/env bash
# Builds the Debian package build/package/fabriclab_<version>_amd64.deb:
# the fabriclab target (scripts/build.sh), then CPack's DEB generator over
# the install() rules in cmake/package.cmake, which also says what the
# package depends on. Needs only what `scripts/setup.sh` installs (no test
# packages). Install it with: apt install ./build/package/fabriclab_*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
# The page's player is compiled into the binary from node_modules/: a
# package without it would write pages that cannot play.
if [ ! -f node_modules/asciinema-player/package.json ]; then
  echo "package.sh: node_modules/asciinema-player is missing: run bash scripts/setup.sh" >&2
  exit 1
fi
FABRICLAB_BUILD_TARGETS=fabriclab bash scripts/build.sh
rm -rf build/package
cpack -G DEB --config build/CPackConfig.cmake -B build/package
ls -l build/package/fabriclab_*_amd64.deb
