#!/bin/sh
# RoCE on the wire (doc/roce.md "On the wire"): in each VM of the pair a
# SoftRoCE device on eth0, netem loss 1% on both, one ib_write_bw; VM 1 (the
# requester) captures eth0's RoCEv2 packets (UDP 4791, headers only) and
# reads them with tshark: the NAKs (AETH syndrome 0x60: NAK, PSN sequence
# error) and, after the first NAK, the PSN range sent again.
#   tests/vm/vm-pair --timeout 600 -- /bin/sh tests/vm/roce-wire.sh
h="${FABRICLAB_VM_INDEX:?run me through tests/vm/vm-pair}"
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
  echo "--- packets: $(tshark -r "$pcap" 2>/dev/null | wc -l)"
  echo "--- NAKs: tshark -r roce.pcap -Y 'infiniband.aeth.syndrome == 0x60' -T fields -e frame.number -e ip.src -e infiniband.bth.psn -e infiniband.aeth.syndrome"
  tshark -r "$pcap" -Y 'infiniband.aeth.syndrome == 0x60' -T fields -e frame.number -e ip.src \
    -e infiniband.bth.psn -e infiniband.aeth.syndrome 2>/dev/null | tee /tmp/naks | head -5
  echo "--- NAK count: $(wc -l < /tmp/naks)"
  first=$(head -1 /tmp/naks | cut -f1); psn=$(head -1 /tmp/naks | cut -f3)
  echo "--- the requester's packets around the first NAK (frame $first, PSN $psn): tshark -r roce.pcap -Y 'ip.src == 10.99.0.2 && frame.number > $((first - 6)) && frame.number < $((first + 8))' -T fields -e frame.number -e frame.time_relative -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn"
  tshark -r "$pcap" -Y "frame.number > $((first - 12)) && frame.number < $((first + 10))" -T fields \
    -e frame.number -e frame.time_relative -e ip.src -e infiniband.bth.opcode -e infiniband.bth.psn \
    -e infiniband.aeth.syndrome 2>/dev/null
  echo "--- data PSNs sent more than once (requester): $(tshark -r "$pcap" -Y 'ip.src == 10.99.0.2' -T fields -e infiniband.bth.psn 2>/dev/null | sort | uniq -d | wc -l) of $(tshark -r "$pcap" -Y 'ip.src == 10.99.0.2' -T fields -e infiniband.bth.psn 2>/dev/null | sort -u | wc -l) distinct"
  echo "--- tc -s qdisc: $(tc -s qdisc show dev eth0 | tr '\n' ' ')"
else
  timeout 240 ib_write_bw -d rxe0 -x "$gid" -F -n 100 -s 65536 -p 18620 >/tmp/w 2>&1 || { echo "FAIL: server"; cat /tmp/w; }
  echo "--- server done; tc -s qdisc: $(tc -s qdisc show dev eth0 | tr '\n' ' ')"
fi
rdma link delete rxe0
