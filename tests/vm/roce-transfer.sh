#!/bin/sh
# What roce-checks.sh runs under `fabriclab rxe --iface eth0 --` in each VM of
# the pair: RC transfers between the two SoftRoCE devices, clean and under
# netem loss 1%, and what rxe's counters say about the latter. VM 0 serves,
# VM 1 (the requester: it sends the data) connects to 10.99.0.1.
#   usage: roce-transfer.sh          (env: FABRICLAB_RDMA_DEVICE, FABRICLAB_VM_INDEX)
dev="${FABRICLAB_RDMA_DEVICE:?run me under fabriclab rxe}"
h="${FABRICLAB_VM_INDEX:?run me through tests/vm/vm-pair}"
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
ok() { echo "ok: $*"; }
T0=$(date +%s)
ts() { echo "--- t=$(( $(date +%s) - T0 ))s $*"; }

counters=/sys/class/infiniband/$dev/ports/1/hw_counters
counter() { cat "$counters/$1"; }
# The GID index of this VM's lab address (::ffff:10.99.0.<h+1>) on $dev: the
# table has 1024 entries, most of them empty; the addresses come first.
me="10.99.0.$((h + 1))"
want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$me" | tr . ' '))
gid=""
for i in 0 1 2 3 4 5 6 7; do
  [ "$(cat "/sys/class/infiniband/$dev/ports/1/gids/$i")" = "$want" ] && { gid=$i; break; }
done
[ -n "$gid" ] || { fail "no GID for $me on $dev"; exit 1; }

# The device fabriclab made, and its ledger entry while it exists.
rdma link show | grep -q "link $dev/1 .*netdev eth0" && ok "$dev on eth0 (rdma link show)" ||
  fail "$dev is not on eth0: $(rdma link show)"
grep -qs "\"fabriclab_eth0\"" /run/fabriclab/runs/*.json && ok "$dev is in the run's ledger" ||
  fail "no ledger entry names $dev"

# TOOL as the server on VM 0; on VM 1 as the client, retried until VM 0 listens.
pairrun() {
  if [ "$h" = 0 ]; then timeout 120 "$@"; return; fi
  i=0
  while [ "$i" -lt 40 ]; do
    timeout 120 "$@" 10.99.0.1 && return 0
    r=$?; [ "$r" = 124 ] && return 124
    sleep 2; i=$((i + 1))
  done
  return "$r"
}

ts "ibv_rc_pingpong: RC send/recv, every received buffer checked (-c)"
pairrun ibv_rc_pingpong -d "$dev" -g "$gid" -c -n 50 -s 4096 -p 18611 &&
  ok "ibv_rc_pingpong -c: 50 x 4096 B both ways, data checked" || fail "ibv_rc_pingpong exit $?"

ts "ib_write_bw clean"
pairrun ib_write_bw -d "$dev" -x "$gid" -F -n 100 -s 65536 -p 18612 --report_gbits > /tmp/w0 2>&1 &&
  ok "ib_write_bw clean: $(awk '/^ 65536/ { print $4 " Gbit/s" }' /tmp/w0)" ||
  { fail "ib_write_bw clean"; cat /tmp/w0; }

ts "ib_write_bw under netem loss 1% on eth0"
sent0=$(counter sent_pkts); nak0=$(counter rcvd_seq_err); ooo0=$(counter out_of_seq_request)
retry0=$(counter completer_retry_err); dup0=$(counter duplicate_request)
tc qdisc add dev eth0 root netem loss 1% || fail "tc qdisc add netem loss 1%"
pairrun ib_write_bw -d "$dev" -x "$gid" -F -n 100 -s 65536 -p 18613 --report_gbits > /tmp/w1 2>&1 &&
  ok "ib_write_bw loss 1%: completed, $(awk '/^ 65536/ { print $4 " Gbit/s" }' /tmp/w1)" ||
  { fail "ib_write_bw loss 1%"; cat /tmp/w1; }
dropped=$(tc -s qdisc show dev eth0 | awk '/dropped/ { sub(",", "", $7); print $7 }')
tc qdisc del dev eth0 root
sent=$(( $(counter sent_pkts) - sent0 )); nak=$(( $(counter rcvd_seq_err) - nak0 ))
ooo=$(( $(counter out_of_seq_request) - ooo0 )); retry=$(( $(counter completer_retry_err) - retry0 ))
dup=$(( $(counter duplicate_request) - dup0 ))
echo "counters (this transfer): sent_pkts $sent rcvd_seq_err $nak completer_retry_err $retry" \
     "out_of_seq_request $ooo duplicate_request $dup; netem dropped $dropped on this VM's eth0"
# 100 x 64 KiB at 1024 B per packet: 6400 packets of data, ~64 lost each way.
if [ "$h" = 1 ]; then
  [ "$nak" -gt 0 ] && ok "requester: $nak NAKs (sequence error) received" ||
    fail "requester: no NAK received under loss 1% (rcvd_seq_err +0)"
  [ "$sent" -gt 6400 ] && ok "requester resent: $sent packets sent for 6400 of data" ||
    fail "requester sent $sent packets for 6400 of data: no retransmission seen"
else
  [ "$ooo" -gt 0 ] && ok "responder: $ooo out-of-sequence requests (gaps it NAKed)" ||
    fail "responder: no out-of-sequence request under loss 1%"
fi
ts "done"
exit "$failed"
