#include "runner/bench/impair_lab.h"

#include <regex>
#include <stdexcept>

#include "common/ping_output.h"
#include "runner/process/iperf_client.h"

namespace fabriclab::runner::bench {

ImpairLab::ImpairLab(const std::string& run_id) : ledger_(run_id) {
  TopologySpec spec;
  spec.ranks = 2;
  spec.run_id = run_id;
  topology_ = Topology::build(spec, ledger_);
}

netem::Target ImpairLab::target(netem::Direction direction) const {
  const bool egress = direction == netem::Direction::kEgress;
  const Endpoint& device = egress ? r0().egress : r1().egress;  // each rank's eth0
  netem::Target t;
  t.netns = device.netns;
  t.netns_fd = device.netns_fd;
  t.device = device.device;
  t.direction = direction;
  if (!egress) t.peers = {r0().ipv4};
  return t;
}

std::vector<double> ImpairLab::ping_rtts_ms(int count, const std::string& interval_s) const {
  std::string out = run_client(
      {"ping", "-n", "-c", std::to_string(count), "-i", interval_s, "-W", "2", r1().ipv4},
      r0().netns_fd, tmp_.file("ping.out"), 30 + count / 50);
  return fabriclab::ping_rtts_ms(out);
}

std::pair<int, int> ImpairLab::ping_loss(int count) const {
  std::string out = run_client(
      {"ping", "-n", "-q", "-c", std::to_string(count), "-i", "0.0002", "-W", "1", r1().ipv4},
      r0().netns_fd, tmp_.file("flood.out"), 60 + count / 500);
  std::smatch m;
  static const std::regex counts(R"((\d+) packets transmitted, (\d+) received)");
  if (!std::regex_search(out, m, counts))
    throw std::runtime_error("ping printed no summary: " + out);
  return {std::stoi(m[1]), std::stoi(m[2])};
}

double ImpairLab::iperf_gbps(int seconds) const {
  return runner::iperf_gbps({r0().netns_fd, r1().netns_fd, r1().ipv4}, seconds, tmp_);
}

}  // namespace fabriclab::runner::bench
