#include "runner/host/host_run.h"

#include <net/if.h>
#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "common/input_error.h"
#include "runner/cleanup/impairment_guardian.h"
#include "runner/cleanup/interface_cleanup.h"
#include "runner/cleanup/stale_runs.h"
#include "runner/host/control_store.h"
#include "runner/host/host_mode_fit.h"
#include "runner/host/host_network.h"
#include "runner/host/host_outcomes.h"
#include "runner/host/peer_watch.h"
#include "runner/lab/lab_definition.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/link/link_setting.h"
#include "runner/process/stop_signals.h"
#include "runner/rdma/rxe_device.h"
#include "runner/rdma/softroce_support.h"
#include "runner/scenario/run_recorder.h"
#include "runner/scenario/measured_limits.h"
#include "runner/scenario/scenario_runner.h"
#include "runner/topology/network_settings.h"

namespace fabriclab::runner::host {
namespace {

using std::chrono::seconds;
// Time to get the command started on every host.
constexpr seconds kJoinTimeout{300};
// Hosts usually end a scenario within seconds of each other, but one whose
// ranks failed early may wait for the others up to their deadline; the slack
// covers teardown and a lead still collecting outcomes.
constexpr seconds kOutcomeSlack{60};
constexpr seconds kPeerSilentLimit{10};
// Barrier polls come every 100 ms: a second covers the last one's answer.
constexpr std::chrono::milliseconds kSettle{1000};
constexpr seconds kGoodbyeTimeout{15};

// Refuses a lab host mode cannot run (host_mode_fit.h) before this host's
// own place: every host of the run refuses it alike, saying what it needs.
HostRoster make_roster(const HostRunOptions& options, const LabDefinition& lab,
                       const std::vector<const ScenarioDefinition*>& scenarios) {
  HostRoster p;
  p.hosts = options.hosts;
  const int n = static_cast<int>(p.hosts.size());
  p.ranks_per_host = fit_lab_to_hosts(lab, scenarios, n, options.ranks_per_host);
  if (options.host_index >= n)
    throw InputError(
        fmt::format("--host-index {}: there are {} hosts (0..{})", options.host_index, n, n - 1));
  p.index = options.host_index >= 0 ? options.host_index
                                    : find_own_host_index(p.hosts, local_ipv4_addresses());
  return p;
}

// Why host mode skips scenario `s`, "" = it runs. Every host skips it alike
// (they all read the same lab), and says why. A scenario that places ranks
// on the lab network's hosts (`placement`) needs those hosts; in host mode
// each machine is one, with its own ranks. A setting host mode leaves out
// (LinkSettingKind::in_host_mode) says so itself.
std::string why_skipped_in_host_mode(const ScenarioDefinition& s) {
  if (!s.placement.empty())
    return "it places its ranks on the lab network's hosts; in host mode the machines are the "
           "hosts (--ranks-per-host)";
  for (const auto& [key, value] : s.every_link_setting()) {
    const HostModePolicy policy =
        find_link_setting(key)->in_host_mode(SettingScope::kScenario, value);
    if (policy.action == HostModeAction::kSkip) return policy.reason;
  }
  return "";
}

ScenarioOutcome skipped_in_host_mode(const std::string& why) {
  ScenarioOutcome outcome;
  outcome.status = rundir::ScenarioStatus::kSkipped;
  outcome.message = why;
  outcome.started_unix_s = outcome.ended_unix_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return outcome;
}

// Whether any scenario's workload runs over RoCE (allreduce transport = "roce").
bool needs_roce(const std::vector<const ScenarioDefinition*>& scenarios) {
  for (const auto* s : scenarios)
    if (s->workload.param("transport") == "roce") return true;
  return false;
}

std::string names_of(const std::vector<const ScenarioDefinition*>& scenarios) {
  std::string names;
  for (const auto* s : scenarios) names += (names.empty() ? "" : ",") + s->name;
  return names;
}

class HostLabRun {
 public:
  HostLabRun(const HostRunOptions& options, const LabDefinition& lab)
      : options_(options),
        lab_(lab),
        scenarios_(select_scenarios(lab, options.lab.scenarios)),
        roster_(make_roster(options, lab, scenarios_)),
        network_(roster_, options.iface) {
    if (::if_nametoindex(options.iface.c_str()) == 0)
      throw InputError("--iface " + options.iface + ": no such interface on this machine (expected one `ip -br addr` lists)");
    // The impairment goes on --iface: a wrong name would put it on another
    // interface (the management one, say) while lab traffic goes untouched.
    if (local_ipv4_addresses(options.iface).count(roster_.self()) == 0)
      throw InputError("--iface " + options.iface + ": this host's lab address " + roster_.self() +
                       " is not on it; give the interface that carries it (ip -br addr)");
  }

  // A host run SIGKILLed together with its guardian leaves its qdisc on
  // --iface, and this run's clean scenario would be measured through it.
  // Only fabriclab's objects go (runner/cleanup/interface_cleanup.h); a table that cannot
  // go belongs to a runner still running on this interface.
  void remove_leftover_impairment() {
    const InterfaceCleanup leftover = clean_interface("", options_.iface, /*dry_run=*/false);
    for (const std::string& removed : leftover.removed)
      spdlog::warn("--iface {}: left over from an earlier run: {}", options_.iface, removed);
    if (!leftover.ok) {
      std::string why;
      for (const std::string& action : leftover.actions) why += "; " + action;
      throw std::runtime_error("--iface " + options_.iface +
                               ": cannot start while fabriclab's impairment is on it" + why);
    }
  }

  int run(HostRunPlace* place) {
    refuse_roce_without_softroce();
    prepare_this_host();
    // The ledger is this machine's (its own id: several runners may share a
    // machine in tests); the run id in the recording is the lead's.
    Ledger ledger(make_run_id());
    const nlohmann::json run = join_the_run();

    RunRecorder recorder(lab_, options_.lab.output_dir, run["run_id"].get<std::string>(),
                         roster_.is_lead() ? "" : "-host" + std::to_string(roster_.index));
    if (place) *place = {recorder.dir(), run["run_id"].get<std::string>(), roster_.is_lead()};
    Console& console = recorder.console();
    console.print(describe_roster());
    std::string backend_why;
    const std::unique_ptr<netem::Backend> backend = choose_backend(console, backend_why);
    std::optional<ImpairmentGuardian> guardian;
    if (backend && backend->link_direction() == netem::Direction::kEgress)
      guardian.emplace(options_.iface);
    const NetworkSettings settings = show_own_network_settings(console);
    record_manifest(recorder, run, backend.get(), backend_why, settings);
    // The RoCE workload's device on --iface, for the whole run: in the
    // ledger before it exists, removed on every exit (rxe_device.h).
    std::optional<rdma::RxeDevice> rxe;
    if (needs_roce(scenarios_)) {
      rxe.emplace(options_.iface, &ledger);
      rdma_device_ = rxe->name();
      console.print(fmt::format("RoCE: RDMA device {} on {}{}\n", rxe->name(), options_.iface,
                                rxe->created() ? "" : " (the interface's own, used as it is)"));
      recorder.manifest()["rdma_device"] = rxe->name();
    }
    // The lead writes the recording: its predictions are the run's.
    if (roster_.is_lead())
      recorder.record_predictions(options_.lab.predictions, options_.lab.answers_path);
    watch_ = std::make_unique<PeerWatch>(store_->another_client(), kPeerSilentLimit);

    int exit_code = run_scenarios(run, backend.get(), ledger, recorder);
    if (!leave_the_run(console)) exit_code = 1;
    finish_recording(recorder);
    return exit_code;
  }

 private:
  // Signals, then what earlier runs left on this machine: their namespaces
  // and processes, and their impairment on --iface.
  // Before anything is built or joined: a RoCE lab on a kernel without
  // rdma_rxe would fail at `rdma link add`, after the other hosts joined.
  void refuse_roce_without_softroce() const {
    if (!needs_roce(scenarios_)) return;
    const rdma::SoftRoceSupport rxe = rdma::softroce_support();
    if (rxe.available) return;
    throw std::runtime_error("lab " + lab_.id + " cannot run on this host: its allreduce runs over "
                             "RoCE (transport = \"roce\") and this kernel has no SoftRoCE (" +
                             rxe.said + "); " + rdma::roce_needs(lab_.id));
  }

  void prepare_this_host() {
    StopSignals::install();
    clean_stale_runs_and_warn();
    remove_leftover_impairment();
  }

  // Connects to the control store (the lead serves it), agrees on the run
  // with the other hosts and waits until every one has joined.
  nlohmann::json join_the_run() {
    spdlog::info("host mode: this is {} of {}, the lead is {}; control store on port {}",
                 roster_.describe(roster_.index), roster_.hosts.size(), roster_.describe(0),
                 options_.port);
    store_ = std::make_unique<ControlStore>(roster_, options_.port, kJoinTimeout);
    nlohmann::json run = agree_on_run();
    store_->barrier("join", kJoinTimeout, "waiting for every host to join", stop_reason());
    return run;
  }

  // The impairment backend this run's scenarios need (null: none), said on
  // the console with why it was chosen (`why`).
  std::unique_ptr<netem::Backend> choose_backend(Console& console, std::string& why) {
    // No fabric settings: host mode refuses those it cannot give (host_mode_fit.h).
    auto backend = backend_for(scenarios_, {}, options_.lab.backend, &why);
    if (backend) console.print(fmt::format("impairments: {} backend ({})\n", backend->name(), why));
    return backend;
  }

  // This host's own settings for --iface, read only: a lab on real hosts
  // runs with what the machines have. Only the lead's reach run.json.
  NetworkSettings show_own_network_settings(Console& console) const {
    for (const auto& [key, value] : lab_.fabric.link_settings) {
      const HostModePolicy policy = find_link_setting(key)->in_host_mode(SettingScope::kFabric, value);
      if (policy.action == HostModeAction::kSkip) console.print(policy.reason + "\n");
    }
    NetworkSettings settings = read_network_settings(-1, options_.iface);
    settings.host = roster_.self();
    for (const LocalRank& local : network_.local_ranks()) settings.ranks.push_back(local.rank);
    console.print("network (this host's own settings, read only):\n" +
                  describe_network_settings({settings}));
    return settings;
  }

  // run.json's fields of a host mode run (a follower's stays local).
  void record_manifest(RunRecorder& recorder, const nlohmann::json& run,
                       const netem::Backend* backend, const std::string& backend_why,
                       const NetworkSettings& settings) const {
    recorder.manifest().update({{"seed", run["seed"]},
                                {"quick", options_.lab.quick},
                                {"mode", "host"},
                                {"hosts", roster_.hosts},
                                {"ranks_per_host", roster_.ranks_per_host},
                                {"iface", options_.iface},
                                {"privileges", ::geteuid() == 0 ? "root" : "user"},
                                {"backend", backend ? backend->name() : "none"},
                                {"backend_why", backend_why},
                                {"network",
                                 {{"backend", backend ? backend->name() : "none"},
                                  {"namespaces", network_settings_json({settings})}}}});
  }

  // Every scenario in turn, all hosts together: they start it at one
  // barrier, each runs its own ranks, and the lead merges the outcomes.
  // Returns the exit code: 1 when a scenario failed or the run stopped early.
  int run_scenarios(const nlohmann::json& run, netem::Backend* backend, Ledger& ledger,
                    RunRecorder& recorder) {
    Console& console = recorder.console();
    ScenarioContext context;  // the same for every scenario but its port
    context.lab = &lab_;
    context.network = &network_;
    context.backend = backend;
    context.ledger = &ledger;
    context.console = &console;
    context.run_dir = recorder.dir();
    context.external_failure = [this] { return watch_->problem(); };
    context.rdma_device = rdma_device_;
    context.rdma_host = roster_.self();
    // The lead's seed, the same on every host: `seed:` links pick alike.
    if (run["seed"].is_number_unsigned()) context.seed = run["seed"].get<uint64_t>();
    // --capture: this host's --iface, only what it exchanges with the lab hosts.
    context.capture = {options_.lab.capture, recorder.dir(), options_.iface, options_.hosts};
    int exit_code = 0;
    for (size_t i = 0; i < scenarios_.size(); ++i) {
      // Limits against an earlier scenario, from this host's view of its
      // time (the lead's is every host's merged; the hosts differ by the
      // moments their outcomes took to travel).
      const ResolvedLimits limits = resolve_limits(*scenarios_[i], measured_);
      if (!limits.line.empty()) console.print("   " + limits.line + "\n");
      const ScenarioDefinition& s = limits.scenario;
      const std::string key = "s" + std::to_string(i);
      try {
        store_->barrier(key + "/start", longest_deadline() + kOutcomeSlack,
                        "before scenario " + s.name, stop_reason());
      } catch (const std::exception& e) {
        stop_run(console, store_failure(e));
        return 1;
      }
      context.master_port = options_.port + 1 + static_cast<int>(i);
      const ScenarioOutcome outcome = share_outcome(key, s, run_here(s, context, recorder));
      if (outcome.status == rundir::ScenarioStatus::kCompleted)
        measured_[s.name] = outcome.ended_unix_s - outcome.started_unix_s;
      if (!recorder.end_scenario(s, outcome)) exit_code = 1;
      if (const std::optional<std::string> why = why_stop_after(i, outcome)) {
        stop_run(console, *why);
        return 1;
      }
    }
    return exit_code;
  }

  // This host's part of scenario `s`: its ranks, or why host mode skips it.
  ScenarioOutcome run_here(const ScenarioDefinition& s, const ScenarioContext& context,
                           RunRecorder& recorder) {
    // Let every host's last barrier request come back before any host
    // impairs the link it travels on.
    std::this_thread::sleep_for(kSettle);
    recorder.begin_scenario(s);
    if (!s.every_link_setting().empty())
      watch_->set_silent_limit(
          std::max(kPeerSilentLimit, seconds(static_cast<int64_t>(s.deadline_s))));
    const std::string skip = why_skipped_in_host_mode(s);
    ScenarioOutcome outcome = skip.empty() ? run_scenario(context, s) : skipped_in_host_mode(skip);
    // Our impairment is gone: from here on silence means a lost host again
    // (the others' impairments end at about the same time as ours).
    if (!s.every_link_setting().empty()) watch_->set_silent_limit(kPeerSilentLimit);
    return outcome;
  }

  // The scenario's outcome as the run records it: on the lead, every
  // host's merged; a follower posts its own to the lead.
  ScenarioOutcome share_outcome(const std::string& key, const ScenarioDefinition& s,
                                ScenarioOutcome own) {
    if (roster_.is_lead()) return collect(key, s, std::move(own));
    post(key, own);
    return own;
  }

  // Why the run ends after scenario `i` (nullopt: it goes on): Ctrl-C, or a
  // lost host or lead.
  std::optional<std::string> why_stop_after(size_t i, const ScenarioOutcome& outcome) const {
    // After the last scenario the other hosts leave as they finish: their
    // silence is no longer a problem.
    const bool last = i + 1 == scenarios_.size();
    const std::string problem = run_problem_.empty() && !last ? watch_->problem() : run_problem_;
    if (!StopSignals::stop_requested() && problem.empty()) return std::nullopt;
    return problem.empty() ? outcome.message : problem;
  }

  // Stops watching the others and says goodbye. False when this follower's
  // lead went before taking it (and nothing else already ended the run).
  bool leave_the_run(Console& console) {
    if (watch_) {
      for (int h : watch_->silent_hosts()) lost_hosts_.insert(h);
    }
    watch_.reset();
    // A follower whose lead went before taking its goodbye (killed after the
    // last scenario, say) has no recording to hand its part to: it says so.
    const std::string lost_lead = say_goodbye();
    if (!lost_lead.empty() && run_problem_.empty()) {
      console.print(fmt::format("\nhost mode: {}\n", lost_lead));
      return false;
    }
    return true;
  }

  // The lead writes the run's recording; a follower keeps a local run
  // directory without run.json and says where the recording is.
  void finish_recording(RunRecorder& recorder) const {
    if (roster_.is_lead()) {
      recorder.finish(options_.lab.charts_in_terminal);
      return;
    }
    recorder.console().print(
        fmt::format("\nthe lead, {}, writes the recording; this host's run directory: {}\n",
                    roster_.describe(0), recorder.dir()));
    recorder.finish_without_manifest();
  }

  // The lead decides the run's id and seed; followers check they run the
  // same lab and scenarios (the same command on every host).
  nlohmann::json agree_on_run() {
    if (roster_.is_lead()) {
      nlohmann::json run = {{"run_id", make_run_id()},
                            {"seed", std::random_device{}()},
                            {"lab", lab_.id},
                            {"scenarios", names_of(scenarios_)}};
      store_->set_json("run", run);
      return run;
    }
    nlohmann::json run =
        store_->wait_json("run", kJoinTimeout, "waiting for the lead's run", stop_reason());
    if (run["lab"] != lab_.id || run["scenarios"] != names_of(scenarios_)) {
      const std::string why = fmt::format(
          "{} runs lab {} scenarios {}, but the lead runs lab {} scenarios {}: give every host the "
          "same command",
          roster_.describe(roster_.index), lab_.id, names_of(scenarios_),
          run["lab"].get<std::string>(), run["scenarios"].get<std::string>());
      store_->set_json("run/stop", why);
      throw InputError(why);
    }
    return run;
  }

  // For the waits before the scenarios: Ctrl-C here, a lost host, or
  // another host's stop word.
  std::function<std::string()> stop_reason() {
    return [this] {
      if (StopSignals::stop_requested()) return std::string("stopped by signal");
      if (watch_) return watch_->problem();
      if (auto word = store_->try_get_json("run/stop")) return word->get<std::string>();
      return std::string();
    };
  }

  void post(const std::string& key, ScenarioOutcome& outcome) {
    try {
      store_->set_json(key + "/outcome/" + std::to_string(roster_.index), outcome_to_json(outcome));
      store_->has("run");  // a set is not answered; this round trip proves the lead got it
    } catch (const std::exception& e) {
      run_problem_ = "lost the lead, " + roster_.describe(0) + ": " + e.what();
      outcome.status = rundir::ScenarioStatus::kFailed;
      outcome.message = run_problem_;
    }
    if (!watch_->problem().empty() && outcome.status != rundir::ScenarioStatus::kCompleted)
      outcome.message = watch_->problem();
  }

  // Every host's outcome of scenario `key`, merged; each host whose outcome
  // does not come is reported lost, by name.
  ScenarioOutcome collect(const std::string& key, const ScenarioDefinition& s,
                          ScenarioOutcome own) {
    std::vector<ScenarioOutcome> per_host = {std::move(own)};
    std::string lost;
    for (int h = 1; h < static_cast<int>(roster_.hosts.size()); ++h) {
      try {
        per_host.push_back(outcome_from_json(
            store_->wait_json(key + "/outcome/" + std::to_string(h),
                              seconds(static_cast<int>(s.deadline_s)) + kOutcomeSlack,
                              "waiting for " + roster_.describe(h) + "'s outcome",
                              [this] { return watch_->problem(); })));
      } catch (const std::exception& e) {
        // With more than two hosts several may be lost: name every one.
        lost += (lost.empty() ? "" : "; ") + std::string(e.what());
        lost_hosts_.insert(h);
        ScenarioOutcome missing;
        missing.status = rundir::ScenarioStatus::kFailed;
        missing.message = e.what();
        missing.started_unix_s = per_host.front().started_unix_s;
        missing.ended_unix_s = per_host.front().ended_unix_s;
        per_host.push_back(std::move(missing));
      }
    }
    ScenarioOutcome merged = merge_outcomes(per_host, roster_);
    if (!lost.empty()) {
      merged.message = lost;
      run_problem_ = lost;
      for (auto& event : merged.events)
        if (event.value("event", "") == "scenario_end") event["message"] = lost;
    }
    return merged;
  }

  // What a failed wait for the other hosts means: a timeout or a lost host
  // says so itself; any other failure of the store is the lead's.
  std::string store_failure(const std::exception& e) const {
    const std::string what = e.what();
    if (roster_.is_lead() || what.rfind("lost ", 0) == 0 ||
        what.find(" within ") != std::string::npos)
      return what;
    return "lost the lead, " + roster_.describe(0) + ": the control store fails (" + what + ")";
  }

  // The lead's runner serves the store: it leaves last, so that the
  // followers' last requests are answered, not refused. Followers say "done"
  // and drop their connection; the lead waits for every follower not lost
  // (with more than two hosts, one lost host leaves others still connected).
  // A follower whose lead goes first anyway -- killed, or a host lost --
  // reports it and ends: its store connection cannot abort it
  // (store_connection.h).
  // Returns, on a follower, why its lead did not take the goodbye ("" if it did).
  std::string say_goodbye() {
    if (!roster_.is_lead()) {
      try {
        store_->set_json("done/" + std::to_string(roster_.index), true);
        store_->has("run");  // a set is not answered; this round trip proves the lead got it
        store_.reset();
        return "";
      } catch (const std::exception& e) {
        spdlog::debug("host mode: goodbye: {}", e.what());
        store_.reset();
        return "lost the lead, " + roster_.describe(0) +
               ", before it took this host's goodbye: " + e.what();
      }
    }
    for (int h = 1; h < static_cast<int>(roster_.hosts.size()); ++h) {
      if (lost_hosts_.count(h) != 0) continue;
      try {
        store_->wait_json("done/" + std::to_string(h), kGoodbyeTimeout, "goodbye");
      } catch (const std::exception& e) {
        spdlog::debug("host mode: goodbye from {}: {}", roster_.describe(h), e.what());
      }
    }
    std::this_thread::sleep_for(kSettle);  // their connections close after the key
    return "";
  }

  seconds longest_deadline() const {
    double longest = 0;
    for (const auto* s : scenarios_)
      longest = std::max(longest, resolve_limits(*s, measured_).scenario.deadline_s);
    return seconds(static_cast<int64_t>(longest));
  }

  void stop_run(Console& console, const std::string& why) {
    try {
      store_->set_json("run/stop", roster_.describe(roster_.index) + " ended the run: " + why);
    } catch (const std::exception&) {
      // the store is gone with the lead: nobody left to tell
    }
    console.print(fmt::format("\nhost mode: the run ends here: {}\n", why));
  }

  std::string describe_roster() const {
    std::string text = fmt::format("host mode: {} hosts x {} rank(s), lab interface {}\n",
                                   roster_.hosts.size(), roster_.ranks_per_host, options_.iface);
    for (int h = 0; h < static_cast<int>(roster_.hosts.size()); ++h) {
      text += fmt::format("  {}: ranks {}..{}{}{}\n", roster_.describe(h),
                          h * roster_.ranks_per_host, (h + 1) * roster_.ranks_per_host - 1,
                          h == 0 ? ", lead" : "", h == roster_.index ? "  <- this host" : "");
    }
    return text;
  }

  const HostRunOptions& options_;
  const LabDefinition& lab_;
  const std::vector<const ScenarioDefinition*> scenarios_;
  const HostRoster roster_;
  const HostNetwork network_;
  std::unique_ptr<ControlStore> store_;
  std::unique_ptr<PeerWatch> watch_;
  std::string rdma_device_;   // the RoCE workload's device; "" = none
  std::string run_problem_;   // a lost host or lead: the run ends after this scenario
  std::set<int> lost_hosts_;  // the lead's: hosts whose outcome did not come, or silent at the end
  MeasuredTimes measured_;    // completed scenarios' times, for relative limits
};

}  // namespace

int run_lab_on_hosts(const LabDefinition& lab, const HostRunOptions& options,
                     HostRunPlace* place) {
  return HostLabRun(options, lab).run(place);
}

}  // namespace fabriclab::runner::host
