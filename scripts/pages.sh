#!/usr/bin/env bash
# Writes the replay page of every reference recording in recordings/ into
# OUT (default build/pages/): OUT/<recording>.html, one self-contained HTML
# file each (`fabriclab page`, runner/page/page_writer.h). Open one with a
# browser: xdg-open build/pages/02-dropped-packet.html
# Needs the built binary (scripts/build.sh). Exits non-zero if any page fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/pages}"
fabriclab="${FABRICLAB:-$root/build/fabriclab}"
[ -x "$fabriclab" ] || { echo "pages: $fabriclab not found: run scripts/build.sh first" >&2; exit 1; }
mkdir -p "$out"
status=0
for dir in "$root"/recordings/*/; do
  [ -f "$dir/run.json" ] || continue
  name="$(basename "$dir")"
  "$fabriclab" page "$dir" -o "$out/$name.html" || status=1
done
exit $status
