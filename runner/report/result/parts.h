// The parts of result_parts.cc's table, one file each (result_part.h).
#pragma once

#include "runner/report/result/result_part.h"

namespace fabriclab::runner::report {

ResultPart timing_part();      // wall time, step times, slowdown
ResultPart training_part();    // loss and accuracy
ResultPart counters_part();    // the last counters sample's totals
ResultPart wire_bytes_part();  // bytes on the wire against the ring's (wire_bytes.h)
ResultPart ranks_part();       // the straggler and the slow link (rank_times.h)
ResultPart allreduce_part();   // an allreduce sweep's busbw (doc/allreduce_bench.md)
ResultPart alpha_beta_part();  // the alpha-beta model fitted to it (alpha_beta_fit.h)
ResultPart flow_probe_part();  // one iperf3 flow on the impaired link (flow_probe.h)
ResultPart queue_part();       // a switch queue's marks, pauses and depths
ResultPart ecn_part();         // the ranks' kernels' ECN counters
ResultPart uplinks_part();     // what a leaf_spine fabric's uplinks carried
ResultPart neighbours_part();  // each neighbour flow's goodput and round trip
ResultPart link_fault_part();    // a link that went down mid-job: the stall and TCP's backoff
ResultPart uplink_fault_part();  // an uplink that failed mid-job: where its flows went
ResultPart slowest_of_n_part();  // a delay tail on every link: the slowest of N (slowest_link.h)
ResultPart cpu_part();           // this machine's CPU in the steps (schedstat; lab 10)

}  // namespace fabriclab::runner::report
