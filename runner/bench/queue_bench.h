// The engine of `fabriclab bench queue`: how faithful is the switch queue
// (netem/switch.h, the userspace switch) that lab 08 stands on? A
// benchmark: it prints figures and a verdict per row, and fails only when
// it cannot measure.
//
// On a four-rank switch lab (the runner's own topology, in namespaces), with
// the real iperf3:
//   1. drain rate: one TCP flow r1 -> r0 through `rate R limit 256kb
//      taildrop` at R = 50, 100, 200 Mbit/s. The port charges each frame its
//      IP length + 14 bytes of Ethernet, so a TCP flow's goodput is R x
//      MSS / (MSS + 66) (1448 of 1514 bytes with timestamps). Target: the
//      measured goodput within 5% of that;
//   2. marking profile: three ECN-capable reno flows r1, r2, r3 -> r0 into
//      `rate 100mbit limit 256kb ecn kmin 20kb kmax 80kb pmax 0.2`; the
//      port's packet-level trace (every ECN-capable packet's depth found and
//      whether it was marked, switch_model.h) in 4 KiB bands, each band's
//      marked share against the profile's mean probability for the depths its
//      packets found. Target: within 0.05 in every band with 200 packets or
//      more;
//   3. lossless under incast: the same three flows (ECN off) into `rate
//      100mbit limit 128kb lossless xoff 64kb xon 32kb`. Target: 0 packets
//      dropped by the port and 0 by the kernel's NFQUEUE, the port busy
//      (goodput summed >= 90% of the payload rate).
// Units: Mbit/s (10^6 bits/s), KiB. Output: the tables to stdout.
// Errors: std::runtime_error when a client fails or the switch cannot be
// set up. Enters a user namespace first when not root. Everything it
// creates is removed on every exit path; the ledger covers a SIGKILL.
#pragma once

namespace fabriclab::runner::bench {

struct QueueBenchOptions {
  int seconds = 5;  // length of each measured flow
};

void run_queue_bench(const QueueBenchOptions& options);

}  // namespace fabriclab::runner::bench
