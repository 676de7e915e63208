#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang and runs them.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build-dir DIR] [--work W] [--fresh]
#                   [--build-only] [target...]
#
# --seconds N   how long each target runs (default 60); libFuzzer's -max_total_time
# --jobs J      targets run at the same time (default 1), each under nice 19
# --build-dir   the fuzz build tree (default build/fuzz)
# --work W      where corpora, logs and crashing inputs go (default DIR)
# --fresh       start from the checked-in seeds (tests/fuzz/corpus/TARGET),
#               not from what earlier runs added (W/corpus/TARGET)
# --build-only  configure and build, run nothing
# No target: all of them (DIR/fuzz_targets.txt).
#
# Each run writes W/logs/TARGET.log, keeps its corpus in W/corpus/TARGET
# and any crashing input in W/artifacts/TARGET/, and prints one line:
#   TARGET  execs N  exec/s N  cov N  ft N  corpus N  ok|CRASH (artifact)
# Exit: 0 all ran clean, 1 a target crashed (or the build failed), 77 clang
# or libFuzzer's runtime is missing (ctest reports the test skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
jobs=1
dir=build/fuzz
work=
fresh=0
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build-dir) dir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

clangxx=$(command -v clang++ || command -v clang++-14 || true)
clangc=$(command -v clang || command -v clang-14 || true)
if [ -z "$clangxx" ] || [ -z "$clangc" ]; then
  echo "fuzz.sh: SKIP: clang is not installed (scripts/setup.sh installs clang and libclang-rt-14-dev)"
  exit 77
fi
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    "$clangxx" -x c++ -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
  echo "fuzz.sh: SKIP: $clangxx cannot link libFuzzer (scripts/setup.sh installs libclang-rt-14-dev)"
  exit 77
fi

# ccache, when installed, comes from CMakeLists.txt (scripts/ccache-launcher).
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DFABRICLAB_FUZZ=ON -DCMAKE_BUILD_TYPE= \
    -DCMAKE_C_COMPILER="$clangc" -DCMAKE_CXX_COMPILER="$clangxx" >/dev/null
fi
nice -n 19 cmake --build "$dir" -j"$(nproc)" >"$dir/build.log" 2>&1 || {
  tail -40 "$dir/build.log" >&2
  echo "fuzz.sh: the fuzz build failed ($dir/build.log)" >&2
  exit 1
}
[ "$build_only" = 1 ] && exit 0

[ ${#targets[@]} -eq 0 ] && read -r -a targets <"$dir/fuzz_targets.txt"
bin="$dir/tests/fuzz"
work=${work:-$dir}
mkdir -p "$work/logs"

run_one() {
  local t="$1"
  [ -x "$bin/$t" ] || { echo "fuzz.sh: no target $t (known: $(cat "$dir/fuzz_targets.txt"))" >&2; return 1; }
  local corpus="$work/corpus/$t" artifacts="$work/artifacts/$t/" log="$work/logs/$t.log"
  [ "$fresh" = 1 ] && rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  local rc=0
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: 2 GB is a leak or a bomb.
  nice -n 19 "$bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1 || rc=$?
  local execs rate cov ft size
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  size=$(find "$corpus" -type f | wc -l)
  if [ "$rc" = 0 ]; then
    printf '%-22s execs %s  exec/s %s  cov %s  ft %s  corpus %s  ok\n' \
      "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$size"
  else
    printf '%-22s execs %s  exec/s %s  cov %s  ft %s  corpus %s  CRASH (exit %s): %s\n' \
      "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$size" "$rc" \
      "$(grep -o "Test unit written to .*" "$log" | tail -1)"
    grep -E "ERROR:|SUMMARY:|runtime error|round trip|terminate called|what\(\)" "$log" | head -8
    return 1
  fi
}

failed=0
running=0
for t in "${targets[@]}"; do
  if [ "$jobs" -le 1 ]; then
    run_one "$t" || failed=1
  else
    run_one "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
      wait -n || failed=1
      running=$((running - 1))
    fi
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
