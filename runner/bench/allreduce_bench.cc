#include "runner/bench/allreduce_bench.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <regex>
#include <stdexcept>
#include <thread>

#include "common/allreduce_algorithms.h"
#include "common/input_error.h"
#include "common/temp_dir.h"
#include "netem/impairment.h"
#include "netem/spec_parse.h"
#include "runner/bench/allreduce_table.h"
#include "runner/process/iperf_client.h"
#include "runner/bench/pytorch_baseline.h"
#include "runner/bench/rank_wait.h"
#include "runner/bench/step_rate.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "runner/process/stop_signals.h"
#include "runner/topology/lab_network.h"
#include "runner/topology/topology.h"
#include "runner/topology/user_namespace.h"
#include "runner/workload/message_sizes.h"

namespace fabriclab::runner::bench {
namespace {

constexpr int kRendezvousPort = 29500;  // in rank 0's own, fresh namespace: always free
// The baseline's store, after fabriclab's: a port of its own, so no socket of
// the first rendezvous still in TIME_WAIT can be in the way.
constexpr int kBaselineRendezvousPort = 29501;

// What only the namespace bench refuses: RoCE (its ranks are in
// namespaces) and more ranks than one machine's namespaces hold here.
void validate_for_namespaces(const AllreduceBenchOptions& o) {
  check_allreduce_options(o);
  if (o.transport == "roce")
    throw InputError(
        "--transport roce: without --hosts the bench's ranks run in network namespaces, and "
        "SoftRoCE (rxe) cannot send from an interface in one on Linux 6.1 (doc/roce.md, section "
        "2). Run it in host mode, on each of two hosts with rdma_rxe: expected `fabriclab bench "
        "allreduce --hosts A,B --iface IF --transport roce`");
  if (o.transport != "tcp") throw InputError("--transport must be tcp or roce");
  if (!o.baseline.empty() && o.baseline != "pytorch")
    throw InputError("--baseline " + o.baseline + ": expected pytorch (or none)");
  if (o.ranks < 2 || o.ranks > 16) throw InputError("--ranks must be in 2..16");
}

// The sweep both rank programs take, ours and PyTorch's: the same sizes,
// iterations, check, results file and time limit.
std::vector<std::string> sweep_args(const AllreduceBenchOptions& o,
                                    const std::vector<int64_t>& sizes, const std::string& results) {
  std::string size_list;
  for (int64_t s : sizes) size_list += (size_list.empty() ? "" : ",") + std::to_string(s);
  return {"--sizes", size_list, "--iters", std::to_string(o.iters), "--warmup",
          std::to_string(o.warmup), "--check", std::to_string(o.check), "--results", results,
          "--timeout", std::to_string(o.timeout_s)};
}

std::vector<std::string> rank_argv(const AllreduceBenchOptions& o,
                                   const std::vector<int64_t>& sizes, const std::string& results) {
  std::vector<std::string> argv = {o.program, "bench", "allreduce-rank"};
  for (std::string& arg : sweep_args(o, sizes, results)) argv.push_back(std::move(arg));
  for (const std::string& arg :
       {std::string("--channels"), std::to_string(o.channels), std::string("--algorithm"), o.algorithm})
    argv.push_back(arg);
  if (o.wrong_reduction) argv.push_back("--wrong-reduction");
  if (o.segment_bytes > 0) {
    argv.push_back("--segment-bytes");
    argv.push_back(std::to_string(o.segment_bytes));
  }
  return argv;
}

// Ctrl-C, SIGTERM, SIGHUP: unwind (ranks, impairment, namespaces go through
// their destructors) instead of dying with them in place.
void throw_if_stopped() {
  if (StopSignals::stop_requested())
    throw std::runtime_error("stopped by signal " + std::to_string(StopSignals::stop_signal()) +
                             "; everything it created is removed");
}

// --baseline-script when given (tests), else the repo's.
std::string baseline_script(const AllreduceBenchOptions& o) {
  return o.baseline_script.empty() ? default_gloo_baseline_script() : o.baseline_script;
}

std::vector<std::string> baseline_argv(const AllreduceBenchOptions& o,
                                       const std::vector<int64_t>& sizes,
                                       const std::string& results) {
  std::vector<std::string> argv = {o.python, baseline_script(o)};
  for (std::string& arg : sweep_args(o, sizes, results)) argv.push_back(std::move(arg));
  return argv;
}

// One kind of rank the bench launches in every namespace: fabriclab's own,
// or the PyTorch baseline's.
struct RankKind {
  std::string stem;   // file names in the temporary folder: "<stem><rank>.jsonl"
  std::string label;  // "allreduce rank", for messages
  int port = kRendezvousPort;
  bool gloo_socket_ifname = false;  // set GLOO_SOCKET_IFNAME to the rank's lab device
  std::function<std::vector<std::string>(const std::string& results)> argv;
};

// Launches one rank of `kind` per namespace, started the same way (torchrun's
// environment, the lab address), waits for all; throws with the failing
// rank's output. Returns each rank's results file.
std::vector<std::string> run_ranks(const AllreduceBenchOptions& o, const LabNetwork& network,
                                   const Topology& topology, Ledger& ledger, const TempDir& tmp,
                                   const RankKind& kind) {
  std::vector<Process> ranks;
  std::vector<std::string> results, logs;
  for (const LocalRank& r : network.local_ranks()) {
    results.push_back(tmp.file(kind.stem + std::to_string(r.rank) + ".jsonl"));
    logs.push_back(tmp.file(kind.stem + std::to_string(r.rank) + ".log"));
    LaunchSpec spec;
    spec.argv = kind.argv(results.back());
    spec.env = torchrun_environment(network.master_addr(), kind.port, r.rank,
                                    network.world_size(), r.local_rank, r.local_world_size);
    spec.env["FABRICLAB_BIND_ADDR"] = r.bind_addr;
    if (kind.gloo_socket_ifname) spec.env["GLOO_SOCKET_IFNAME"] = topology.rank(r.rank).device;
    spec.netns_fd = r.netns_fd;
    spec.netns_label = r.netns_label;
    spec.stdout_stream = Redirect::file(logs.back());
    spec.stderr_stream = Redirect::append(logs.back());
    spec.label = kind.label + " " + std::to_string(r.rank);
    ranks.push_back(Process::launch(spec, &ledger));
  }
  wait_for_ranks(ranks, logs,
                 std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s),
                 kind.label + "s did not finish within " + std::to_string(o.timeout_s) +
                     " s (--timeout)",
                 std::chrono::milliseconds(20), throw_if_stopped);
  return results;
}

// nccl-tests' default (-a 1): the time is the mean over ranks; #wrong is
// summed over ranks.
std::vector<AllreduceRow> combine(const std::vector<std::string>& results) {
  std::vector<AllreduceRow> rows;
  for (const std::string& path : results) {
    const std::vector<nlohmann::json> lines = read_json_lines(path);
    if (rows.empty()) rows.resize(lines.size());
    if (lines.size() != rows.size())
      throw std::runtime_error(path + ": " + std::to_string(lines.size()) + " sizes, expected " +
                               std::to_string(rows.size()));
    for (size_t i = 0; i < lines.size(); ++i) {
      AllreduceRow& row = rows[i];
      row.size_bytes = lines[i].at("size").get<int64_t>();
      row.count = lines[i].at("count").get<int64_t>();
      for (auto [key, place] :
           {std::pair{"out_of_place", &row.out_of_place}, std::pair{"in_place", &row.in_place}}) {
        place->time_us += lines[i].at(key).at("time_us").get<double>() / results.size();
        const int64_t wrong = lines[i].at(key).at("wrong").get<int64_t>();
        place->wrong = wrong < 0 ? -1 : std::max<int64_t>(place->wrong, 0) + wrong;
      }
    }
  }
  return rows;
}

// The baseline's rows into `rows` (same sizes, in order): the time the mean
// over ranks, #wrong the sum, as combine().
void combine_pytorch(const std::vector<std::string>& results, std::vector<AllreduceRow>& rows) {
  for (const std::string& path : results) {
    const std::vector<nlohmann::json> lines = read_json_lines(path);
    if (lines.size() != rows.size())
      throw std::runtime_error(path + ": " + std::to_string(lines.size()) + " sizes, expected " +
                               std::to_string(rows.size()));
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].at("size").get<int64_t>() != rows[i].size_bytes)
        throw std::runtime_error(path + ": line " + std::to_string(i + 1) + " has size " +
                                 lines[i].at("size").dump() + ", expected " +
                                 std::to_string(rows[i].size_bytes));
      if (!rows[i].pytorch) rows[i].pytorch = AllreducePlace{};
      AllreducePlace& place = *rows[i].pytorch;
      place.time_us += lines[i].at("in_place").at("time_us").get<double>() / results.size();
      const int64_t wrong = lines[i].at("in_place").at("wrong").get<int64_t>();
      place.wrong = wrong < 0 ? -1 : std::max<int64_t>(place.wrong, 0) + wrong;
    }
  }
}

std::string describe_impairment(const AllreduceBenchOptions& o, const netem::Backend& backend) {
  std::string links;
  for (const std::string& l : o.links) links += (links.empty() ? "" : ",") + l;
  return o.impair + " on links " + links + " (backend " + backend.name() + ")";
}

}  // namespace

void check_allreduce_options(const AllreduceBenchOptions& o) {
  if (o.min_bytes < 1) throw InputError("-b/--minbytes must be >= 1");
  if (o.max_bytes < o.min_bytes)
    throw InputError("-e/--maxbytes (" + std::to_string(o.max_bytes) +
                     ") must be >= -b/--minbytes (" + std::to_string(o.min_bytes) + ")");
  if (o.max_bytes > (int64_t{1} << 30)) throw InputError("-e/--maxbytes must be <= 1G");
  if (o.step_factor < 2) throw InputError("-f/--stepfactor must be >= 2");
  if (o.iters < 1) throw InputError("-n/--iters must be >= 1");
  if (o.warmup < 0) throw InputError("-w/--warmup_iters must be >= 0");
  if (o.transport != "tcp" && o.transport != "roce")
    throw InputError("--transport must be tcp or roce");
  if (o.channels < 1 || o.channels > 16) throw InputError("--channels must be in 1..16");
  if (!is_allreduce_algorithm(o.algorithm))
    throw InputError("--algorithm " + o.algorithm + ": expected " + allreduce_algorithm_list());
  if (o.segment_bytes < 0 || o.segment_bytes % 4 != 0)
    throw InputError("--segment-bytes must be a multiple of 4 (0: Gloo's default)");
  if (!o.impair.empty()) {
    try {
      netem::parse_spec(o.impair);
    } catch (const InputError& e) {
      throw InputError(std::string("--impair: ") + e.what());
    }
  }
}

std::vector<int64_t> allreduce_sizes(int64_t min_bytes, int64_t max_bytes, int64_t step_factor) {
  return message_sizes(min_bytes, max_bytes, step_factor);
}

std::vector<int> parse_link_words(const std::vector<std::string>& words, int ranks) {
  std::vector<int> result;
  static const std::regex kRank("r([0-9]+)");
  for (const std::string& word : words) {
    std::smatch m;
    if (word == "all") {
      for (int i = 0; i < ranks; ++i) result.push_back(i);
    } else if (std::regex_match(word, m, kRank) && std::stoi(m[1]) < ranks) {
      result.push_back(std::stoi(m[1]));
    } else {
      throw InputError("--links: '" + word + "' is not a rank of this lab: expected all or r0..r" +
                       std::to_string(ranks - 1));
    }
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

int run_allreduce_bench(const AllreduceBenchOptions& o) {
  validate_for_namespaces(o);
  const std::vector<int> link_ranks = parse_link_words(o.links, o.ranks);
  std::string why;
  enter_rootless_namespace_if_needed(&why);
  if (!why.empty()) spdlog::info("{}", why);
  StopSignals::install();

  const std::vector<int64_t> sizes = allreduce_sizes(o.min_bytes, o.max_bytes, o.step_factor);
  TempDir tmp("fabriclab-bench-allreduce");
  std::string torch_version;  // before the lab: a missing python3-torch is exit 2, nothing built
  if (o.baseline == "pytorch")
    torch_version = check_pytorch_baseline(o.python, baseline_script(o), tmp);
  Ledger ledger(make_run_id());
  TopologySpec spec;
  spec.ranks = o.ranks;
  spec.run_id = ledger.run_id();
  spec.segmentation_offload = o.segmentation_offload;
  const std::unique_ptr<Topology> topology = Topology::build(spec, ledger);
  const NamespaceNetwork network(*topology);

  AllreduceReport report;
  report.run_id = ledger.run_id();
  report.ranks = o.ranks;
  report.transport = "gloo tcp, " + std::to_string(o.channels) + " channel(s) per rank, " +
                     o.algorithm;
  std::unique_ptr<netem::Backend> backend;
  std::vector<std::unique_ptr<netem::Applied>> applied;  // removed before the topology
  if (!o.impair.empty()) {
    backend = netem::make_backend(netem::parse_backend_kind(o.backend), &why);
    spdlog::info("{}", why);
    const netem::Spec impairment = netem::parse_spec(o.impair);
    for (const netem::Target& t : network.impairment_targets(link_ranks, backend->link_direction()))
      applied.push_back(backend->apply(t, impairment));
    for (const auto& a : applied) spdlog::info("impairment: {}", a->describe());
    throw_if_stopped();
    report.impairment = describe_impairment(o, *backend);
  }

  const RankNetwork& r0 = topology->rank(0);
  const RankNetwork& r1 = topology->rank(1);
  spdlog::info("measuring the line rate: iperf3 -t {} from {} to {}", o.iperf_seconds, r0.netns,
               r1.ipv4);
  const IperfEnds ends{r0.netns_fd, r1.netns_fd, r1.ipv4};
  report.line.gbit_per_s = iperf_gbps(ends, o.iperf_seconds, tmp);
  // An allreduce sends and receives at once: what the link carries both ways
  // is context for the busbw (doc/allreduce_bench.md).
  report.line.bidir_gbit_per_s = iperf_gbps(ends, o.iperf_seconds, tmp, 5201, true);
  throw_if_stopped();  // a signal during iperf3 lets it finish (seconds), then stops here
  report.line.measured_how = "iperf3 TCP, one flow, -t " + std::to_string(o.iperf_seconds) +
                             ", rank 0 -> rank 1 (" + r1.ipv4 + ")";

  spdlog::info("allreduce: {} ranks, {} sizes from {} to {} bytes, {} iters after {} warmup",
               o.ranks, sizes.size(), sizes.front(), sizes.back(), o.iters, o.warmup);
  const RankKind ours{"rank", "allreduce rank", kRendezvousPort, false,
                      [&](const std::string& results) { return rank_argv(o, sizes, results); }};
  report.rows = combine(run_ranks(o, network, *topology, ledger, tmp, ours));
  if (o.baseline == "pytorch") {
    // After fabriclab's ranks have ended: the two never share the cores.
    spdlog::info("baseline: PyTorch {} torch.distributed.all_reduce (gloo), same sizes",
                 torch_version);
    const RankKind pytorch{
        "pytorch-rank", "pytorch allreduce rank", kBaselineRendezvousPort, true,
        [&](const std::string& results) { return baseline_argv(o, sizes, results); }};
    combine_pytorch(run_ranks(o, network, *topology, ledger, tmp, pytorch), report.rows);
    report.pytorch = "PyTorch " + torch_version + " torch.distributed.all_reduce (gloo, in place)";
  }

  if (o.json)
    std::printf("%s\n", allreduce_report_json(report).dump(2).c_str());
  else
    std::printf("%s", format_allreduce_table(report).c_str());
  std::fflush(stdout);
  return total_wrong(report) > 0 || pytorch_wrong(report) > 0 ? 1 : 0;
}

}  // namespace fabriclab::runner::bench
