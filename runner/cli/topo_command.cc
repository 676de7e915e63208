// `fabriclab topo LAB`: the lab's network as a table -- hosts and their
// ranks, switches, links, and the path each pair of ranks takes with its IP
// hops (runner/topology/fabric_view.h) -- without building anything. With
// --check it builds the network in namespaces, as `run` would, runs the real
// traceroute from every rank to every other, and compares the hops it lists
// with the drawn path's; then removes everything (exit 1 on a mismatch).
#include <CLI/CLI.hpp>
#include <spdlog/fmt/fmt.h>

#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "common/input_error.h"
#include "common/temp_dir.h"
#include "runner/cli/commands.h"
#include "runner/lab/lab_definition.h"
#include "runner/lab/scenario_paths.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/link/link_setting.h"
#include "runner/process/iperf_client.h"
#include "runner/topology/fabric_paths.h"
#include "runner/topology/fabric_view.h"
#include "runner/topology/topology.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::cli {
namespace {

struct TopoOptions {
  std::string lab;
  std::string labs_dir;
  bool check = false;
};

// The hop lines of `traceroute -n` output: " 1  10.77.0.2  0.051 ms".
int traceroute_hops(const std::string& output) {
  std::istringstream lines(output);
  int hops = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    int n = 0;
    if (words >> n && n > 0) hops = n;
  }
  return hops;
}

// Builds the lab network and compares traceroute with the drawn paths.
int check_with_traceroute(const runner::LabDefinition& lab, const runner::FabricGraph& graph) {
  std::string why;
  runner::enter_rootless_namespace_if_needed(&why);
  const std::string run_id = runner::make_run_id();
  runner::Ledger ledger(run_id);
  const auto topology = runner::Topology::build(
      {lab.ranks, run_id, "10.77.0.0", lab.fabric.kind, lab.fabric.segmentation_offload}, ledger);
  const TempDir tmp("fabriclab-topo");
  const int checked = std::min(topology->size(), 8);
  int mismatches = 0;
  std::cout << fmt::format("\ntraceroute -n inside the lab's namespaces ({} ranks{}):\n", checked,
                           checked < topology->size() ? ", the first 8" : "");
  for (int a = 0; a < checked; ++a) {
    for (int b = 0; b < checked; ++b) {
      if (a == b) continue;
      const runner::FabricPath path =
          runner::fabric_path(graph, runner::host_of_rank(graph, a), runner::host_of_rank(graph, b));
      const std::string out = runner::run_client(
          {"traceroute", "-n", "-q", "1", "-w", "1", "-m", "16", topology->rank(b).ipv4},
          topology->rank(a).netns_fd, tmp.file("traceroute.out"), 40);
      const int hops = traceroute_hops(out);
      const bool same = hops == path.ip_hops();
      mismatches += same ? 0 : 1;
      std::cout << fmt::format("  r{} -> r{} ({}): traceroute {} hop{}, drawn {}  {}\n", a, b,
                               topology->rank(b).ipv4, hops, hops == 1 ? "" : "s", path.ip_hops(),
                               same ? "ok" : "MISMATCH");
    }
  }
  std::cout << (mismatches == 0 ? "traceroute agrees with every drawn path\n"
                                : fmt::format("{} path(s) differ from traceroute\n", mismatches));
  return mismatches == 0 ? 0 : 1;
}

// Each scenario with a placement: its ranks per host, and the path of each
// hop of its ring (rank K to K+1, where Gloo's ring allreduce sends).
std::string format_placements(const runner::LabDefinition& lab) {
  std::string out;
  for (const runner::ScenarioDefinition& s : lab.scenarios) {
    if (s.placement.empty()) continue;
    if (out.empty()) out = "\nplacements (scenario: host of each rank; the ring's hops)\n";
    std::map<std::string, std::string> on_host;
    for (int rank = 0; rank < s.ranks; ++rank)
      on_host[runner::host_of_job_rank(s, rank)] += " " + std::to_string(rank);
    std::string hosts;
    for (const auto& [host, ranks] : on_host) hosts += fmt::format("  {}: ranks{}", host, ranks);
    out += fmt::format("  {}:{}\n", s.name, hosts);
    for (int rank = 0; rank < s.ranks && s.ranks > 1; ++rank) {
      const int next = (rank + 1) % s.ranks;
      const runner::FabricPath path = runner::job_rank_path(lab, s, rank, next);
      std::string nodes;
      for (const std::string& n : path.nodes) nodes += (nodes.empty() ? "" : " - ") + n;
      out += fmt::format("    rank {} -> {}: {}\n", rank, next,
                         path.nodes.size() == 1
                             ? "loopback on " + nodes + " (no fabric)"
                             : fmt::format("{} ({} switch{})", nodes, path.switches,
                                           path.switches == 1 ? "" : "es"));
    }
  }
  return out;
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto o = std::make_shared<TopoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topo",
      "Show a lab's network: hosts and their ranks, switches, links, and each pair of ranks' "
      "path and IP hops (--check: build it and compare with traceroute)");
  cmd->add_option("lab", o->lab, "Lab number or folder name, e.g. 05")->required();
  cmd->add_option("--labs", o->labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  cmd->add_flag("--check", o->check,
                "Build the network in namespaces and compare each path with traceroute's hops "
                "(needs root or user namespaces, and traceroute)");
  cmd->footer("Example: fabriclab topo 05 --check");
  cmd->callback([o] {
    const std::string labs = o->labs_dir.empty() ? runner::default_labs_dir() : o->labs_dir;
    const runner::LabDefinition lab = runner::load_lab(runner::find_lab_file(labs, o->lab));
    const runner::FabricGraph graph = runner::draw_fabric(lab.fabric.kind, lab.ranks);
    std::cout << fmt::format("Lab {}: {}\n", lab.id, lab.title) << runner::format_fabric(graph);
    for (const std::string& key : runner::link_setting_keys(runner::SettingScope::kFabric)) {
      const auto value = lab.fabric.link_settings.find(key);
      const std::string shown = value == lab.fabric.link_settings.end()
                                    ? ""
                                    : runner::find_link_setting(key)->describe_on_fabric(value->second);
      if (!shown.empty()) std::cout << shown << "\n";
    }
    std::cout << format_placements(lab);
    if (o->check) {
      const int code = check_with_traceroute(lab, graph);
      if (code != 0) throw CLI::RuntimeError(code);
    }
  });
}

}  // namespace fabriclab::cli
