#!/usr/bin/env bash
# Runs the test suite of ./build in parallel (tests/schedule.cmake says what
# may run beside what), then lists the 20 slowest tests of this run, so a
# change can see what it costs (doc/ci.md).
#   scripts/test.sh [ctest options...]   e.g. -L unit, -R LabQuickRun
# FABRICLAB_TEST_JOBS (default 4): ctest's -j. Tests that load both cores
# count as 2 of them and take turns (the `heavy` lock); a VM test counts as 1
# and takes turns with the other VM tests (the `vm` lock). So 4 runs one
# heavy test, one VM test and one light test at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${FABRICLAB_TEST_JOBS:-4}"
# A build configured without GTest has no tests: say so rather than pass on none.
if [ ! -f build/CTestTestfile.cmake ]; then
  echo "test.sh: ./build has no tests (GTest was missing or FABRICLAB_TESTS=OFF):" \
    "run bash scripts/setup.sh --tests, then bash scripts/build.sh" >&2
  exit 1
fi
log=build/ctest.log
start=$(date +%s)
status=0
ctest --test-dir build --output-on-failure -j"$jobs" "$@" 2>&1 | tee "$log" || status=$?
echo
# ctest's result lines: "  12/573 Test  #40: Name .....   Passed   12.34 sec".
results=$(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log" || true)
echo "test.sh: ctest -j$jobs took $(( $(date +%s) - start )) s; the 20 slowest tests:"
# awk takes the first 20 and reads the rest: `head` would exit early, and
# under pipefail sort's SIGPIPE would end this script with 141.
sed -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' <<<"$results" |
  sort -rn | awk 'NR <= 20 && NF == 2 { printf "  %8.1f s  %s\n", $1, $2 }'
# The closing line, counted from the same result lines.
passed=$(grep -c ' Passed ' <<<"$results" || true)
skipped=$(grep -c 'Skipped ' <<<"$results" || true)
failed=$(( $(grep -c . <<<"$results" || true) - passed - skipped ))
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
