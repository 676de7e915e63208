#!/bin/sh
# What the vm_pair_roce test runs in each VM of the pair (tests/vm/vm-pair):
# RoCE through SoftRoCE on Debian's stock kernel (issue 35, doc/roce.md).
#   1. (VM 1) doctor names rdma_rxe as a module of this kernel and loads no
#      RDMA module; runner_rdma_link_test's live tests: our RDMA netlink
#      bytes against `rdma link add/delete` under strace, the ledger entry
#   3. `fabriclab rxe --iface eth0 -- roce-transfer.sh`: fabriclab creates the
#      device (rdma_rxe loads on demand), RC transfers with checked data,
#      retransmission in the counters under loss 1% (roce-transfer.sh); after
#      it: the device gone, no ledger, no fabriclab process
#   4. roce-lab.sh: lab 14 (go-back-N) in host mode, its quick form on four
#      points: the allreduce over RoCE (Gloo's ibverbs transport) and over
#      TCP, clean and under loss 1%: #wrong 0, go-back-N in run.json's
#      `rdma`, the lesson held, `fabriclab grade 14`; `fabriclab bench
#      allreduce --hosts --transport roce` under loss 1% with --capture: its
#      table, #wrong 0, and in the lead's pcap (tshark) a NAK and a data PSN
#      sent twice; then a SIGKILL of the
#      lab's runner in a RoCE point and `fabriclab cleanup`: device, qdisc
#      and processes gone (roce-allreduce.sh, which ran a two-scenario lab
#      here before, is kept for doc/roce.md's measurements by hand)
#   5. SIGKILL: (VM 0) of the runner alone, the guardian removes the device;
#      (VM 1) of the runner and its guardian, `fabriclab cleanup` does, from
#      the ledger. Split so that the VMs take about as long (TCG: each
#      fabriclab start costs seconds).
#   usage: roce-checks.sh BUILD_DIR   (env from vm-pair: FABRICLAB_VM_INDEX)
build="${1:?usage: roce-checks.sh BUILD_DIR}"
h="${FABRICLAB_VM_INDEX:?run me through tests/vm/vm-pair}"
here="$(cd "$(dirname "$0")" && pwd)"
fab="$build/fabriclab"
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { echo "ok: $*"; }
T0=$(date +%s)
ts() { echo "=== t=$(( $(date +%s) - T0 ))s $*"; }
device_gone() { ! ls /sys/class/infiniband/ 2>/dev/null | grep -qx fabriclab_eth0; }
# Waits up to $1 s for the device to be gone; 0 if it went.
wait_gone() { i=0; while [ "$i" -lt "$1" ]; do device_gone && return 0; sleep 1; i=$((i + 1)); done; return 1; }
wait_there() { i=0; while [ "$i" -lt "$1" ]; do device_gone || return 0; sleep 1; i=$((i + 1)); done; return 1; }
ledgers() { ls /run/fabriclab/runs/ 2>/dev/null | grep -c json; }

if [ "$h" = 1 ]; then
  ts "doctor"
  "$fab" doctor --no-labs > /tmp/doctor.out 2>&1
  grep -E "rdma_rxe|RDMA devices" /tmp/doctor.out
  grep -q "rdma_rxe .*module of this kernel" /tmp/doctor.out && ok "doctor: rdma_rxe is a module" ||
    fail "doctor does not name rdma_rxe as a module of this kernel"
  grep -Eq "^(rdma_rxe|ib_core) " /proc/modules && fail "doctor loaded RDMA modules" ||
    ok "doctor loaded no RDMA module"

  ts "runner_rdma_link_test (live: the rdma tool's bytes, the ledger entry)"
  "$build/tests/runner/rdma/runner_rdma_link_test" > /tmp/gtest.out 2>&1
  r=$?; grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|Failure|Skipped|^Expected|Which is" /tmp/gtest.out
  [ "$r" = 0 ] && ! grep -q "SKIPPED \]" /tmp/gtest.out && ok "runner_rdma_link_test: all passed" ||
    fail "runner_rdma_link_test (exit $r)"
fi

ts "fabriclab rxe --iface eth0 -- roce-transfer.sh"
"$fab" rxe --iface eth0 -- sh "$here/roce-transfer.sh" && ok "transfers (roce-transfer.sh)" ||
  fail "fabriclab rxe ... roce-transfer.sh exit $?"
device_gone && ok "fabriclab_eth0 gone after the run" || fail "fabriclab_eth0 still there: $(rdma link show)"
[ "$(ledgers)" = 0 ] && ok "no ledger left" || fail "ledger left: $(ls /run/fabriclab/runs/)"
i=0; while pgrep -x fabriclab > /dev/null && [ "$i" -lt 15 ]; do sleep 1; i=$((i + 1)); done
pgrep -a fabriclab && fail "fabriclab process left" || ok "no fabriclab process"

ts "roce-lab.sh: lab 14 in host mode, quick, RoCE beside TCP; a SIGKILLed lab run"
sh "$here/roce-lab.sh" "$build" || failed=$((failed + $?))

if [ "$h" = 0 ]; then
  ts "SIGKILL of the runner: its guardian removes the device"
  "$fab" rxe --iface eth0 -- sleep 600 &
  runner=$!
  wait_there 60 && ok "device there (pid $runner)" || fail "no device within 60 s"
  children=$(pgrep -P "$runner" | tr '\n' ' ')
  kill -KILL "$runner"
  wait_gone 30 && ok "guardian removed fabriclab_eth0 within 30 s of the kill" ||
    fail "fabriclab_eth0 still there 30 s after the kill"
  for c in $children; do kill -KILL "$c" 2>/dev/null; done   # the guardian has exited; sleep has not
  "$fab" cleanup > /tmp/cleanup1.out 2>&1; cat /tmp/cleanup1.out
  [ "$(ledgers)" = 0 ] && ok "cleanup: ledger removed" || fail "ledger left after cleanup"
else
  ts "SIGKILL of the runner and its guardian: fabriclab cleanup removes it"
  "$fab" rxe --iface eth0 -- sleep 600 &
  runner=$!
  wait_there 60 && ok "device there (pid $runner)" || fail "no device within 60 s"
  children=$(pgrep -P "$runner" | tr '\n' ' ')
  kill -KILL "$runner" $children
  sleep 2
  device_gone && fail "the device went with nobody to remove it?" || ok "device left behind"
  "$fab" cleanup > /tmp/cleanup2.out 2>&1; cat /tmp/cleanup2.out
  grep -q "RDMA device fabriclab_eth0 on eth0: removed" /tmp/cleanup2.out &&
    ok "cleanup named the device it removed" || fail "cleanup did not remove the device"
  device_gone && ok "fabriclab_eth0 gone after cleanup" || fail "fabriclab_eth0 still there"
  [ "$(ledgers)" = 0 ] && ok "cleanup: ledger removed" || fail "ledger left after cleanup"
fi

ts "end"
sh "$here/modules-report.sh"
echo "roce checks: $failed failed"
exit "$failed"
