#include "runner/bench/impair_lab.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/ping_output.h"
#include "common/scoped_netns.h"
#include "runner/process/process.h"

namespace fabriclab::runner::bench {
namespace {

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
  LaunchSpec spec;
  spec.argv = argv;
  spec.netns_fd = netns_fd;
  spec.label = argv.front();
  spec.stdout_stream = Redirect::file(out_path);
  spec.stderr_stream = Redirect::append(out_path);
  Process p = Process::launch(spec);
  if (!p.wait_for(timeout)) {
    p.terminate();
    throw std::runtime_error(argv.front() + " did not finish within " +
                             std::to_string(timeout.count()) + " s: " + read_file(out_path));
  }
  return read_file(out_path);
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

}  // namespace

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
      r0().netns_fd, tmp_.file("ping.out"), std::chrono::seconds(30 + count / 50));
  return fabriclab::ping_rtts_ms(out);
}

std::pair<int, int> ImpairLab::ping_loss(int count) const {
  std::string out = run_client(
      {"ping", "-n", "-q", "-c", std::to_string(count), "-i", "0.0002", "-W", "1", r1().ipv4},
      r0().netns_fd, tmp_.file("flood.out"), std::chrono::seconds(60 + count / 500));
  std::smatch m;
  static const std::regex counts(R"((\d+) packets transmitted, (\d+) received)");
  if (!std::regex_search(out, m, counts))
    throw std::runtime_error("ping printed no summary: " + out);
  return {std::stoi(m[1]), std::stoi(m[2])};
}

double ImpairLab::iperf_gbps(int seconds) const {
  const int port = 5201;
  LaunchSpec server;
  server.argv = {"iperf3", "-s", "-p", std::to_string(port), "-B", r1().ipv4};
  server.netns_fd = r1().netns_fd;
  server.label = "iperf3 server";
  server.stdout_stream = Redirect::null();
  server.stderr_stream = Redirect::file(tmp_.file("iperf-server.err"));
  Process srv = Process::launch(server);
  for (int i = 0; i < 100 && !port_listening(r1().netns_fd, port); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string out =
      run_client({"iperf3", "-c", r1().ipv4, "-p", std::to_string(port), "-t",
                  std::to_string(seconds), "-J"},
                 r0().netns_fd, tmp_.file("iperf.json"), std::chrono::seconds(seconds + 30));
  srv.terminate();
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.contains("end") || !json["end"].contains("sum_received")) {
    throw std::runtime_error("iperf3 failed: " + out);
  }
  return json["end"]["sum_received"]["bits_per_second"].get<double>() / 1e9;
}

}  // namespace fabriclab::runner::bench
