#!/bin/sh
# RoCE on the wire (doc/roce.md "On the wire"): in each VM of the pair a
# SoftRoCE device on eth0, netem loss 1% on both, one ib_write_bw; VM 1 (the
# requester) captures eth0's RoCEv2 packets (UDP 4791, headers only) and
# reads them with tshark: the NAKs (AETH syndrome 0x60: NAK, PSN sequence
# error) and, after the first NAK, the PSN range sent again.
#   tests/vm/vm-pair --timeout 600 -- /bin/sh tests/vm/roce-wire.sh   (ctest vm_pair_roce_wire)
# Exit 1 when VM 1's capture holds no NAK or no PSN sent twice.
h="${FABRICLAB_VM_INDEX:?run me through tests/vm/vm-pair}"
failed=0
rdma link add rxe0 type rxe netdev eth0 || { echo "FAIL: rdma link add"; exit 1; }
me="10.99.0.$((h + 1))"
want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$me" | tr . ' '))
gid=""
for i in 0 1 2 3 4 5 6 7; do
  [ "$(cat /sys/class/infiniband/rxe0/ports/1/gids/$i)" = "$want" ] && { gid=$i; break; }
done
[ -n "$gid" ] || { echo "FAIL: no GID for $me"; exit 1; }
tc qdisc add dev eth0 root netem loss 1%
pcap=/tmp/roce.pcap
if [ "$h" = 1 ]; then
  tcpdump -i eth0 -s 128 -w "$pcap" udp port 4791 2>/tmp/tcpdump.log &
  dump=$!
  sleep 2
  i=0
  until timeout 120 ib_write_bw -d rxe0 -x "$gid" -F -n 100 -s 65536 -p 18620 10.99.0.1 >/tmp/w 2>&1; do
    i=$((i + 1)); [ "$i" -ge 40 ] && { echo "FAIL: ib_write_bw"; cat /tmp/w; break; }; sleep 2
  done
  sleep 1; kill "$dump"; wait "$dump"
  cat /tmp/tcpdump.log
  # One tshark pass (slow under TCG); the rest is awk over its fields. The
  # same as the per-question commands that doc/roce.md section 8 shows.
  tshark -r "$pcap" -T fields -e frame.number -e frame.time_relative -e ip.src \
    -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome \
    2>/dev/null > /tmp/fields
  echo "--- packets: $(wc -l < /tmp/fields)"
  echo "--- NAKs (AETH syndrome 0x60 = 96): frame, from, PSN, syndrome"
  awk -F'\t' '$6 == 96 { print $1 "\t" $3 "\t" $5 "\t" $6 }' /tmp/fields > /tmp/naks
  head -5 /tmp/naks
  naks=$(wc -l < /tmp/naks)
  echo "--- NAK count: $naks"
  first=$(head -1 /tmp/naks | cut -f1)
  if [ -n "$first" ]; then
    echo "--- around the first NAK (frame $first): frame, time, from, opcode, PSN, syndrome"
    awk -F'\t' -v f="$first" '$1 > f - 12 && $1 < f + 10' /tmp/fields
  fi
  awk -F'\t' '$3 == "10.99.0.2" { print $5 }' /tmp/fields | sort > /tmp/psns
  repeated=$(uniq -d /tmp/psns | wc -l)
  echo "--- data PSNs sent more than once (requester): $repeated of $(uniq /tmp/psns | wc -l) distinct"
  [ "$naks" -gt 0 ] && echo "ok: the responder NAKed ($naks)" || { echo "FAIL: no NAK in the capture"; failed=1; }
  [ "$repeated" -gt 0 ] && echo "ok: the requester resent PSNs ($repeated)" || { echo "FAIL: no PSN sent twice"; failed=1; }
  echo "--- tc -s qdisc: $(tc -s qdisc show dev eth0 | tr '\n' ' ')"
else
  timeout 240 ib_write_bw -d rxe0 -x "$gid" -F -n 100 -s 65536 -p 18620 >/tmp/w 2>&1 || { echo "FAIL: server"; cat /tmp/w; }
  echo "--- server done; tc -s qdisc: $(tc -s qdisc show dev eth0 | tr '\n' ' ')"
fi
rdma link delete rxe0
exit "$failed"
