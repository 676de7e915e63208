#!/bin/sh
# The RoCE allreduce across the VM pair (issue 35, parts 2 and 3; run by
# roce-checks.sh in each VM): a lab whose allreduce workload has transport =
# "roce", in host mode on eth0 -- Gloo's ibverbs transport on the rxe device
# the runner creates -- clean and under `loss 1%` on both hosts. The lead
# (VM 0) checks the recording: both scenarios completed with #wrong 0 in
# every step of both ranks, and run.json's `rdma` shows retransmission under
# loss (NAKs, packets lost, resent against the clean scenario). Both VMs: the
# device is gone after the run, no ledger left.
#   usage: roce-allreduce.sh BUILD_DIR   (env from vm-pair)
build="${1:?usage: roce-allreduce.sh BUILD_DIR}"
h="${FABRICLAB_VM_INDEX:?run me through tests/vm/vm-pair}"
hosts="${FABRICLAB_VM_HOSTS:?run me through tests/vm/vm-pair}"
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { echo "ok: $*"; }

# Small sizes: each rank's start costs 10-30 s under TCG; the allreduces
# themselves take seconds (doc/roce.md, section 4).
mkdir -p /tmp/labs/94-roce-allreduce
cat > /tmp/labs/94-roce-allreduce/lab.toml <<'EOF'
[lab]
id = "94"
title = "RoCE allreduce"
summary = "Gloo's ibverbs transport on rxe, host mode across two VMs"
[workload]
kind = "allreduce"
transport = "roce"
minbytes = 262144
maxbytes = 1048576
iters = 3
warmup_iters = 1
channels = 1
timeout_s = 120
[topology]
ranks = 2
[[scenario]]
name = "clean"
condition = "no impairment"
deadline_s = 300
stall_s = 240
[[scenario]]
name = "loss"
condition = "loss 1%"
impair = "loss 1%"
links = ["all"]
deadline_s = 300
stall_s = 240
EOF

echo "== vm$h: fabriclab run 94 --hosts $hosts --iface eth0 (allreduce over RoCE)"
"$build/fabriclab" run 94 --labs /tmp/labs --output /tmp/runs --no-charts --backend netem \
  --hosts "$hosts" --iface eth0 > /tmp/roce-runner.log 2>&1
r=$?
grep -E "RoCE|CLEAN|LOSS|COMPLETED|FAILED|error" /tmp/roce-runner.log | head -20
[ "$r" = 0 ] && ok "RoCE allreduce lab: exit 0" || { fail "RoCE allreduce lab: exit $r"; tail -30 /tmp/roce-runner.log; }
! ls /sys/class/infiniband/ 2>/dev/null | grep -qx fabriclab_eth0 && ok "fabriclab_eth0 gone after the lab run" ||
  fail "fabriclab_eth0 still there after the lab run"
[ "$(ls /run/fabriclab/runs/ 2>/dev/null | grep -c json)" = 0 ] && ok "no ledger left after the lab run" ||
  fail "ledger left after the lab run: $(ls /run/fabriclab/runs/)"

if [ "$h" = 0 ]; then
  run=$(ls -d /tmp/runs/*/ 2>/dev/null | head -1)
  python3 - "$run" <<'EOF' || failed=$((failed + 1))
import json, sys
run = sys.argv[1]
m = json.load(open(run + "run.json"))
events = [json.loads(l) for l in open(run + "metrics.jsonl")]
bad = 0
def check(cond, what):
    global bad
    print(("ok: " if cond else "FAIL: ") + what)
    bad += 0 if cond else 1
scen = {s["name"]: s for s in m["scenarios"]}
for name in ("clean", "loss"):
    s = scen.get(name, {})
    check(s.get("status") == "completed", f"{name}: completed ({s.get('status')}, {s.get('message')})")
    steps = [e for e in events if e.get("event") == "step" and e.get("scenario") == name]
    wrong = sum(e.get("wrong", 0) + e.get("ip_wrong", 0) for e in steps)
    check(len(steps) == 6 and wrong == 0, f"{name}: {len(steps)} steps of 2 ranks, #wrong {wrong}")
    rd = s.get("rdma")
    print(f"{name}: rdma {json.dumps({k: v for k, v in (rd or {}).items() if k != 'hosts'})}")
    for host in (rd or {}).get("hosts", []):
        c = host["counters"]
        print(f"  {host['host']} {host['device']}: sent {c.get('sent_pkts')} rcvd {c.get('rcvd_pkts')} "
              f"naks {c.get('rcvd_seq_err')} out_of_seq {c.get('out_of_seq_request')} "
              f"ack_timeouts {c.get('completer_retry_err')} dup {c.get('duplicate_request')}")
    check(rd is not None and len(rd.get("hosts", [])) == 2, f"{name}: run.json rdma from both hosts")
lr = scen.get("loss", {}).get("rdma") or {}
cr = scen.get("clean", {}).get("rdma") or {}
check(lr.get("lost_pkts", 0) > 0 and lr.get("naks", 0) > 0,
      f"loss: packets lost ({lr.get('lost_pkts')}) and NAKs ({lr.get('naks')})")
check(lr.get("sent_pkts", 0) > cr.get("sent_pkts", 0) and lr.get("resent_pkts", 0) > 0,
      f"loss: resent {lr.get('resent_pkts')} packets against clean's {cr.get('sent_pkts')}, "
      f"{lr.get('resent_per_lost')} per packet lost")
ev = [e for e in events if e.get("event") == "rdma_counters"]
check(len(ev) == 4, f"metrics.jsonl: {len(ev)} rdma_counters events (2 hosts x 2 scenarios)")
sys.exit(bad)
EOF
fi
echo "roce allreduce: $failed failed"
exit "$failed"
