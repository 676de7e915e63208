#!/bin/sh
# What the vm_sch_netem test runs inside the VM (tests/vm/vm-run), in one
# boot: fabriclab's netem backend against the real sch_netem. Each step is a
# GoogleTest executable from the build tree; on this kernel none of their
# tests may skip (a skip here means the VM lacks what it exists for), so a
# skip counts as a failure.
#   usage: checks.sh BUILD_DIR
build="${1:?usage: checks.sh BUILD_DIR}"
passed=0
failed=0

step() {  # step NAME EXECUTABLE [GTEST ARGS...]
  name="$1"; shift
  echo "==== $name"
  start=$(date +%s)
  out="/tmp/vm-check-$name.log"
  # Streamed as it comes (a slow step shows where it is), kept for the verdict.
  # (stdbuf: gtest writes to a pipe in blocks, which would hide the progress).
  { stdbuf -oL -eL "$@" --gtest_color=no 2>&1; echo $? > "$out.rc"; } | tee "$out"
  rc=$(cat "$out.rc")
  if [ "$rc" -ne 0 ]; then
    echo "==== $name: FAILED (exit $rc)"; failed=$((failed + 1))
  elif grep -q '^\[  SKIPPED \]' "$out"; then
    echo "==== $name: FAILED (a test skipped on a kernel with sch_netem)"; failed=$((failed + 1))
  elif ! grep -q '^\[  PASSED  \] [1-9]' "$out"; then
    echo "==== $name: FAILED (no test ran)"; failed=$((failed + 1))
  else
    echo "==== $name: ok in $(( $(date +%s) - start )) s"; passed=$((passed + 1))
  fi
}

echo "kernel $(uname -r); $(wc -l < /proc/modules) modules at the start (booting's: the rest load on demand)"
# fabriclab's own checks of the real netem (tests/vm/real_netem_test.cc).
step real_netem "$build/tests/vm/vm_real_netem_test"
# The backend suite's netem half: delay and loss rates by ping, removal,
# leftovers (tests/netem/impairment_test.cc; the userspace half runs on the host).
step impairment_suite "$build/tests/netem/netem_impairment_test" --gtest_filter='*/netem'
# The netlink backend's tests, whose apply() test takes its sch_netem branch here.
step netlink_backend "$build/tests/netem/netem_netlink_backend_test"

# What loaded on demand (the VM preloads only what booting needs).
sh "$(dirname "$0")/modules-report.sh"
echo "vm checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
