// `fabriclab bench impair`: how faithful, and how fast, is each impairment
// backend available here? A benchmark, not a test: it prints figures.
//
// On a two-rank lab topology (runner/topology: two namespaces, one veth
// pair), for each backend (netem when the kernel has sch_netem, userspace
// when NFQUEUE works) it measures, with real clients:
//   1. added RTT: `ping` from rank 0 to rank 1 with the impairment on rank 0's
//      egress, minus the bare link's median RTT, at p50 and p99, against what
//      netem's algorithm implies for the spec (the quantiles of 200,000 draws
//      of netem/userspace/impairment_model.h, which follows sch_netem.c).
//      Target: |error at p50| <= max(0.5 ms, 2%);
//   2. loss: `ping -c N -i 0.0002` (N >= 10,000); the measured rate must lie
//      in the 95% binomial interval around the configured one (so about one
//      row in twenty misses by chance -- that is what 95% means);
//   3. TCP throughput: `iperf3` through the backend with an empty spec (every
//      packet passes the impairment machinery, none is delayed) against the
//      bare link, alternating rounds, medians. Target: >= 0.8x.
//
// Everything it creates (namespaces, impairments, processes, temp files) is
// owned by objects destroyed on every exit path; the ledger covers a SIGKILL.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "common/input_error.h"
#include "common/temp_dir.h"
#include "common/ping_output.h"
#include "common/scoped_netns.h"
#include "netem/backend_probe.h"
#include "netem/impairment.h"
#include "netem/spec_parse.h"
#include "netem/userspace/impairment_model.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "runner/topology/topology.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {

namespace {

using runner::Process;

struct BenchOptions {
  std::string backend = "all";  // all | netem | userspace
  int pings = 500;              // per delay row
  int loss_packets = 10000;     // per loss row
  int iperf_seconds = 4;
  int iperf_rounds = 3;
  uint64_t seed = 0;  // 0: random
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs argv in the namespace of `netns_fd`, waits at most `timeout`, and
// returns its standard output (stderr goes to the same file).
std::string run_client(const std::vector<std::string>& argv, int netns_fd,
                       const std::string& out_path, std::chrono::seconds timeout) {
  runner::LaunchSpec spec;
  spec.argv = argv;
  spec.netns_fd = netns_fd;
  spec.label = argv.front();
  spec.stdout_stream = runner::Redirect::file(out_path);
  spec.stderr_stream = runner::Redirect::append(out_path);
  Process p = Process::launch(spec);
  if (!p.wait_for(timeout)) {
    p.terminate();
    throw std::runtime_error(argv.front() + " did not finish within " +
                             std::to_string(timeout.count()) + " s: " + read_file(out_path));
  }
  return read_file(out_path);
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::lround(q * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

// p50/p99 of the delay netem's algorithm draws for `spec`, in ms.
std::pair<double, double> configured_delay_ms(const netem::Spec& spec, uint64_t seed) {
  netem::userspace::ImpairmentModel model(spec, seed);
  std::vector<double> d;
  for (int i = 0; i < 200000; ++i) {
    netem::userspace::PacketFate f = model.next();
    if (!f.drop) d.push_back(static_cast<double>(f.delay_ns) / 1e6);
  }
  return {quantile(d, 0.5), quantile(d, 0.99)};
}

// The lab: two ranks, and the bare link's figures measured once.
struct Lab {
  runner::Ledger ledger;
  std::unique_ptr<runner::Topology> topology;
  TempDir tmp{"fabriclab-bench"};
  explicit Lab(const std::string& run_id) : ledger(run_id) {
    runner::TopologySpec spec;
    spec.ranks = 2;
    spec.run_id = run_id;
    topology = runner::Topology::build(spec, ledger);
  }
  const runner::RankNetwork& r0() const { return topology->rank(0); }
  const runner::RankNetwork& r1() const { return topology->rank(1); }
  // Rank 0 -> rank 1 traffic: on rank 0's egress, or as it arrives at rank 1
  // (what the runner does with a backend whose link_direction() is ingress).
  netem::Target target(netem::Direction direction) const {
    const bool egress = direction == netem::Direction::kEgress;
    const runner::Endpoint& device = egress ? r0().egress : r1().egress;  // each rank's eth0
    netem::Target t;
    t.netns = device.netns;
    t.netns_fd = device.netns_fd;
    t.device = device.device;
    t.direction = direction;
    if (!egress) t.peers = {r0().ipv4};
    return t;
  }
};

std::vector<double> ping(const Lab& lab, int count, const std::string& interval_s) {
  std::string out = run_client(
      {"ping", "-n", "-c", std::to_string(count), "-i", interval_s, "-W", "2", lab.r1().ipv4},
      lab.r0().netns_fd, lab.tmp.file("ping.out"), std::chrono::seconds(30 + count / 50));
  return ping_rtts_ms(out);
}

// Loss over `count` echo requests: {transmitted, received}.
std::pair<int, int> ping_loss(const Lab& lab, int count) {
  std::string out = run_client(
      {"ping", "-n", "-q", "-c", std::to_string(count), "-i", "0.0002", "-W", "1", lab.r1().ipv4},
      lab.r0().netns_fd, lab.tmp.file("flood.out"), std::chrono::seconds(60 + count / 500));
  std::smatch m;
  static const std::regex counts(R"((\d+) packets transmitted, (\d+) received)");
  if (!std::regex_search(out, m, counts))
    throw std::runtime_error("ping printed no summary: " + out);
  return {std::stoi(m[1]), std::stoi(m[2])};
}

bool port_listening(int netns_fd, int port) {
  std::string tcp;
  {
    ScopedNetns in_ns(netns_fd);
    tcp = read_file("/proc/thread-self/net/tcp");
  }
  char needle[32];
  std::snprintf(needle, sizeof needle, ":%04X 00000000:0000 0A", port);
  return tcp.find(needle) != std::string::npos;
}

// One iperf3 run from rank 0 to rank 1; Gbit/s received.
double iperf_gbps(const Lab& lab, int seconds) {
  const int port = 5201;
  runner::LaunchSpec server;
  server.argv = {"iperf3", "-s", "-p", std::to_string(port), "-B", lab.r1().ipv4};
  server.netns_fd = lab.r1().netns_fd;
  server.label = "iperf3 server";
  server.stdout_stream = runner::Redirect::null();
  server.stderr_stream = runner::Redirect::file(lab.tmp.file("iperf-server.err"));
  Process srv = Process::launch(server);
  for (int i = 0; i < 100 && !port_listening(lab.r1().netns_fd, port); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string out =
      run_client({"iperf3", "-c", lab.r1().ipv4, "-p", std::to_string(port), "-t",
                  std::to_string(seconds), "-J"},
                 lab.r0().netns_fd, lab.tmp.file("iperf.json"), std::chrono::seconds(seconds + 30));
  srv.terminate();
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.contains("end") || !json["end"].contains("sum_received")) {
    throw std::runtime_error("iperf3 failed: " + out);
  }
  return json["end"]["sum_received"]["bits_per_second"].get<double>() / 1e9;
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// --- one backend ------------------------------------------------------------

struct BackendResult {
  int rows = 0;
  int rows_ok = 0;
};

void bench_backend(const std::string& name, netem::Backend& backend, Lab& lab,
                   const BenchOptions& opt, uint64_t seed, double bare_rtt_p50,
                   BackendResult& result) {
  auto verdict = [&](bool ok) {
    ++result.rows;
    result.rows_ok += ok;
    return ok ? "ok" : "MISS";
  };
  const netem::Target target = lab.target(backend.link_direction());
  std::printf("\n== backend %s (rank 0 -> rank 1 %s, seed %llu)\n", name.c_str(),
              backend.link_direction() == netem::Direction::kEgress
                  ? ("on " + lab.r0().egress.describe()).c_str()
                  : ("arriving on " + lab.r1().egress.describe()).c_str(),
              static_cast<unsigned long long>(seed));

  std::printf("\nadded RTT, %d pings each (bare link p50 %.3f ms subtracted)\n", opt.pings,
              bare_rtt_p50);
  std::printf("  %-36s %10s %10s %8s %10s %10s %9s  %s\n", "spec", "conf p50", "meas p50", "error",
              "conf p99", "meas p99", "target", "p50");
  for (const char* words : {"delay 1ms", "delay 10ms", "delay 100ms", "delay 10ms 2ms",
                            "delay 50ms 5ms distribution normal"}) {
    netem::Spec spec = netem::parse_spec(words);
    auto [conf50, conf99] = configured_delay_ms(spec, seed);
    std::vector<double> rtts;
    {
      auto applied = backend.apply(target, spec);
      rtts = ping(lab, opt.pings, "0.005");
    }
    for (double& r : rtts) r -= bare_rtt_p50;
    double meas50 = quantile(rtts, 0.5), meas99 = quantile(rtts, 0.99);
    double target = std::max(0.5, 0.02 * conf50);
    double err = meas50 - conf50;
    std::printf("  %-36s %7.3f ms %7.3f ms %+8.3f %7.3f ms %7.3f ms %6.3f ms  %s%s\n", words,
                conf50, meas50, err, conf99, meas99, target, verdict(std::abs(err) <= target),
                rtts.size() == static_cast<size_t>(opt.pings) ? "" : "  (some pings lost!)");
  }

  std::printf("\nloss, %d echo requests each\n", opt.loss_packets);
  std::printf("  %-36s %10s %10s %21s %10s  %s\n", "spec", "configured", "measured", "95% interval",
              "dropped", "in interval");
  for (const char* words : {"loss 1%", "loss 10%"}) {
    netem::Spec spec = netem::parse_spec(words);
    int tx = 0, rx = 0;
    uint64_t dropped = 0;
    {
      auto applied = backend.apply(target, spec);
      std::tie(tx, rx) = ping_loss(lab, opt.loss_packets);
      dropped = applied->stats().drops;
    }
    double p = spec.loss, measured = tx > 0 ? 1.0 - static_cast<double>(rx) / tx : NAN;
    double half = 1.96 * std::sqrt(p * (1 - p) / std::max(tx, 1));
    bool ok = measured >= p - half && measured <= p + half;
    std::printf("  %-36s %9.3f%% %9.3f%% [%7.3f%%, %7.3f%%] %10llu  %s\n", words, 100 * p,
                100 * measured, 100 * (p - half), 100 * (p + half),
                static_cast<unsigned long long>(dropped), verdict(ok));
  }

  std::printf("\nTCP throughput, iperf3 -t %d, %d alternating rounds (median)\n", opt.iperf_seconds,
              opt.iperf_rounds);
  std::vector<double> bare, through;
  for (int round = 0; round < opt.iperf_rounds; ++round) {
    bare.push_back(iperf_gbps(lab, opt.iperf_seconds));
    auto applied = backend.apply(target, netem::Spec{});
    through.push_back(iperf_gbps(lab, opt.iperf_seconds));
  }
  double ratio = median(through) / median(bare);
  std::string rounds;
  for (int i = 0; i < opt.iperf_rounds; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.2f/%.2f", i ? ", " : "", through[i], bare[i]);
    rounds += buf;
  }
  std::printf("  bare link %.2f Gbit/s, through %s %.2f Gbit/s: ratio %.2f (target >= 0.80) %s\n",
              median(bare), name.c_str(), median(through), ratio, verdict(ratio >= 0.8));
  std::printf("  rounds (through/bare, Gbit/s): %s\n", rounds.c_str());

  if (backend.link_direction() == netem::Direction::kIngress) {
    // Why this backend impairs on arrival: the same delay held on the
    // sender's egress leaves the packets charged to its socket, and TCP
    // Small Queues then allow only a couple of them in flight.
    const netem::Spec delay = netem::parse_spec("delay 10ms");
    double arrival = 0, egress = 0;
    {
      auto applied = backend.apply(target, delay);
      arrival = iperf_gbps(lab, opt.iperf_seconds);
    }
    {
      auto applied = backend.apply(lab.target(netem::Direction::kEgress), delay);
      egress = iperf_gbps(lab, opt.iperf_seconds);
    }
    std::printf("\nTCP through delay 10ms (one way), iperf3 -t %d: on arrival %.3f Gbit/s, "
                "held on the sender's egress %.3f Gbit/s (TCP Small Queues)\n",
                opt.iperf_seconds, arrival, egress);
  }
}

// --- the command --------------------------------------------------------------

void run_bench(const BenchOptions& opt) {
  std::string why;
  runner::enter_rootless_namespace_if_needed(&why);
  if (!why.empty()) spdlog::info("{}", why);

  uint64_t seed = opt.seed;
  if (seed == 0) seed = std::random_device{}();

  struct Candidate {
    std::string name;
    std::unique_ptr<netem::Backend> backend;
    std::string why;
  };
  std::vector<Candidate> candidates;
  netem::BackendOptions options;
  options.seed = seed;
  for (const netem::BackendProbe& probe : netem::probe_backends()) {
    if (opt.backend != "all" && opt.backend != probe.name) continue;
    // netem is tried unless known absent (apply() then says why); userspace
    // only when it works.
    const bool usable = probe.kind == netem::BackendKind::kNetem
                            ? probe.availability != netem::Availability::kNo
                            : probe.availability == netem::Availability::kYes;
    if (usable)
      candidates.push_back({probe.name, netem::make_backend(probe.kind, options), probe.why});
    else
      std::printf("backend %s: not measured: %s\n", probe.name.c_str(), probe.why.c_str());
  }
  if (candidates.empty()) throw std::runtime_error("no impairment backend can run here");

  Lab lab(runner::make_run_id());
  std::printf("lab: %s -> %s over one veth pair\n", lab.r0().egress.describe().c_str(),
              lab.r1().egress.describe().c_str());
  std::vector<double> bare = ping(lab, opt.pings, "0.005");
  double bare50 = quantile(bare, 0.5);
  std::printf("bare link RTT: p50 %.3f ms, p99 %.3f ms (%zu pings)\n", bare50, quantile(bare, 0.99),
              bare.size());

  BackendResult total;
  for (Candidate& c : candidates) {
    spdlog::info("measuring backend {}: {}", c.name, c.why);
    bench_backend(c.name, *c.backend, lab, opt, seed, bare50, total);
  }
  std::printf("\n%d of %d rows within target\n", total.rows_ok, total.rows);
}

}  // namespace

void add_bench_impair_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "impair",
      "Fidelity and speed of each impairment backend available here: added RTT (p50/p99), loss "
      "rate, TCP throughput vs the bare link (needs root or user namespaces, ping, iperf3)");
  cmd->add_option("--backend", opt->backend, "all, netem or userspace")
      ->check(CLI::IsMember({"all", "netem", "userspace"}));
  cmd->add_option("--pings", opt->pings, "Pings per delay row")->check(CLI::Range(20, 100000));
  cmd->add_option("--loss-packets", opt->loss_packets, "Echo requests per loss row")
      ->check(CLI::Range(1000, 1000000));
  cmd->add_option("--iperf-seconds", opt->iperf_seconds, "Length of each iperf3 run")
      ->check(CLI::Range(1, 60));
  cmd->add_option("--iperf-rounds", opt->iperf_rounds, "Alternating bare/through rounds")
      ->check(CLI::Range(1, 20));
  cmd->add_option("--seed", opt->seed, "Seed of the userspace model (0: random)");
  cmd->callback([opt] { run_bench(*opt); });
}

}  // namespace fabriclab::cli
