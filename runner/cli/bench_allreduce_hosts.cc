#include "runner/cli/bench_allreduce_hosts.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "common/input_error.h"
#include "common/temp_dir.h"
#include "netem/impairment.h"
#include "runner/bench/allreduce_host_lab.h"
#include "runner/bench/allreduce_table.h"
#include "runner/bench/step_rate.h"
#include "runner/cli/run_preparation.h"
#include "runner/host/host_roster.h"
#include "runner/host/host_run.h"
#include "runner/lab/lab_definition.h"
#include "runner/scenario/rdma_summary.h"

namespace fabriclab::cli {
namespace {

namespace bench = runner::bench;

// While it lives, what the process writes to stdout goes to stderr: the lab
// run's Console writes to std::cout, and the bench's stdout is its table.
class StdoutAside {
 public:
  StdoutAside() {
    std::cout.flush();
    std::fflush(stdout);
    saved_ = ::dup(STDOUT_FILENO);
    if (saved_ >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutAside() {
    std::cout.flush();
    std::fflush(stdout);
    if (saved_ < 0) return;
    ::dup2(saved_, STDOUT_FILENO);
    ::close(saved_);
  }
  StdoutAside(const StdoutAside&) = delete;
  StdoutAside& operator=(const StdoutAside&) = delete;

 private:
  int saved_ = -1;
};

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

std::vector<nlohmann::json> events_of(const std::vector<nlohmann::json>& events,
                                      const std::string& scenario) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& e : events)
    if (e.value("scenario", "") == scenario) out.push_back(e);
  return out;
}

// How the scenario ended, from its scenario_end event ("" when none).
std::string scenario_end(const std::vector<nlohmann::json>& events) {
  for (const nlohmann::json& e : events) {
    if (e.value("event", "") != "scenario_end") continue;
    const std::string message = e.value("message", "");
    return e.value("status", "") + (message.empty() ? "" : ": " + message);
  }
  return "";
}

// rxe's counters over the scenario: the lead has every host's, a follower
// its own (metrics.jsonl's rdma_counters events).
std::string rxe_note(const std::vector<nlohmann::json>& events, bool lead) {
  const nlohmann::json rdma = runner::rdma_summary(events, nullptr);
  if (rdma.is_null()) return "";
  const std::string device = rdma["hosts"][0].value("device", "");
  if (lead && rdma["hosts"].size() > 1)
    return fmt::format(
        "rxe ({} on every host): sent {} packets, received {}, lost {} (sent - received), "
        "NAKs {}, ACK timeouts {}",
        device, rdma["sent_pkts"].get<uint64_t>(), rdma["rcvd_pkts"].get<uint64_t>(),
        rdma["lost_pkts"].get<uint64_t>(), rdma["naks"].get<uint64_t>(),
        rdma["ack_timeouts"].get<uint64_t>());
  return fmt::format("rxe ({} on this host): sent {} packets, received {}, NAKs {}, ACK timeouts {}",
                     device, rdma["sent_pkts"].get<uint64_t>(), rdma["rcvd_pkts"].get<uint64_t>(),
                     rdma["naks"].get<uint64_t>(), rdma["ack_timeouts"].get<uint64_t>());
}

}  // namespace

int run_allreduce_bench_on_hosts(const bench::AllreduceBenchOptions& o,
                                 const HostBenchFlags& flags) {
  bench::check_allreduce_options(o);
  if (flags.capture && flags.output.empty())
    throw InputError("--capture: the pcap is written in the run directory, which is kept only "
                     "with --output (expected --output DIR with it)");
  runner::host::HostRunOptions host;
  host.hosts = runner::host::parse_host_list(flags.hosts);
  host.host_index = flags.host_index;
  host.port = flags.port;
  host.iface = flags.iface.empty()
                   ? runner::host::default_lab_interface(host.hosts, host.host_index)
                   : flags.iface;
  // One rank per host unless --ranks says otherwise (host mode divides them).
  const int ranks = flags.ranks_given ? o.ranks : static_cast<int>(host.hosts.size());
  if (ranks < 2 || ranks > 64)
    throw InputError("--ranks " + std::to_string(ranks) + ": expected 2..64 over the hosts");
  bench::parse_link_words(o.links, ranks);  // names what is wrong with --links
  if (!flags.output.empty()) require_writable_folder("--output", flags.output);

  const bench::HostBenchLab synthesized = bench::allreduce_host_lab(o, ranks);
  TempDir tmp("fabriclab-bench-hosts");
  const std::string folder = tmp.file(bench::kHostBenchLabFolder);
  std::filesystem::create_directories(folder);
  {
    std::ofstream out(folder + "/lab.toml");
    out << synthesized.toml;
    if (!out.flush()) throw std::runtime_error("cannot write " + folder + "/lab.toml");
  }
  const runner::LabDefinition lab = runner::load_lab(folder + "/lab.toml");

  host.lab.backend = netem::parse_backend_kind(o.backend);
  host.lab.output_dir = flags.output.empty() ? tmp.file("runs") : flags.output;
  host.lab.charts_in_terminal = false;
  host.lab.capture = flags.capture;
  runner::host::HostRunPlace place;
  int code = 0;
  {
    StdoutAside aside;
    code = runner::host::run_lab_on_hosts(lab, host, &place);
  }

  const std::vector<nlohmann::json> events =
      events_of(runner::read_json_lines(place.run_dir + "/metrics.jsonl"), synthesized.scenario);
  int ranks_seen = 0;
  bench::AllreduceReport report;
  report.rows = bench::allreduce_rows_from_events(events, synthesized.scenario, &ranks_seen);
  if (report.rows.empty())
    throw std::runtime_error("bench allreduce --hosts: no rank finished a size (scenario " +
                             synthesized.scenario + ", " + scenario_end(events) + "); the run: " +
                             (flags.output.empty() ? "kept only with --output" : place.run_dir));
  report.run_id = place.run_id;
  report.ranks = ranks;
  report.transport = (o.transport == "roce" ? "gloo ibverbs (RoCE)" : "gloo tcp") +
                     std::string(", ") + std::to_string(o.channels) + " channel(s) per rank, " +
                     o.algorithm;
  if (!o.impair.empty())
    report.impairment = o.impair + " on links " + joined(o.links, ",") + " (each host's " +
                        host.iface + ")";
  report.where = "host mode, hosts " + joined(host.hosts, ", ") + " on " + host.iface;
  if (!place.lead)
    report.notes.push_back(fmt::format(
        "this host's ranks only ({} of {}): the lead, {}, prints every rank's", ranks_seen, ranks,
        host.hosts.front()));
  if (!flags.output.empty()) report.notes.push_back("recording: " + place.run_dir);
  if (const std::string rxe = rxe_note(events, place.lead); !rxe.empty())
    report.notes.push_back(rxe);
  report.line.unmeasured = "host mode runs no iperf3";

  if (o.json)
    std::printf("%s\n", bench::allreduce_report_json(report).dump(2).c_str());
  else
    std::printf("%s", bench::format_allreduce_table(report).c_str());
  std::fflush(stdout);
  if (code != 0) return code;
  return bench::total_wrong(report) > 0 ? 1 : 0;
}

}  // namespace fabriclab::cli
