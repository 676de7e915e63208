# Gloo allreduce over ibverbs (rxe) across the VM pair, clean and under netem loss 1%
# (doc/roce.md, section 4). From the checkout, as root:
#   g++ -O1 -std=c++17 doc/roce/gloo_ibverbs_pair.cc -o build/gloo_ibverbs_pair -lgloo -libverbs -lpthread
#   tests/vm/vm-pair --timeout 500 -- /bin/sh doc/roce/gloo_pair_vm.sh
T0=$(date +%s); ts() { echo "=== t=$(( $(date +%s) - T0 ))s $*"; }
h=$FABRICLAB_VM_INDEX
rdma link add rxe0 type rxe netdev eth0
want=$(printf '0000:0000:0000:0000:0000:ffff:0a63:%04x' $((h + 1)))
for i in 0 1 2 3 4 5 6 7; do [ "$(cat /sys/class/infiniband/rxe0/ports/1/gids/$i)" = "$want" ] && { g=$i; break; }; done; echo "gid $g"
for n in 1024 262144; do
  ts "gloo ibverbs allreduce across the pair, $n floats"
  timeout 150 ./build/gloo_ibverbs_pair $h rxe0 $g 10.99.0.1 $((29600 + n % 7)) $n; echo "exit $?"
  rdma statistic show link rxe0/1
done
ts "with netem loss 1%"
tc qdisc add dev eth0 root netem loss 1%
timeout 150 ./build/gloo_ibverbs_pair $h rxe0 $g 10.99.0.1 29611 262144; echo "exit $?"
rdma statistic show link rxe0/1
tc qdisc del dev eth0 root
rdma link delete rxe0
ts done
