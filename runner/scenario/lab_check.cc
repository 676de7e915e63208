#include "runner/scenario/lab_check.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include <functional>
#include <iostream>
#include <random>
#include <set>

#include "common/file_text.h"
#include "common/ping_output.h"
#include "runner/topology/netns_links.h"
#include "common/program_on_path.h"
#include "common/temp_dir.h"
#include "runner/cast/console.h"
#include "runner/cleanup/stale_runs.h"
#include "runner/lab/link_plan.h"
#include "runner/ledger/run_id.h"
#include "runner/link/link_setting.h"
#include "runner/process/iperf_client.h"
#include "runner/process/process.h"
#include "runner/process/stop_signals.h"
#include "runner/scenario/host_preflight.h"
#include "runner/scenario/impair_change.h"
#include "runner/scenario/lab_network_up.h"
#include "runner/scenario/lab_run.h"

namespace fabriclab::runner {

namespace {

constexpr int kPings = 10;

// A few pings from one rank's namespace to another's lab address.
struct PingResult {
  int from = 0, to = 0;
  int received = 0;
  double avg_rtt_ms = 0;
  std::string output;  // ping's own words, for a failure
};

// Pings every path at once. One after another, a lab of 8 ranks took 16 s
// per scenario (8 paths x 10 pings 0.2 s apart), 88 s for lab 11 under the
// stock-kernel VM; at once it is one path's 2 s. The pings are a few packets
// each, so paths that share a link do not delay each other's replies, and
// the delay check is an "at least" that sharing could not break anyway.
std::vector<PingResult> ping_paths(const LabNetwork& network,
                                   const std::vector<std::pair<int, int>>& paths,
                                   const TempDir& tmp) {
  const std::vector<LocalRank> ranks = network.local_ranks();
  std::vector<PingResult> results;
  std::vector<Process> pings;
  std::vector<std::string> out_paths;
  for (const auto& [from, to] : paths) {
    const LocalRank& a = ranks.at(static_cast<size_t>(from));
    const LocalRank& b = ranks.at(static_cast<size_t>(to));
    LaunchSpec spec;
    // -U: the round trip as the program sees it. By default ping reports the
    // kernel's arrival stamp of each reply, taken at the device, before an
    // ingress impairment (the userspace backend's) held it: it would miss the
    // delay on the way back.
    spec.argv = {"ping", "-n", "-U", "-c", std::to_string(kPings), "-i", "0.2", "-W", "2",
                 b.bind_addr};
    spec.netns_fd = a.netns_fd;
    spec.label = fmt::format("ping r{}->r{}", from, to);
    out_paths.push_back(tmp.file(fmt::format("ping-r{}-r{}.out", from, to)));
    spec.stdout_stream = Redirect::file(out_paths.back());
    spec.stderr_stream = Redirect::append(out_paths.back());
    pings.push_back(Process::launch(spec));
    PingResult r;
    r.from = from;
    r.to = to;
    results.push_back(r);
  }
  for (size_t i = 0; i < pings.size(); ++i) {
    PingResult& r = results[i];
    if (!pings[i].wait_for(std::chrono::seconds(30))) {
      pings[i].terminate();  // a hang guard: 10 pings take 2 s
      r.output = "ping did not finish within 30 s: " + read_file_text(out_paths[i]);
      continue;
    }
    r.output = read_file_text(out_paths[i]);
    const std::vector<double> rtts = ping_rtts_ms(r.output);
    r.received = static_cast<int>(rtts.size());
    for (double rtt : rtts) r.avg_rtt_ms += rtt / static_cast<double>(rtts.size());
  }
  return results;
}

// The rank pairs a scenario sends over: every impaired link's rank to the
// next one, its neighbour flows' ends, its flow probe's; clean scenarios r0
// to r1. Each once.
std::vector<std::pair<int, int>> paths_of(const ScenarioDefinition& s, const LinkPlan& plan,
                                          int world) {
  std::set<std::pair<int, int>> paths;
  std::vector<int> impaired;
  for (const LinkAssignment& a : plan.assignments)
    for (int rank : a.ranks) {
      impaired.push_back(rank);
      if (world > 1) paths.insert({rank, (rank + 1) % world});
    }
  for (const NeighbourFlowSpec& flow : s.neighbours) paths.insert({flow.from, flow.to});
  if (paths.empty() && world > 1) paths.insert({0, 1});
  return {paths.begin(), paths.end()};
}

// The delay a ping from `from` must see at least: each direction's impaired
// link's delay (a link "rN" delays what rank N sends).
double least_rtt_ms(const LinkPlan& plan, int from, int to) {
  double ms = 0;
  for (const LinkAssignment& a : plan.assignments) {
    const double delay_ms = find_link_setting(a.key)->added_delay_ms(a.value);
    for (int rank : a.ranks)
      if (rank == from || rank == to) ms += delay_ms;
  }
  return ms;
}

class ScenarioCheck {
 public:
  ScenarioCheck(const ScenarioDefinition& s, LabNetworkUp& up, Console& console, uint64_t seed)
      : s_(s), up_(up), console_(console), seed_(seed),
        plan_(plan_links(s, seed, up.network().world_size())) {}

  // True when everything applied, read back and carried traffic; the
  // scenario's settings are removed when it returns.
  bool run() {
    std::vector<std::unique_ptr<AppliedLinkSetting>> applied;
    std::vector<std::string> lines;
    for (const LinkAssignment& a : plan_.assignments) {
      const LinkSettingKind& kind = *find_link_setting(a.key);
      try {
        for (auto& one : kind.apply(a.value, a.ranks, up_.network(),
                                    kind.needs_backend() ? up_.backend() : nullptr)) {
          if (one->impairment()) own_impairments_.emplace_back(one->impairment(), a.value.text());
          applied.push_back(std::move(one));
        }
      } catch (const std::exception& e) {
        return fail(fmt::format("{} \"{}\" could not be applied: {}", a.key, a.value.text(),
                                e.what()));
      }
    }
    for (const auto& one : applied) {
      try {
        lines.push_back(one->read_back());
      } catch (const std::exception& e) {
        return fail(fmt::format("{}: read back: {}", one->describe(), e.what()));
      }
    }
    const TempDir tmp("fabriclab-check");
    std::string traffic;
    for (const PingResult& r :
         ping_paths(up_.network(), paths_of(s_, plan_, up_.network().world_size()), tmp)) {
      if (r.received == 0)
        return fail(fmt::format("no reply to {} pings from r{} to r{}: {}", kPings, r.from, r.to,
                                r.output));
      const double least = least_rtt_ms(plan_, r.from, r.to);
      if (r.avg_rtt_ms < 0.9 * least)
        return fail(fmt::format("r{} to r{}: round trip {:.1f} ms, but the delays on its links "
                                "add up to {:.0f} ms: the impairment is not in force",
                                r.from, r.to, r.avg_rtt_ms, least));
      traffic += fmt::format("{}r{}->r{} {}/{} rtt {:.1f} ms", traffic.empty() ? "" : ", ", r.from,
                             r.to, r.received, kPings, r.avg_rtt_ms);
    }
    if (s_.link_fault) {
      std::string why;
      const std::string fault = s_.link_fault->kind == LinkFaultKind::kDown
                                    ? check_link_fault(tmp, &why)
                                    : check_impair_change(&why);
      if (fault.empty()) return fail(why);
      traffic += "; " + fault;
    }
    if ((s_.flow_probe_s > 0 || !s_.neighbours.empty()) && !program_on_path("iperf3"))
      return fail("its flows run iperf3, which is not installed (apt install iperf3)");
    if (traffic.empty()) traffic = "one rank: no path to send over";
    console_.print(fmt::format("  {:<18} ok   {} setting(s) read back; {}\n", s_.name,
                               applied.size(), traffic));
    for (const std::string& line : lines) spdlog::debug("check {}: {}", s_.name, line);
    return true;
  }

 private:
  // The link fault once, without a job: its links' far ends down, a ping
  // from its first rank must get no reply; up again, it must. Returns what
  // it saw, or "" with `why`. The links are up again on every path out.
  std::string check_link_fault(const TempDir& tmp, std::string* why) {
    const auto refuse = [why](std::string reason) {
      *why = std::move(reason);
      return std::string();
    };
    if (!s_.fault_uplinks.empty()) return check_uplink_fault(tmp, why);
    const int world = up_.network().world_size();
    const std::vector<int> ranks = resolve_link_words(s_.links, seed_, world);
    const std::vector<LinkFarEnd> ends = up_.network().link_far_ends(ranks);
    if (ends.empty() || world < 2) return refuse("link_fault: no link of this lab to take down");
    const int from = ranks.front(), to = (ranks.front() + 1) % world;
    std::vector<std::unique_ptr<NetnsLinks>> sockets;
    for (const LinkFarEnd& end : ends)
      sockets.push_back(std::make_unique<NetnsLinks>(end.netns_fd, end.netns));
    struct Restore {
      std::vector<std::unique_ptr<NetnsLinks>>& sockets;
      const std::vector<LinkFarEnd>& ends;
      ~Restore() {
        for (size_t i = 0; i < ends.size(); ++i) {
          try {
            sockets[i]->set_up(ends[i].device);  // already up: the kernel accepts it again
          } catch (const std::exception& e) {
            spdlog::warn("check: {}", e.what());
          }
        }
      }
    } restore{sockets, ends};
    try {
      for (size_t i = 0; i < ends.size(); ++i) sockets[i]->set_down(ends[i].device);
    } catch (const std::exception& e) {
      return refuse(std::string("link_fault: could not take the link down: ") + e.what());
    }
    const PingResult down = ping_paths(up_.network(), {{from, to}}, tmp).front();
    if (down.received > 0)
      return refuse(fmt::format("link_fault: r{} to r{} still answered with its link down", from, to));
    for (size_t i = 0; i < ends.size(); ++i) sockets[i]->set_up(ends[i].device);
    const PingResult back = ping_paths(up_.network(), {{from, to}}, tmp).front();
    if (back.received == 0)
      return refuse(fmt::format("link_fault: no reply from r{} to r{} after the link came back: {}",
                                from, to, back.output));
    return fmt::format("link down: r{}->r{} 0/{}, up again: {}/{}", from, to, kPings,
                       back.received, kPings);
  }

  // The impairment change once, without a job, through the scenario's
  // backend (impair_change.h): changed on its links' targets and restored.
  // Returns what it did, or "" with `why`.
  std::string check_impair_change(std::string* why) {
    try {
      const std::vector<int> ranks =
          resolve_link_words(s_.links, seed_, up_.network().world_size());
      if (!up_.backend()) throw std::runtime_error("no impairment backend");
      std::vector<ImpairPlace> places;
      for (netem::Target& target :
           up_.network().impairment_targets(ranks, up_.backend()->link_direction())) {
        ImpairPlace place;
        place.target = std::move(target);
        places.push_back(std::move(place));
      }
      if (!own_impairments_.empty() && own_impairments_.size() != places.size())
        throw std::runtime_error("the scenario's impairment and the fault's are on different links");
      for (size_t i = 0; i < own_impairments_.size(); ++i) {
        places[i].own = own_impairments_[i].first;
        places[i].own_words = own_impairments_[i].second;
      }
      const size_t count = places.size();
      auto action = change_impairment(s_.link_fault->impair, std::move(places), {}, up_.backend());
      action->begin();
      action->end();
      return fmt::format("impairment changed to \"{}\" and restored on {} place(s)",
                         s_.link_fault->impair, count);
    } catch (const std::exception& e) {
      *why = std::string("link_fault: ") + e.what();
      return "";
    }
  }

  // An uplink's fault once, without a job: its spine's port down and the
  // ToRs' routes withdrawn, a ping from the first rack to the last must
  // still get replies (over the other spine); the port and routes back, it
  // must too. Everything is set back on every path out.
  std::string check_uplink_fault(const TempDir& tmp, std::string* why) {
    std::vector<UplinkFaultPlace> places;
    for (const std::string& name : s_.fault_uplinks) {
      std::optional<UplinkFaultPlace> place = up_.network().uplink_fault_place(name);
      if (!place) {
        *why = "link_fault: this lab network has no uplink " + name;
        return "";
      }
      places.push_back(std::move(*place));
    }
    const auto apply = [&places](bool up) {
      for (const UplinkFaultPlace& place : places) {
        NetnsLinks spine(place.down.netns_fd, place.down.netns);
        if (up) spine.set_up(place.down.device); else spine.set_down(place.down.device);
        for (const RouteChange& c : up ? place.restore : place.withdraw)
          NetnsLinks(c.netns_fd, c.netns).replace_route(c.destination, c.prefix_len, c.hops);
      }
    };
    struct Restore {
      const std::function<void(bool)> apply;
      ~Restore() {
        try {
          apply(true);  // already up: the kernel accepts it again
        } catch (const std::exception& e) {
          spdlog::warn("check: {}", e.what());
        }
      }
    } restore{apply};
    const int from = 0, to = up_.network().world_size() - 1;
    try {
      apply(false);
    } catch (const std::exception& e) {
      *why = std::string("link_fault: could not take the uplink down: ") + e.what();
      return "";
    }
    const PingResult around = ping_paths(up_.network(), {{from, to}}, tmp).front();
    if (around.received == 0) {
      *why = fmt::format("link_fault: r{} to r{}: no reply with the uplink down and its routes "
                         "withdrawn (the other spine should carry it): {}",
                         from, to, around.output);
      return "";
    }
    apply(true);
    const PingResult back = ping_paths(up_.network(), {{from, to}}, tmp).front();
    if (back.received == 0) {
      *why = fmt::format("link_fault: no reply from r{} to r{} after the uplink and its routes "
                         "came back: {}",
                         from, to, back.output);
      return "";
    }
    return fmt::format("uplink down, routes withdrawn: r{}->r{} {}/{}, back: {}/{}", from, to,
                       around.received, kPings, back.received, kPings);
  }

  bool fail(const std::string& why) {
    console_.print(fmt::format("  {:<18} FAILED  {}\n", s_.name, why));
    return false;
  }

  const ScenarioDefinition& s_;
  LabNetworkUp& up_;
  Console& console_;
  uint64_t seed_;
  LinkPlan plan_;
  // The scenario's own impairments, with their words, in the order applied.
  std::vector<std::pair<netem::Applied*, std::string>> own_impairments_;
};

}  // namespace

int check_lab(const LabCheckOptions& options) {
  const LabDefinition lab = load_lab(options.lab_file, options.quick);
  const auto scenarios = select_scenarios(lab, options.scenarios);
  refuse_what_this_host_cannot_run(lab, scenarios);
  StopSignals::install();
  clean_stale_runs_and_warn();

  Console console(std::cout);
  console.print(fmt::format("== check: lab {}: {} ==\n", lab.id, lab.title));
  LabNetworkUp up(lab, scenarios, options.backend, make_run_id(), console);
  const uint64_t seed = std::random_device{}();
  int failed = 0;
  for (const ScenarioDefinition* s : scenarios) {
    if (StopSignals::stop_requested()) return 1;
    if (!ScenarioCheck(*s, up, console, seed).run()) ++failed;
  }
  console.print(failed == 0
                    ? fmt::format("lab {}: every scenario applied, read back and carried traffic\n",
                                  lab.id)
                    : fmt::format("lab {}: {} of {} scenarios failed (above)\n", lab.id, failed,
                                  scenarios.size()));
  return failed == 0 ? 0 : 1;
}

}  // namespace fabriclab::runner
