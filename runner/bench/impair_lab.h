// The lab `fabriclab bench impair` measures on (impair_bench.h): two ranks
// in their own network namespaces joined by one veth pair
// (runner/topology), and the real clients it measures with -- ping and
// iperf3, run inside rank 0's namespace against rank 1.
//
// Lifetime: ImpairLab owns the namespaces (through its Ledger, which also
// covers a SIGKILL) and a temporary folder for the clients' output; all are
// removed when it is destroyed. Each client runs as a child process that is
// waited for (or terminated at its timeout) before the call returns.
// Units: RTTs in ms, throughput in Gbit/s (10^9 bits per second).
// Errors: std::runtime_error when a client does not finish in time, prints
// no result, or fails (the message holds its output); topology errors as
// runner/topology/topology.h says. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/temp_dir.h"
#include "netem/impairment.h"
#include "runner/ledger/ledger.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner::bench {

class ImpairLab {
 public:
  // Builds the two ranks' namespaces and link under `run_id`.
  explicit ImpairLab(const std::string& run_id);

  const RankNetwork& r0() const { return topology_->rank(0); }
  const RankNetwork& r1() const { return topology_->rank(1); }

  // Where rank 0 -> rank 1 traffic is impaired: on rank 0's egress, or as
  // it arrives at rank 1 (what the runner does with a backend whose
  // link_direction() is ingress).
  netem::Target target(netem::Direction direction) const;

  // Round-trip times of `count` pings from rank 0 to rank 1, sent every
  // `interval_s` seconds (ping's -i word); lost pings have no entry.
  std::vector<double> ping_rtts_ms(int count, const std::string& interval_s) const;
  // `count` echo requests 0.2 ms apart: {transmitted, received}.
  std::pair<int, int> ping_loss(int count) const;
  // One iperf3 run of `seconds` from rank 0 to rank 1: Gbit/s received.
  double iperf_gbps(int seconds) const;

 private:
  Ledger ledger_;
  std::unique_ptr<Topology> topology_;
  TempDir tmp_{"fabriclab-bench"};
};

}  // namespace fabriclab::runner::bench
