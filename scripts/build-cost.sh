#!/usr/bin/env bash
# What a cold build costs (doc/build.md): configures a fresh build directory
# as scripts/build.sh does, builds the targets with ccache off, and prints
# the CPU seconds (user + sys: on a shared machine the figure that does not
# depend on the load) and the wall seconds, the load before and after, and
# the ten costliest steps of .ninja_log.
#   bash scripts/build-cost.sh DIR [TARGET...]     default target: fabriclab
#   FABRICLAB_COST_JOBS=1      ninja's -j (default: nproc)
#   FABRICLAB_COST_CMAKE="-DFABRICLAB_LLD=OFF"     more cmake options
# DIR must not exist yet: a cold build starts from nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [TARGET...]" >&2
  exit 2
fi
dir=$1
shift
if [ -e "$dir" ]; then
  echo "$0: $dir exists: a cold build needs a directory that does not" >&2
  exit 2
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fabriclab)
# shellcheck disable=SC2086
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${FABRICLAB_COST_CMAKE:-} >/dev/null
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
export CCACHE_DISABLE=1
TIMEFORMAT='cpu %U s user + %S s sys; wall %R s'
time ninja -C "$dir" -j"${FABRICLAB_COST_JOBS:-$(nproc)}" "${targets[@]}" >"$dir/build-cost.log"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "costliest steps (wall s):"
awk 'NR>1 {printf "%8.1f %s\n", ($2-$1)/1000, $4}' "$dir/.ninja_log" | sort -rn | head
