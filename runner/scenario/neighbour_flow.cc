#include "runner/scenario/neighbour_flow.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/file_text.h"
#include "runner/process/iperf_client.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {
namespace {

constexpr int kFirstPort = 5301;  // the flow probe has iperf3's 5201
constexpr int kLongest_s = 86400;  // the client runs until stopped

std::optional<LocalRank> local_rank(const LabNetwork& network, int rank) {
  for (const LocalRank& local : network.local_ranks())
    if (local.rank == rank) return local;
  return std::nullopt;
}

// Mb/s over the server's report's intervals, each once (by its start).
std::optional<double> received_mbps(const std::string& server_json) {
  const auto json = nlohmann::json::parse(server_json, nullptr, false);
  if (json.is_discarded() || !json.contains("intervals") || !json["intervals"].is_array())
    return std::nullopt;
  std::set<double> starts;
  double bytes = 0, seconds = 0;
  for (const nlohmann::json& interval : json["intervals"]) {
    const nlohmann::json sum = interval.value("sum", nlohmann::json::object());
    const double start = sum.value("start", -1.0);
    if (start < 0 || !starts.insert(start).second) continue;
    bytes += sum.value("bytes", 0.0);
    seconds += sum.value("seconds", 0.0);
  }
  if (seconds < 0.5) return std::nullopt;
  return bytes * 8 / seconds / 1e6;
}

}  // namespace

NeighbourFlows::NeighbourFlows(const LabNetwork& network,
                               const std::vector<NeighbourFlowSpec>& flows, const std::string& dir,
                               Ledger* ledger) {
  for (size_t i = 0; i < flows.size(); ++i) {
    const NeighbourFlowSpec& flow = flows[i];
    const std::optional<LocalRank> from = local_rank(network, flow.from);
    const std::optional<LocalRank> to = local_rank(network, flow.to);
    if (!from || !to)
      throw std::runtime_error("neighbour flow " + flow.name + ": ranks " + std::to_string(flow.from) +
                               " and " + std::to_string(flow.to) + " are not both on this machine");
    const int port = kFirstPort + static_cast<int>(i);
    Running r;
    r.spec = flow;
    r.output = dir + "/neighbour-" + flow.name + ".json";

    LaunchSpec server;
    r.server_output = dir + "/neighbour-" + flow.name + "-server.json";
    // -1: it ends with the client's test, and writes its report (-J) then.
    server.argv = {"iperf3", "-s", "-1", "-J", "-p", std::to_string(port), "-B", to->bind_addr};
    server.netns_fd = to->netns_fd;
    server.netns_label = to->netns_label;
    server.label = "iperf3 server of neighbour " + flow.name;
    server.stdout_stream = Redirect::file(r.server_output);
    server.stderr_stream = Redirect::append(r.server_output);
    r.server = Process::launch(server, ledger);
    for (int tries = 0; tries < 250 && !port_listening(to->netns_fd, port); ++tries)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!port_listening(to->netns_fd, port))
      throw std::runtime_error("neighbour flow " + flow.name + ": iperf3 does not listen on port " +
                               std::to_string(port) + " of rank " + std::to_string(flow.to));

    LaunchSpec client;
    client.argv = {"iperf3", "-c", to->bind_addr, "-p", std::to_string(port),
                   "-t", std::to_string(kLongest_s), "-J"};
    if (flow.rate_bytes_per_s) {
      client.argv.push_back("-b");
      client.argv.push_back(std::to_string(flow.rate_bytes_per_s * 8));
    }
    client.netns_fd = from->netns_fd;
    client.netns_label = from->netns_label;
    client.label = "iperf3 neighbour " + flow.name;
    client.stdout_stream = Redirect::file(r.output);
    client.stderr_stream = Redirect::append(r.output);
    r.client = Process::launch(client, ledger);
    running_.push_back(std::move(r));
  }
}

NeighbourFlows::~NeighbourFlows() { stop(); }

std::vector<nlohmann::json> NeighbourFlows::stop() {
  std::vector<nlohmann::json> events;
  for (Running& r : running_) {
    // SIGINT: iperf3 writes its report (sum_sent) before it exits.
    if (r.client.running()) r.client.signal(SIGINT);
    if (!r.client.wait_for(std::chrono::seconds(5))) r.client.terminate();
    if (!r.server.wait_for(std::chrono::seconds(3))) r.server.terminate(std::chrono::milliseconds(500));
    const NeighbourFlowSpec& f = r.spec;
    nlohmann::json event = {{"name", f.name},
                            {"from", "r" + std::to_string(f.from)},
                            {"to", "r" + std::to_string(f.to)},
                            {"rate_mbps", f.rate_bytes_per_s
                                              ? nlohmann::json(f.rate_bytes_per_s * 8 / 1e6)
                                              : nlohmann::json()},
                            {"seconds", nullptr},
                            {"bytes_sent", nullptr},
                            {"mbps", nullptr},
                            {"sent_mbps", nullptr},
                            {"retransmits", nullptr},
                            {"rtt_ms", nullptr},
                            {"max_rtt_ms", nullptr}};
    const std::string text = read_file_text(r.output);
    const auto json = nlohmann::json::parse(text, nullptr, false);
    const nlohmann::json sent = json.is_discarded()
                                    ? nlohmann::json()
                                    : json.value("end", nlohmann::json::object())
                                          .value("sum_sent", nlohmann::json());
    if (!sent.is_object() || sent.value("seconds", 0.0) <= 0) {
      event["error"] = "iperf3 reported nothing: " + text.substr(0, 300);
    } else {
      const double seconds = sent.value("seconds", 0.0);
      const double bytes = sent.value("bytes", 0.0);
      event["seconds"] = seconds;
      event["bytes_sent"] = bytes;
      event["sent_mbps"] = bytes * 8 / seconds / 1e6;
      // What arrived: the receiver's whole one-second intervals (an
      // interrupted iperf3 server reports no end of its own, and may repeat
      // its last interval); the sender's count would include what was still
      // in flight or held at a paused link when it stopped.
      if (const auto received = received_mbps(read_file_text(r.server_output)))
        event["mbps"] = *received;
      else
        event["error"] = "the iperf3 server reported no whole second";
      event["retransmits"] = sent.value("retransmits", int64_t{0});
      // The sender's smoothed round trip, as iperf3 samples it once a second
      // (tcpi_rtt, us): time its packets waited anywhere on the path.
      const nlohmann::json streams = json["end"].value("streams", nlohmann::json::array());
      if (streams.is_array() && !streams.empty() && streams[0].contains("sender")) {
        const nlohmann::json& sender = streams[0]["sender"];
        if (sender.contains("mean_rtt")) event["rtt_ms"] = sender.value("mean_rtt", 0.0) / 1000;
        if (sender.contains("max_rtt")) event["max_rtt_ms"] = sender.value("max_rtt", 0.0) / 1000;
      }
    }
    events.push_back(std::move(event));
  }
  running_.clear();
  return events;
}

}  // namespace fabriclab::runner
