#include "runner/bench/queue_bench.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/file_text.h"
#include "common/scoped_netns.h"
#include "common/temp_dir.h"
#include "netem/queue/port_spec.h"
#include "netem/switch.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/process/iperf_client.h"
#include "runner/scenario/neighbour_flow.h"
#include "runner/topology/lab_network.h"
#include "runner/topology/topology.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::runner::bench {
namespace {

constexpr double kFrameOverheadBytes = 66;  // IP 20 + TCP 32 (timestamps) + Ethernet 14

struct Rows {
  int total = 0;
  int ok = 0;
  void add(bool row_ok) {
    ++total;
    ok += row_ok;
  }
};

// The lab: four ranks on one switch, MTU-sized frames (as lab 08).
class QueueLab {
 public:
  QueueLab() : ledger_(make_run_id()) {
    TopologySpec spec;
    spec.ranks = 4;
    spec.run_id = ledger_.run_id();
    spec.fabric = "switch";
    spec.segmentation_offload = false;
    topology_ = Topology::build(spec, ledger_);
    network_ = std::make_unique<NamespaceNetwork>(*topology_);
    place_ = network_->switch_place().value();
  }
  const LabNetwork& network() const { return *network_; }
  const SwitchPlace& place() const { return place_; }
  Ledger* ledger() { return &ledger_; }

  // A switch whose port toward r0 is `words`.
  std::unique_ptr<netem::Switch> port_toward_r0(const std::string& words) const {
    return netem::make_userspace_switch(place_.netns_fd,
                                        {{place_.rank_addresses[0], netem::parse_port_spec(words)}},
                                        place_.rank_addresses, 1);
  }
  // Writes `key=value` in every rank's namespace (what a lab's sysctl does).
  void sysctl_everywhere(const std::string& key, const std::string& value) const {
    std::string path = "/proc/sys/" + key;
    for (char& c : path)
      if (c == '.') c = '/';
    for (const LocalRank& rank : network_->local_ranks()) {
      ScopedNetns inside(rank.netns_fd);
      std::ofstream(path) << value;
    }
  }

 private:
  Ledger ledger_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<NamespaceNetwork> network_;
  SwitchPlace place_;
};

// Packets the kernel's NFQUEUE dropped in the switch's namespace (queue
// full, or no listener): /proc/net/netfilter/nfnetlink_queue's 6th and 7th
// columns, summed over queues.
uint64_t nfqueue_kernel_drops(int netns_fd) {
  std::string text;
  {
    ScopedNetns inside(netns_fd);
    text = read_file_text("/proc/net/netfilter/nfnetlink_queue");
  }
  uint64_t drops = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    uint64_t col[9] = {};
    for (uint64_t& c : col) f >> c;
    drops += col[5] + col[6];
  }
  return drops;
}

void bench_drain_rate(QueueLab& lab, const QueueBenchOptions& opt, Rows& rows) {
  std::printf("\n1. drain rate: one TCP flow r1 -> r0, iperf3 -t %d, port 'limit 256kb taildrop'\n",
              opt.seconds);
  std::printf("  %-8s %14s %16s %14s %8s %10s\n", "rate", "goodput Mb/s", "expected Mb/s",
              "port Mb/s", "ratio", "target");
  for (const char* rate : {"50mbit", "100mbit", "200mbit"}) {
    const std::string words = std::string("rate ") + rate + " limit 256kb taildrop";
    const netem::PortSpec spec = netem::parse_port_spec(words);
    auto sw = lab.port_toward_r0(words);
    const auto ranks = lab.network().local_ranks();
    IperfEnds ends{ranks[1].netns_fd, ranks[0].netns_fd, ranks[0].bind_addr};
    const TempDir tmp("fabriclab-queue-bench");
    const auto before = sw->counters().ports[0].bytes;
    const auto start = std::chrono::steady_clock::now();
    const IperfFlow flow = iperf_flow(ends, opt.seconds, tmp, 5311);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double port_mbps = static_cast<double>(sw->counters().ports[0].bytes - before) * 8 / elapsed / 1e6;
    const double mss = flow.mss_bytes > 0 ? static_cast<double>(flow.mss_bytes) : 1448;
    const double expected = static_cast<double>(spec.rate_bytes_per_s) * 8 / 1e6 * mss / (mss + kFrameOverheadBytes);
    const double goodput = flow.goodput_gbps * 1000;
    const double ratio = goodput / expected;
    const bool ok = std::abs(ratio - 1) <= 0.05;
    rows.add(ok);
    std::printf("  %-8s %14.2f %16.2f %14.2f %8.3f %10s  %s\n", rate, goodput, expected, port_mbps,
                ratio, "1 +- 5%", ok ? "ok" : "MISS");
  }
  std::printf("  (port Mb/s: what the port model charged, frames with Ethernet, over the whole\n"
              "   iperf3 run including its start: a little below the rate)\n");
}

// Three flows into r0 for `seconds`; their events (neighbour_flow.h).
std::vector<nlohmann::json> incast(QueueLab& lab, int seconds) {
  const TempDir tmp("fabriclab-queue-bench");
  NeighbourFlows flows(lab.network(),
                       {{"r1", 1, 0, 0}, {"r2", 2, 0, 0}, {"r3", 3, 0, 0}}, tmp.path(),
                       lab.ledger());
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  return flows.stop();
}

void bench_marking(QueueLab& lab, const QueueBenchOptions& opt, Rows& rows) {
  const std::string words = "rate 100mbit limit 256kb ecn kmin 20kb kmax 80kb pmax 0.2";
  const netem::PortSpec spec = netem::parse_port_spec(words);
  std::printf("\n2. marking profile: r1, r2, r3 -> r0 (reno, ECN on), %d s, port '%s'\n",
              opt.seconds, words.c_str());
  lab.sysctl_everywhere("net.ipv4.tcp_congestion_control", "reno");
  lab.sysctl_everywhere("net.ipv4.tcp_ecn", "1");
  auto sw = lab.port_toward_r0(words);
  incast(lab, opt.seconds);
  const auto trace = sw->marking_trace(0);
  const auto profile = [&](double depth) {
    if (depth < spec.kmin_bytes) return 0.0;
    if (depth >= spec.kmax_bytes) return 1.0;
    return spec.pmax * (depth - spec.kmin_bytes) / (spec.kmax_bytes - spec.kmin_bytes);
  };
  std::printf("  %-14s %10s %10s %10s %10s %8s\n", "depth KiB", "packets", "marked", "measured",
              "profile", "|diff|");
  constexpr uint64_t kBand = 4 * 1024;
  for (uint64_t from = 0; from <= spec.limit_bytes; from += kBand) {
    uint64_t ect = 0, marked = 0;
    double expected = 0;  // the mean probability over the depths found
    for (const netem::MarkingBucket& b : trace) {
      if (b.depth_from_bytes < from || b.depth_from_bytes >= from + kBand) continue;
      ect += b.ect;
      marked += b.marked;
      // Each 1 KiB bucket: the profile's mean over it (linear between its ends).
      const double lo = static_cast<double>(b.depth_from_bytes);
      double mean = 0;
      for (int i = 0; i < 16; ++i) mean += profile(lo + (i + 0.5) * 64) / 16;
      expected += mean * static_cast<double>(b.ect);
    }
    if (ect == 0) continue;
    expected /= static_cast<double>(ect);
    const double measured = static_cast<double>(marked) / static_cast<double>(ect);
    const double diff = std::abs(measured - expected);
    const bool counted = ect >= 200;
    if (counted) rows.add(diff <= 0.05);
    std::printf("  %4llu - %-7llu %10llu %10llu %10.3f %10.3f %8.3f  %s\n",
                static_cast<unsigned long long>(from / 1024),
                static_cast<unsigned long long>((from + kBand) / 1024),
                static_cast<unsigned long long>(ect), static_cast<unsigned long long>(marked),
                measured, expected, diff, !counted ? "(few)" : diff <= 0.05 ? "ok" : "MISS");
  }
  lab.sysctl_everywhere("net.ipv4.tcp_ecn", "2");
}

void bench_lossless(QueueLab& lab, const QueueBenchOptions& opt, Rows& rows) {
  const std::string words = "rate 100mbit limit 128kb lossless xoff 64kb xon 32kb";
  const netem::PortSpec spec = netem::parse_port_spec(words);
  std::printf("\n3. lossless under a 3-to-1 incast: r1, r2, r3 -> r0, %d s, port '%s'\n",
              opt.seconds, words.c_str());
  const uint64_t kernel_before = nfqueue_kernel_drops(lab.place().netns_fd);
  auto sw = lab.port_toward_r0(words);
  const auto events = incast(lab, opt.seconds);
  const netem::SwitchCounters c = sw->counters();
  sw.reset();
  const uint64_t kernel_drops = nfqueue_kernel_drops(lab.place().netns_fd) - kernel_before;
  double goodput = 0;
  int64_t retransmits = 0;
  for (const nlohmann::json& e : events) {
    std::printf("  flow %s -> r0: %s Mb/s, %s retransmits\n", e.value("name", "?").c_str(),
                e["mbps"].is_number() ? fmt::format("{:.1f}", e["mbps"].get<double>()).c_str() : "--",
                e["retransmits"].dump().c_str());
    if (e["mbps"].is_number()) goodput += e["mbps"].get<double>();
    if (e["retransmits"].is_number()) retransmits += e["retransmits"].get<int64_t>();
  }
  const double payload_rate = static_cast<double>(spec.rate_bytes_per_s) * 8 / 1e6 * 1448 / 1514;
  const netem::PortCounters& p = c.ports[0];
  const bool ok = p.dropped == 0 && kernel_drops == 0 && goodput >= 0.9 * payload_rate;
  rows.add(ok);
  std::printf("  (flows' Mb/s: what each receiver got, iperf3's server)\n");
  std::printf("  port: %llu packets, %llu dropped, %llu pauses, %.0f ms paused, deepest %.0f KiB; "
              "NFQUEUE drops %llu; goodput %.1f of %.1f Mb/s payload; retransmits %lld  %s\n",
              static_cast<unsigned long long>(p.packets), static_cast<unsigned long long>(p.dropped),
              static_cast<unsigned long long>(p.pauses), static_cast<double>(p.paused_ns) / 1e6,
              static_cast<double>(p.depth_max_bytes) / 1024,
              static_cast<unsigned long long>(kernel_drops), goodput, payload_rate,
              static_cast<long long>(retransmits), ok ? "ok" : "MISS");
}

}  // namespace

void run_queue_bench(const QueueBenchOptions& opt) {
  std::string why;
  enter_rootless_namespace_if_needed(&why);
  if (!why.empty()) spdlog::info("{}", why);
  QueueLab lab;
  std::printf("lab: 4 ranks on switch %s (userspace switch, NFQUEUE)\n", lab.place().netns.c_str());
  Rows rows;
  bench_drain_rate(lab, opt, rows);
  bench_marking(lab, opt, rows);
  bench_lossless(lab, opt, rows);
  std::printf("\n%d of %d rows within target\n", rows.ok, rows.total);
}

}  // namespace fabriclab::runner::bench
