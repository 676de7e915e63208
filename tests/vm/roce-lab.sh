#!/bin/sh
# Lab 14 (go-back-N) across the VM pair, in both VMs (tests/vm/vm-pair):
#   1. its quick form on four points -- roce-0, roce-1, tcp-0, tcp-1 -- in
#      host mode on eth0: both transports complete with #wrong 0, run.json's
#      `rdma` shows go-back-N, the lesson's judged checks hold, `fabriclab
#      grade 14` reads the recording (exit 0 or 1, never 2); afterwards no
#      device, no ledger
#   2. `fabriclab bench allreduce --hosts --transport roce` under netem loss
#      1% with --capture (one invocation, 256 KiB and 512 KiB): the bench's
#      table on both VMs, #wrong 0; on VM 0 (the lead) run.json's `capture`
#      and its pcap read with tshark as doc/roce.md section 9 reads
#      tcpdump's: a NAK (AETH syndrome 0x60) and a data PSN sent twice;
#      afterwards no device, no ledger, no netem
#   3. a SIGKILL of the runner in the middle of a RoCE point (the rxe device
#      up, netem on eth0, the ranks running), then `fabriclab cleanup`: the
#      device, the qdisc and every fabriclab process gone, in both VMs
# With FULL_RUNS > 0, first that many full runs of lab 14 (the README's
# measured runs); VM 0 prints each as a base64 tar between "=== recording
# N begin" and "=== recording N end" as it ends, and the quick run's at the
# end (the VM's disk is gone at power-off).
#   usage: roce-lab.sh BUILD_DIR [FULL_RUNS]   (env from vm-pair)
build="${1:?usage: roce-lab.sh BUILD_DIR [FULL_RUNS]}"
full_runs="${2:-0}"
h="${FABRICLAB_VM_INDEX:?run me through tests/vm/vm-pair}"
hosts="${FABRICLAB_VM_HOSTS:?run me through tests/vm/vm-pair}"
here="$(cd "$(dirname "$0")" && pwd)"
labs="$(cd "$here/../../labs" && pwd)"
fab="$build/fabriclab"
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { echo "ok: $*"; }
T0=$(date +%s)
ts() { echo "=== t=$(( $(date +%s) - T0 ))s vm$h $*"; }
device_gone() { ! ls /sys/class/infiniband/ 2>/dev/null | grep -qx fabriclab_eth0; }
ledgers() { ls /run/fabriclab/runs/ 2>/dev/null | grep -c json; }
netem_on_eth0() { tc qdisc show dev eth0 | grep -q netem; }
# fabriclab's processes: the runner, its guardian (`cleanup --guard`), the
# ranks (`bench allreduce-rank`), whatever path the binary has (not this
# script, whose arguments may name a folder called fabriclab).
fab_procs() { pgrep -af "fabriclab run |allreduce-rank|cleanup --iface .* --guard"; }

# One MTU-sized frame per packet on eth0, as on a wire: netem then drops
# TCP segments one by one, not 64 KB GSO aggregates (README.md: "Your
# hosts"). RoCE's packets are single UDP datagrams either way.
ip link set dev eth0 gso_max_segs 1 && ok "eth0: gso_max_segs 1"

run_lab() {  # run_lab OUTPUT [run args]: lab 14 in host mode on eth0
  out="$1"; shift
  "$fab" run 14 --labs "$labs" --output "$out" --no-charts --backend netem \
    --hosts "$hosts" --iface eth0 "$@"
}

i=1
while [ "$i" -le "$full_runs" ]; do
  ts "full run $i of $full_runs"
  answers=""
  # The prediction of the reference recording (README: 40, made from
  # doc/roce.md's 43-48 before these runs).
  [ "$h" = 0 ] && { printf 'predict-resent-per-lost = 40\n' > /tmp/answers.toml; answers="--answers /tmp/answers.toml"; }
  # shellcheck disable=SC2086
  run_lab "/tmp/full$i" $answers > "/tmp/full$i.log" 2>&1
  r=$?
  grep -E "RoCE|ROCE|TCP-|COMPLETED|FAILED|STALLED|lesson|held|error" "/tmp/full$i.log" | head -40
  echo "full run $i: exit $r, load $(cat /proc/loadavg)"
  [ "$h" = 0 ] && [ -f "/tmp/full$i.log" ] && sed -n '/sweep/,$p' "/tmp/full$i.log" | head -40
  if [ "$h" = 0 ]; then  # each run as it ends: a later one may not
    echo "=== recording $i begin"
    (cd /tmp && tar czf - "full$i" "full$i.log" 2>/dev/null) | base64 -w 0
    echo
    echo "=== recording $i end"
  fi
  i=$((i + 1))
done

ts "quick: fabriclab run 14 --quick --scenario roce-0,roce-1,tcp-0,tcp-1"
run_lab /tmp/quick --quick --scenario roce-0,roce-1,tcp-0,tcp-1 > /tmp/quick.log 2>&1
r=$?
grep -E "RoCE|COMPLETED|FAILED|STALLED|held|FAILED|not judged|error" /tmp/quick.log | head -30
[ "$r" = 0 ] && ok "lab 14 quick: exit 0" || { fail "lab 14 quick: exit $r"; tail -30 /tmp/quick.log; }
device_gone && ok "fabriclab_eth0 gone after the run" || fail "fabriclab_eth0 still there after the run"
[ "$(ledgers)" = 0 ] && ok "no ledger left" || fail "ledger left: $(ls /run/fabriclab/runs/)"
netem_on_eth0 && fail "netem left on eth0" || ok "no netem left on eth0"

if [ "$h" = 0 ]; then
  run=$(ls -d /tmp/quick/14-*/ 2>/dev/null | head -1)
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
for name in ("roce-0", "roce-1", "tcp-0", "tcp-1"):
    s = scen.get(name, {})
    r = s.get("result") or {}
    check(s.get("status") == "completed", f"{name}: completed ({s.get('status')}, {s.get('message')})")
    steps = [e for e in events if e.get("event") == "step" and e.get("scenario") == name]
    wrong = sum(e.get("wrong", 0) + e.get("ip_wrong", 0) for e in steps)
    check(len(steps) == 6 and wrong == 0, f"{name}: {len(steps)} steps of 2 ranks, #wrong {wrong}")
    print(f"  {name}: mean_step_ms {r.get('mean_step_ms')} step_slowdown {r.get('step_slowdown')} "
          f"busbw {r.get('busbw_gb_per_s')} retransmits {r.get('retransmits')} drops {r.get('drops')} "
          f"rdma {json.dumps({k: v for k, v in (s.get('rdma') or {}).items() if k != 'hosts'})}")
rd = scen.get("roce-1", {}).get("rdma") or {}
check(rd.get("lost_pkts", 0) > 0 and rd.get("naks", 0) > 0 and rd.get("resent_pkts", 0) > 0,
      f"roce-1: lost {rd.get('lost_pkts')}, NAKs {rd.get('naks')}, resent {rd.get('resent_pkts')}")
for name in ("roce-0", "roce-1"):
    hosts = (scen.get(name, {}).get("rdma") or {}).get("hosts", [])
    check(len(hosts) == 2, f"{name}: run.json rdma from both hosts ({len(hosts)})")
# The device is up for the whole run: the TCP points count what RoCE sent
# during them (nothing of the job's).
tr = scen.get("tcp-1", {}).get("rdma") or {}
check(tr.get("sent_pkts", 0) < 0.01 * rd.get("sent_pkts", 1),
      f"tcp-1: rxe sent {tr.get('sent_pkts')} packets (the job's went over TCP)")
ev = [e for e in events if e.get("event") == "rdma_counters"]
check(len(ev) >= 4, f"metrics.jsonl: {len(ev)} rdma_counters events (2 hosts x 2 RoCE points at least)")
lesson = m.get("lesson") or {}
checks = lesson.get("checks", [])
for c in checks:
    print(f"  lesson: {c.get('outcome')}: {c.get('check')}")
judged = [c for c in checks if c.get("outcome") != "not judged"]
check(len(judged) == 2 and all(c.get("outcome") == "held" for c in judged),
      f"lesson: {len(judged)} checks judged, held {lesson.get('held')}")
sys.exit(bad)
EOF
  # A student's file with the prediction alone: the rest grade as not
  # answered (exit 1); exit 2 would be a recording grade cannot read.
  printf 'predict-resent-per-lost = 40\n' > /tmp/grade-answers.toml
  "$fab" grade 14 --labs "$labs" --recording "$run" --answers /tmp/grade-answers.toml --json \
    > /tmp/grade.json 2>/tmp/grade.err
  g=$?
  [ "$g" = 0 ] || [ "$g" = 1 ] && ok "fabriclab grade 14 read the quick recording (exit $g)" ||
    { fail "fabriclab grade 14: exit $g"; cat /tmp/grade.err; }
  python3 -c "import json; d=json.load(open('/tmp/grade.json')); print('grade: consistent', d['consistent'], 'score', d['score'], '/', d['max_score'], [(e['id'], e['status']) for e in d['exercises']])" 2>&1
fi

ts "bench allreduce --hosts --transport roce, loss 1%, --capture"
# The host-mode bench (a front for `run --hosts`), its table on stdout, the
# run's own lines on stderr; the recording kept for its capture.
"$fab" bench allreduce --hosts "$hosts" --iface eth0 --transport roce --impair "loss 1%" \
  --backend netem -b 256K -e 512K -n 2 -w 1 --channels 1 --timeout 400 \
  --output /tmp/bench --capture > /tmp/bench.out 2> /tmp/bench.err
r=$?
echo "--- the bench's stdout (vm$h):"
cat /tmp/bench.out
[ "$r" = 0 ] && ok "bench allreduce --hosts over RoCE: exit 0" ||
  { fail "bench allreduce --hosts: exit $r"; tail -30 /tmp/bench.err; }
grep -q "gloo ibverbs (RoCE)" /tmp/bench.out && ok "bench: over RoCE" || fail "bench: not over RoCE"
rows=$(grep -cE '^ +(262144|524288) +[0-9]+ +float' /tmp/bench.out)
[ "$rows" = 2 ] && ok "bench: a row per size" || fail "bench: $rows rows, expected 2"
grep -q "Out of bounds values : 0 OK" /tmp/bench.out && ok "bench: #wrong 0" || fail "bench: #wrong not 0"
device_gone && ok "bench: fabriclab_eth0 gone" || fail "bench: fabriclab_eth0 still there"
[ "$(ledgers)" = 0 ] && ok "bench: no ledger left" || fail "bench: ledger left: $(ls /run/fabriclab/runs/)"
netem_on_eth0 && fail "bench: netem left on eth0" || ok "bench: no netem left on eth0"
if [ "$h" = 0 ]; then
  brun=$(ls -d /tmp/bench/bench-*/ 2>/dev/null | head -1)
  python3 - "$brun" <<'EOF2' || failed=$((failed + 1))
import json, sys
s = json.load(open(sys.argv[1] + "run.json"))["scenarios"][0]
c = s.get("capture") or {}
print(f"  capture: {json.dumps(c)}")
ok = c.get("packets", 0) > 0 and c.get("file", "").startswith("captures/")
print(("ok: " if ok else "FAIL: ") + "run.json's capture names the pcap and counts its packets")
r = s.get("rdma") or {}
print(f"  rdma: sent {r.get('sent_pkts')} lost {r.get('lost_pkts')} NAKs {r.get('naks')} ACK timeouts {r.get('ack_timeouts')}")
sys.exit(0 if ok else 1)
EOF2
fi

ts "SIGKILL of the runner in the middle of roce-1, then fabriclab cleanup"
run_lab /tmp/killed --quick --scenario roce-0,roce-1 > /tmp/killed.log 2>&1 &
runner=$!
# In roce-1: the rank of this host runs and netem is on eth0 (roce-0 has
# netem too, with loss 0: wait for the point's own line).
i=0
while [ "$i" -lt 600 ]; do
  grep -q "roce-1" /tmp/killed.log && pgrep -f "allreduce-rank" > /dev/null && netem_on_eth0 && break
  sleep 1; i=$((i + 1))
done
# VM 1 (a follower) first, then the lead: a dead lead would end VM 1's
# runner by itself, and there would be nothing left to kill there.
sleep $((2 + 4 * (1 - h)))
device_gone && fail "no device before the kill" || ok "before the kill: fabriclab_eth0 up"
netem_on_eth0 && ok "before the kill: netem on eth0" || fail "before the kill: no netem on eth0"
pgrep -f allreduce-rank > /dev/null && ok "before the kill: ranks running" || fail "before the kill: no rank running"
kill -KILL "$runner" 2>/dev/null && ok "runner SIGKILLed at t=$(( $(date +%s) - T0 ))s" || fail "runner had already exited"
wait "$runner" 2>/dev/null
sleep 5
"$fab" cleanup > /tmp/cleanup.out 2>&1; echo "cleanup exit $?"; cat /tmp/cleanup.out
i=0; while fab_procs > /dev/null && [ "$i" -lt 30 ]; do sleep 1; i=$((i + 1)); done
device_gone && ok "after cleanup: fabriclab_eth0 gone" || fail "after cleanup: fabriclab_eth0 still there"
netem_on_eth0 && fail "after cleanup: netem still on eth0: $(tc qdisc show dev eth0)" || ok "after cleanup: no netem on eth0"
fab_procs && fail "after cleanup: fabriclab processes left" || ok "after cleanup: no fabriclab process"
[ "$(ledgers)" = 0 ] && ok "after cleanup: no ledger" || fail "after cleanup: ledger left"

# The bench's pcap, read last: a tshark pass under TCG takes minutes, and
# VM 1's next host-mode run would wait for the lead only 300 s to join.
if [ "$h" = 0 ]; then
  ts "tshark on the bench's pcap"
  pcap=$(ls "$brun"captures/*.pcap 2>/dev/null | head -1)
  [ -s "$pcap" ] && ok "the lead's pcap: $pcap ($(wc -c < "$pcap") bytes)" || fail "no pcap in $brun/captures"
  # One tshark pass (slow under TCG), then awk, as roce-wire.sh: the same
  # fields as doc/roce.md section 9's commands, plus the destination QP
  # (both hosts send data here, on several QPs each).
  tshark -r "$pcap" -T fields -e frame.number -e frame.time_relative -e ip.src \
    -e infiniband.bth.destqp -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.aeth.syndrome 2>/dev/null > /tmp/bench-fields
  echo "--- packets: $(wc -l < /tmp/bench-fields), RoCE: $(awk -F'\t' '$5 != ""' /tmp/bench-fields | wc -l)"
  echo "--- NAKs (AETH syndrome 0x60 = 96): frame, from, dest QP, PSN, syndrome"
  awk -F'\t' '$7 == 96 { print $1 "\t" $3 "\t" $4 "\t" $6 "\t" $7 }' /tmp/bench-fields > /tmp/bench-naks
  head -5 /tmp/bench-naks
  bnaks=$(wc -l < /tmp/bench-naks)
  echo "--- NAK count: $bnaks"
  # Data packets (RC opcodes 0-12: SEND, RDMA WRITE, READ request) keyed by
  # sender, QP and PSN; ACKs (17) repeat PSNs by design and are left out.
  awk -F'\t' '$5 != "" && $5 + 0 <= 12 { print $3 "/" $4 "/" $6 }' /tmp/bench-fields | sort > /tmp/bench-psns
  brepeated=$(uniq -d /tmp/bench-psns | wc -l)
  echo "--- data PSNs sent more than once: $brepeated of $(uniq /tmp/bench-psns | wc -l) distinct (sender/QP/PSN); e.g. $(uniq -d /tmp/bench-psns | head -3 | tr '\n' ' ')"
  [ "$bnaks" -gt 0 ] && ok "the capture holds NAKs ($bnaks)" || fail "no NAK in the bench's capture"
  [ "$brepeated" -gt 0 ] && ok "the capture holds data PSNs sent twice ($brepeated)" ||
    fail "no data PSN sent twice in the bench's capture"
fi

if [ "$h" = 0 ] && [ "$full_runs" -gt 0 ]; then
  echo "=== recordings begin"
  (cd /tmp && tar czf - quick/14-* quick.log killed.log cleanup.out 2>/dev/null) | base64 -w 0
  echo
  echo "=== recordings end"
fi
ts "end"
echo "roce lab: $failed failed"
exit "$failed"
