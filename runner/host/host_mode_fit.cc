#include "runner/host/host_mode_fit.h"

#include <spdlog/fmt/fmt.h>

#include "common/input_error.h"
#include "runner/link/link_setting.h"

namespace fabriclab::runner::host {
namespace {

// "4 hosts, or 2 hosts with --ranks-per-host 2": every way to spread `ranks`
// over two or more hosts.
std::string ways_to_place(int ranks) {
  std::string ways;
  for (int hosts = ranks; hosts >= 2; --hosts) {
    if (ranks % hosts != 0) continue;
    const int per_host = ranks / hosts;
    ways += (ways.empty() ? "" : ", or ") + std::to_string(hosts) + " hosts" +
            (per_host == 1 ? "" : " with --ranks-per-host " + std::to_string(per_host));
  }
  return ways;
}

// What a scenario needs that host mode cannot give; "" = nothing. Its
// settings say for themselves (LinkSettingKind::in_host_mode).
std::string unhostable_need(const ScenarioDefinition& s) {
  for (const auto& [key, value] : s.every_link_setting()) {
    const HostModePolicy policy =
        find_link_setting(key)->in_host_mode(SettingScope::kScenario, value);
    if (policy.action == HostModeAction::kRefuse) return policy.reason;
  }
  if (!s.neighbours.empty())
    return "neighbour flows between ranks of the lab's switch (neighbours)";
  if (s.link_fault && s.link_fault->kind == LinkFaultKind::kDown)
    return "a link that fails while the job runs (link_fault): the lab's switch sets its port "
           "down, and a host's own interface is not the runner's to take down";
  if (s.link_fault)
    return "an impairment that changes while the job runs (link_fault \"impair ...\"): host "
           "mode does not carry out link faults";
  return "";
}

// A fabric of routers, or a fabric setting whose kind refuses host mode
// (LinkSettingKind::in_host_mode: the hosts' links, the routers' uplinks).
void check_fabric(const LabDefinition& lab) {
  std::string refused, first_reason;
  for (const auto& [key, value] : lab.fabric.link_settings) {
    const HostModePolicy policy = find_link_setting(key)->in_host_mode(SettingScope::kFabric, value);
    if (policy.action != HostModeAction::kRefuse) continue;
    refused += fmt::format(", {} \"{}\"", key, value.text());
    if (first_reason.empty()) first_reason = policy.reason;
  }
  if (lab.fabric.kind == "leaf_spine")
    throw InputError(fmt::format(
        "lab {} needs a {} fabric (top-of-rack and spine switches{}), which fabriclab builds from "
        "namespaces on one machine; host mode has only the machines' own network and cannot "
        "build or shape one. Run lab {} without --hosts",
        lab.id, lab.fabric.kind, refused, lab.id));
  if (!first_reason.empty())
    throw InputError(fmt::format("lab {} {}. Run lab {} without --hosts", lab.id, first_reason, lab.id));
}

void check_scenarios(const LabDefinition& lab,
                     const std::vector<const ScenarioDefinition*>& scenarios) {
  std::string refused, runnable;
  for (const ScenarioDefinition* s : scenarios) {
    const std::string need = unhostable_need(*s);
    if (!need.empty()) refused += fmt::format("\n  {}: {}", s->name, need);
  }
  if (refused.empty()) return;
  for (const ScenarioDefinition& s : lab.scenarios)
    if (unhostable_need(s).empty()) runnable += " --scenario " + s.name;
  throw InputError(fmt::format(
      "lab {}: host mode cannot run these scenarios, whose switch exists only in namespace "
      "mode:{}\nrun them without --hosts{}",
      lab.id, refused, runnable.empty() ? "" : "; on the hosts, run only the others:" + runnable));
}

// Host h runs ranks h*K .. h*K+K-1: a scenario on K ranks or fewer has
// them all on the first host, talking over its loopback, so link settings
// on it hold nothing and its numbers measure no network (lab 10's tail-2 on
// two hosts of eight ranks).
void check_scenarios_cross_hosts(const LabDefinition& lab,
                                 const std::vector<const ScenarioDefinition*>& scenarios,
                                 int per_host) {
  std::string refused;
  for (const ScenarioDefinition* s : scenarios) {
    const int n = s->ranks > 0 ? s->ranks : lab.ranks;
    if (n <= per_host && s->placement.empty() && !s->every_link_setting().empty())
      refused += fmt::format("\n  {}: its {} rank(s) all run on the first host", s->name, n);
  }
  if (refused.empty()) return;
  throw InputError(fmt::format(
      "lab {}: with {} ranks per host these scenarios' ranks share one host and talk over its "
      "loopback, where their link settings hold nothing:{}\nrun lab {} on {} hosts "
      "(--ranks-per-host 1), or without --hosts",
      lab.id, per_host, refused, lab.id, lab.ranks));
}

}  // namespace

int fit_lab_to_hosts(const LabDefinition& lab,
                     const std::vector<const ScenarioDefinition*>& scenarios, int hosts,
                     int ranks_per_host) {
  if (lab.ranks < 2)
    throw InputError(fmt::format(
        "lab {} runs {} rank: nothing crosses a network, so there is nothing to spread over "
        "hosts. Run it without --hosts",
        lab.id, lab.ranks));
  check_fabric(lab);
  check_scenarios(lab, scenarios);
  const int per_host = ranks_per_host > 0 ? ranks_per_host : lab.ranks / hosts;
  if (per_host < 1 || hosts * per_host != lab.ranks) {
    const std::string given =
        ranks_per_host > 0 ? fmt::format("{} hosts x {} rank(s) per host make {}", hosts, per_host,
                                         hosts * per_host)
        : per_host < 1     ? fmt::format("{} hosts are more than that", hosts)
                           : fmt::format("{} hosts cannot share them evenly", hosts);
    throw InputError(
        fmt::format("lab {} runs {} ranks; {}. Host mode needs hosts x ranks per host = {}: {}",
                    lab.id, lab.ranks, given, lab.ranks, ways_to_place(lab.ranks)));
  }
  check_scenarios_cross_hosts(lab, scenarios, per_host);
  return per_host;
}

}  // namespace fabriclab::runner::host
