#include "runner/process/iperf_client.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/file_text.h"
#include "common/scoped_netns.h"
#include "runner/process/process.h"

namespace fabriclab::runner {
namespace {

}  // namespace

bool port_listening(int netns_fd, int port) {
  std::string tcp;
  {
    ScopedNetns in_ns(netns_fd);
    tcp = read_file_text("/proc/thread-self/net/tcp");
  }
  char needle[32];
  std::snprintf(needle, sizeof needle, ":%04X 00000000:0000 0A", port);
  return tcp.find(needle) != std::string::npos;
}

std::string run_client(const std::vector<std::string>& argv, int netns_fd,
                       const std::string& out_path, int timeout_s) {
  LaunchSpec spec;
  spec.argv = argv;
  spec.netns_fd = netns_fd;
  spec.label = argv.front();
  spec.stdout_stream = Redirect::file(out_path);
  spec.stderr_stream = Redirect::append(out_path);
  Process p = Process::launch(spec);
  if (!p.wait_for(std::chrono::seconds(timeout_s))) {
    p.terminate();
    throw std::runtime_error(argv.front() + " did not finish within " + std::to_string(timeout_s) +
                             " s: " + read_file_text(out_path));
  }
  return read_file_text(out_path);
}

namespace {

// Runs an iperf3 server in the receiver's namespace and the client in the
// sender's; returns the client's -J output, parsed.
nlohmann::json run_iperf(const IperfEnds& ends, int seconds, const TempDir& tmp, int port,
                         bool bidir) {
  LaunchSpec server;
  server.argv = {"iperf3", "-s", "-p", std::to_string(port), "-B", ends.receiver_addr};
  server.netns_fd = ends.receiver_netns_fd;
  server.label = "iperf3 server";
  server.stdout_stream = Redirect::null();
  server.stderr_stream = Redirect::file(tmp.file("iperf-server.err"));
  Process srv = Process::launch(server);
  for (int i = 0; i < 100 && !port_listening(ends.receiver_netns_fd, port); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::vector<std::string> argv = {
      "iperf3", "-c", ends.receiver_addr, "-p", std::to_string(port), "-t", std::to_string(seconds),
      "-J"};
  if (bidir) argv.push_back("--bidir");
  const std::string out =
      run_client(argv, ends.sender_netns_fd, tmp.file("iperf.json"), seconds + 30);
  srv.terminate();
  auto json = nlohmann::json::parse(out, nullptr, false);
  if (json.is_discarded() || !json.contains("end") || !json["end"].contains("sum_received")) {
    throw std::runtime_error("iperf3 failed: " + out);
  }
  return json;
}

}  // namespace

double iperf_gbps(const IperfEnds& ends, int seconds, const TempDir& tmp, int port, bool bidir) {
  const nlohmann::json json = run_iperf(ends, seconds, tmp, port, bidir);
  const double forward = json["end"]["sum_received"]["bits_per_second"].get<double>();
  if (!bidir) return forward / 1e9;
  const auto& reverse = json["end"]["sum_received_bidir_reverse"];
  if (!reverse.contains("bits_per_second")) throw std::runtime_error("iperf3 --bidir: no reverse");
  return (forward + reverse["bits_per_second"].get<double>()) / 2 / 1e9;
}

IperfFlow iperf_flow(const IperfEnds& ends, int seconds, const TempDir& tmp, int port) {
  const nlohmann::json json = run_iperf(ends, seconds, tmp, port, false);
  const nlohmann::json& end = json["end"];
  IperfFlow flow;
  flow.goodput_gbps = end["sum_received"].value("bits_per_second", 0.0) / 1e9;
  flow.seconds = end["sum_received"].value("seconds", 0.0);
  flow.bytes_sent = end.value("sum_sent", nlohmann::json::object()).value("bytes", 0.0);
  flow.retransmits = end.value("sum_sent", nlohmann::json::object()).value("retransmits", int64_t{0});
  flow.mss_bytes = json.value("start", nlohmann::json::object()).value("tcp_mss_default", int64_t{0});
  return flow;
}

}  // namespace fabriclab::runner
