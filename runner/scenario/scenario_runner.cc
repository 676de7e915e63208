#include "runner/scenario/scenario_runner.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include "common/fault_point.h"
#include "runner/lab/link_plan.h"
#include "runner/lab/seed_pick.h"
#include "runner/ledger/ledger.h"
#include "runner/link/impair_setting.h"
#include "runner/link/link_setting.h"
#include "runner/process/launch_spec.h"
#include "runner/process/process.h"
#include "runner/process/stop_signals.h"
#include "runner/cast/console.h"
#include "runner/scenario/counter_sample.h"
#include "runner/scenario/flow_probe.h"
#include "runner/scenario/impair_change.h"
#include "runner/scenario/job_places.h"
#include "runner/scenario/link_fault.h"
#include "runner/scenario/uplink_fault.h"
#include "runner/scenario/live_line.h"
#include "runner/scenario/metrics_tail.h"
#include "runner/scenario/neighbour_flow.h"
#include "runner/scenario/rank_state.h"
#include "runner/scenario/watchdog.h"
#include "runner/rdma/rxe_counters.h"
#include "runner/topology/lab_network.h"
#include "runner/workload/workload.h"

namespace fabriclab::runner {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr auto kCounterInterval = std::chrono::seconds(1);
// How long the other ranks get to end on their own once one has failed.
constexpr auto kPeerFailureGrace = std::chrono::seconds(3);

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

uint64_t drops_of(const std::vector<std::unique_ptr<AppliedLinkSetting>>& settings) {
  uint64_t drops = 0;
  for (const auto& applied : settings) drops += applied->drops();
  return drops;
}

// Every setting's own counters, merged by place (a queue's ports).
nlohmann::json sample_of(std::vector<std::unique_ptr<AppliedLinkSetting>>& settings) {
  nlohmann::json merged = nlohmann::json::object();
  for (auto& applied : settings) merged.update(applied->sample());
  return merged;
}

class ScenarioRun {
 public:
  ScenarioRun(const ScenarioContext& context, const ScenarioDefinition& scenario)
      : c_(context),
        s_(scenario),
        network_(*context.network),
        workload_(context.workload ? *context.workload : find_workload(context.lab->workload.kind)),
        plan_(plan_links(scenario, context.seed, context.network->world_size())) {}

  ScenarioOutcome run() {
    outcome_.started_unix_s = unix_now_s();
    add_event("scenario_start", {{"impairments", impairments_json()}, {"condition", s_.condition}});
    try {
      apply_link_settings();
      fault_point("impairment_applied");
      start_capture();
      baseline_ = read_counter_sample(network_, drops_of(settings_), sample_of(settings_));
      if (!c_.rdma_device.empty()) rdma_before_ = rdma::read_rdma_counters(c_.rdma_device);
      prepare_link_fault();
      launch_ranks();
      fault_point("ranks_launched");
      start_neighbours();
      outcome_.ranks_here = static_cast<int>(ranks_.size());
      if (ranks_.empty()) {
        // Host mode: this scenario's job runs on other hosts only.
        outcome_.status = rundir::ScenarioStatus::kCompleted;
        spdlog::info("scenario {}: none of its ranks run on this host", s_.name);
      } else {
        watch();
      }
    } catch (const std::exception& e) {
      outcome_.status = rundir::ScenarioStatus::kFailed;
      outcome_.message = e.what();
    }
    stop_ranks();
    fault_point("ranks_stopped");
    finish_link_fault();
    stop_neighbours();
    collect_events();  // what the ranks wrote before they stopped
    sample_counters();
    record_rdma_counters();
    probe_flow();
    stop_capture();
    remove_link_settings();
    outcome_.ended_unix_s = unix_now_s();
    add_event("scenario_end", {{"status", outcome_.status}, {"message", outcome_.message}});
    std::stable_sort(outcome_.events.begin(), outcome_.events.end(),
                     [](const nlohmann::json& a, const nlohmann::json& b) {
                       return a.value("ts", 0.0) < b.value("ts", 0.0);
                     });
    return std::move(outcome_);
  }

 private:
  // A scenario without overrides or seed words keeps the one entry it always
  // had (links as written); otherwise one entry per resolved assignment.
  nlohmann::json impairments_json() const {
    if (!resolved()) return nlohmann::json::array({{{"links", s_.links}, {"spec", s_.impair()}}});
    nlohmann::json out = nlohmann::json::array();
    for (const LinkAssignment& a : plan_.assignments) {
      nlohmann::json links = nlohmann::json::array();
      for (int rank : a.ranks) links.push_back("r" + std::to_string(rank));
      out.push_back({{"links", links},
                     {"key", a.key},
                     {"spec", a.key == impair_setting().key() ? a.value.text() : ""},
                     {"value", a.value.text()}});
    }
    return out;
  }

  bool resolved() const {
    if (!s_.overrides.empty()) return true;
    for (const std::string& word : s_.links)
      if (word.rfind("seed:", 0) == 0) return true;
    return false;
  }

  void add_event(const std::string& kind, nlohmann::json fields) {
    fields["v"] = rundir::kMetricsFormatVersion;
    fields["event"] = kind;
    fields["scenario"] = s_.name;
    fields["ts"] = unix_now_s();
    outcome_.events.push_back(std::move(fields));
  }

  void apply_link_settings() {
    for (const auto& [label, rank] : plan_.picks)
      outcome_.link_picks[label] = "r" + std::to_string(rank);
    outcome_.impairments = impairments_json();
    if (resolved()) {
      // What goes on how many links -- not which: a seed-drawn rank is the
      // student's to find (run.json's link_picks and impairments say it).
      for (const LinkAssignment& a : plan_.assignments) {
        std::string drawn;
        for (const auto& [label, rank] : plan_.picks) {
          if (a.ranks == std::vector<int>{rank}) drawn = " (seed:" + label + ")";
        }
        c_.console->print(fmt::format("   {} \"{}\" on {} link{}{}\n", a.key, a.value.text(),
                                      a.ranks.size(), a.ranks.size() == 1 ? "" : "s", drawn));
      }
    }
    for (size_t i = 0; i < plan_.assignments.size(); ++i) {
      const LinkAssignment& a = plan_.assignments[i];
      const LinkSettingKind& kind = *find_link_setting(a.key);  // load_lab() checked the key
      nlohmann::json lines = nlohmann::json::array();
      for (auto& applied : kind.apply(a.value, a.ranks, network_,
                                      kind.needs_backend() ? c_.backend : nullptr)) {
        outcome_.applied.push_back(applied->describe());
        lines.push_back(outcome_.applied.back());
        spdlog::debug("scenario {}: {}", s_.name, outcome_.applied.back());
        if (applied->impairment())
          own_impairments_.emplace_back(applied->impairment(), std::string(a.value.text()));
        settings_.push_back(std::move(applied));
      }
      if (resolved()) outcome_.impairments[i]["applied"] = lines;
    }
    // One setting on the scenario's own links: its one entry holds every line.
    if (!resolved() && !outcome_.impairments.empty())
      outcome_.impairments[0]["applied"] = outcome_.applied;
  }

  // The lab link on the wire, from before the ranks start until after the
  // flow probe. A capture that cannot start is said and recorded, not fatal:
  // the job's result stands without it.
  void start_capture() {
    std::vector<int> impaired;
    for (const LinkAssignment& a : plan_.assignments)
      impaired.insert(impaired.end(), a.ranks.begin(), a.ranks.end());
    std::string file;
    try {
      const auto spec = capture_spec_for(c_.capture, s_.name, impaired, network_, &file);
      if (!spec) return;
      capture_ = LinkCapture::start(*spec);
      capture_file_ = file;
    } catch (const std::exception& e) {
      spdlog::warn("scenario {}: {}", s_.name, e.what());
      outcome_.capture = {{"error", e.what()}};
    }
  }

  void stop_capture() {
    if (!capture_) return;
    const CaptureSummary summary = capture_->stop();
    outcome_.capture = capture_->to_json(capture_file_, summary);
    c_.console->print(fmt::format("   capture: {} packets of {} in {}{}\n", summary.packets,
                                  capture_->spec().device, capture_file_,
                                  summary.truncated ? " (size cap reached: the rest not written)" : ""));
    capture_.reset();
  }

  // One TCP flow over the impaired link while its settings are still on
  // (flow_probe.h); after a completed job only, so the two never share the
  // link. A probe that cannot run is reported, not fatal: the job's result
  // stands without it.
  void probe_flow() {
    if (s_.flow_probe_s <= 0 || outcome_.status != rundir::ScenarioStatus::kCompleted) return;
    std::vector<int> impaired;
    for (const LinkAssignment& a : plan_.assignments)
      impaired.insert(impaired.end(), a.ranks.begin(), a.ranks.end());
    const auto [from, to] = flow_probe_ranks(impaired, network_.world_size());
    // Which rank, the run does not say (as for seed-drawn links above):
    // run.json's flow event does.
    c_.console->print(fmt::format(
        "   flow probe: one iperf3 flow, {} s, from the impaired link's rank to the next\n",
        s_.flow_probe_s));
    try {
      add_event("flow", run_flow_probe(network_, from, to, s_.flow_probe_s));
    } catch (const std::exception& e) {
      spdlog::warn("scenario {}: flow probe skipped: {}", s_.name, e.what());
    }
  }

  // The scenario's neighbour flows (neighbour_flow.h), beside its job.
  void start_neighbours() {
    if (s_.neighbours.empty()) return;
    std::string names;
    for (const NeighbourFlowSpec& flow : s_.neighbours)
      names += (names.empty() ? "" : ", ") + print_neighbour_flow(flow);
    c_.console->print(fmt::format("   neighbours: {}\n", names));
    neighbours_ = std::make_unique<NeighbourFlows>(network_, s_.neighbours,
                                                   c_.run_dir + "/ranks/" + s_.name, c_.ledger);
  }

  void stop_neighbours() {
    if (!neighbours_) return;
    for (nlohmann::json& flow : neighbours_->stop()) add_event("neighbour", std::move(flow));
    neighbours_.reset();
  }

  // The scenario's `link_fault` (link_fault.h) on its links' ranks (seed:
  // words drawn with the run's seed, as the settings'): their far ends go
  // down, or their impairment changes (impair_change.h).
  void prepare_link_fault() {
    if (!s_.link_fault) return;
    if (!s_.fault_uplinks.empty()) return prepare_uplink_fault();
    std::map<std::string, int> picks;
    const std::vector<int> ranks = resolve_link_words(s_.links, c_.seed, network_.world_size(), &picks);
    for (const auto& [label, rank] : picks) outcome_.link_picks[label] = "r" + std::to_string(rank);
    std::unique_ptr<FaultAction> action;
    size_t links = 0;
    if (s_.link_fault->kind == LinkFaultKind::kDown) {
      std::vector<LinkFarEnd> ends = network_.link_far_ends(ranks);
      links = ends.size();
      if (ends.empty()) throw std::runtime_error("link_fault: this runner owns none of its links");
      action = take_links_down(std::move(ends));
    } else {
      std::vector<ImpairPlace> places = impair_places(ranks);
      links = ranks.size();
      std::vector<std::string> names;
      for (int rank : ranks) names.push_back("r" + std::to_string(rank));
      action = change_impairment(s_.link_fault->impair, std::move(places), std::move(names),
                                 c_.backend);
    }
    std::vector<int> namespaces;
    for (const LocalRank& local : network_.local_ranks()) namespaces.push_back(local.netns_fd);
    c_.console->print(fmt::format("   link fault \"{}\" on {} link{}\n",
                                  print_link_fault(*s_.link_fault), links, links == 1 ? "" : "s"));
    link_fault_ =
        std::make_unique<LinkFault>(*s_.link_fault, std::move(action), std::move(namespaces));
  }

  // Where an impairment change goes: the targets `impair` uses for these
  // links, each with the scenario's own impairment there if it has one.
  // The loader keeps a changed link's own impairment whole (no override of
  // `impair` on other links), so a target is either the same as one of the
  // scenario's or on a device it does not impair.
  std::vector<ImpairPlace> impair_places(const std::vector<int>& ranks) const {
    if (!c_.backend) throw std::runtime_error("link_fault: no impairment backend for this run");
    std::vector<ImpairPlace> places;
    for (netem::Target& target : network_.impairment_targets(ranks, c_.backend->link_direction())) {
      ImpairPlace place;
      place.target = std::move(target);
      places.push_back(std::move(place));
    }
    if (places.empty()) throw std::runtime_error("link_fault: this runner owns none of its links");
    // The scenario's impairments were applied on the same targets in the
    // same order (plan_links resolved the same words with the same seed).
    if (!own_impairments_.empty()) {
      if (own_impairments_.size() != places.size())
        throw std::runtime_error(fmt::format(
            "link_fault: the scenario's impairment is on {} place(s), the fault's on {}: an "
            "impairment change needs them on the same links",
            own_impairments_.size(), places.size()));
      for (size_t i = 0; i < places.size(); ++i) {
        places[i].own = own_impairments_[i].first;
        places[i].own_words = own_impairments_[i].second;
      }
    }
    return places;
  }

  // An uplink's fault (uplink_fault.h): its spine's port, the ToRs' routes around it.
  void prepare_uplink_fault() {
    std::vector<UplinkFaultPlace> places;
    for (const std::string& name : s_.fault_uplinks) {
      std::optional<UplinkFaultPlace> place = network_.uplink_fault_place(name);
      if (!place) throw std::runtime_error("link_fault: this runner owns no uplink " + name);
      places.push_back(std::move(*place));
    }
    std::vector<CounterSource> uplinks;
    for (const CounterSource& source : network_.counter_sources())
      if (source.uplink) uplinks.push_back(source);
    std::string names;
    for (const std::string& name : s_.fault_uplinks) names += (names.empty() ? "" : ", ") + name;
    c_.console->print(fmt::format("   link fault \"{}\" on uplink {}\n",
                                  print_link_fault(*s_.link_fault), names));
    link_fault_ = std::make_unique<UplinkFault>(*s_.link_fault, std::move(places), std::move(uplinks));
  }

  void poll_link_fault() {
    if (!link_fault_) return;
    int64_t ahead = 0;
    for (const RankState& st : states_) ahead = std::max(ahead, st.last_step);
    for (ScenarioFault::Event& e : link_fault_->poll(Clock::now(), steps_done(), ahead)) {
      say_link_fault(e);
      add_event(e.kind, std::move(e.fields));
    }
  }

  // On the terminal and as a chapter of the cast (the replay page's
  // timeline): when the link went down and came back -- not which link
  // (a seed-drawn rank is the student's to find; metrics.jsonl says).
  void say_link_fault(const ScenarioFault::Event& e) {
    if (e.kind == "link_down") {
      c_.console->clear_status();
      c_.console->print(fmt::format("   link down after step {}\n", e.fields.value("steps_done", 0)));
      c_.console->marker(s_.name + ": link down");
    } else if (e.kind == "link_up") {
      c_.console->clear_status();
      c_.console->print(fmt::format("   link up after {:.1f} s down\n", e.fields.value("down_s", 0.0)));
      c_.console->marker(s_.name + ": link up");
    } else if (e.kind == "impair_change") {
      c_.console->clear_status();
      c_.console->print(fmt::format("   impairment changed to \"{}\" after step {}\n",
                                    e.fields.value("spec", ""), e.fields.value("steps_done", 0)));
      c_.console->marker(s_.name + ": impairment changed");
    } else if (e.kind == "impair_restore") {
      c_.console->clear_status();
      c_.console->print(fmt::format("   impairment restored after {:.1f} s changed\n",
                                    e.fields.value("changed_s", 0.0)));
      c_.console->marker(s_.name + ": impairment restored");
    } else if (e.kind == "route_withdrawn" || e.kind == "route_restored") {
      const bool out = e.kind == "route_withdrawn";
      c_.console->clear_status();
      c_.console->print(fmt::format("   routes {} after {:.1f} s (detect)\n",
                                    out ? "withdrawn" : "restored",
                                    e.fields.value(out ? "after_down_s" : "after_up_s", 0.0)));
      c_.console->marker(s_.name + (out ? ": routes withdrawn" : ": routes restored"));
    }
  }

  void finish_link_fault() {
    if (!link_fault_) return;
    try {
      for (ScenarioFault::Event& e : link_fault_->finish()) {
        say_link_fault(e);
        add_event(e.kind, std::move(e.fields));
      }
    } catch (const std::exception& e) {
      spdlog::warn("scenario {}: {}", s_.name, e.what());
    }
    link_fault_.reset();
  }

  // In reverse order of application.
  void remove_link_settings() {
    while (!settings_.empty()) settings_.pop_back();
  }

  // The scenario's workload with its "seed:LABEL" ranks drawn for this run
  // (ParamKind::kRank), each pick recorded beside the links' in run.json.
  WorkloadDefinition workload_for_run(int world) {
    WorkloadDefinition resolved = s_.workload;
    for (auto& [key, value] : resolved.params) {
      const auto kind = workload_.params().find(key);
      if (kind == workload_.params().end() || kind->second != ParamKind::kRank) continue;
      if (value.rfind("seed:", 0) != 0) continue;
      const std::string label = value.substr(5);
      const uint64_t rank = seed_pick(c_.seed, label, static_cast<uint64_t>(world));
      value = std::to_string(rank);
      outcome_.link_picks[label] = "r" + std::to_string(rank);
    }
    return resolved;
  }

  void launch_ranks() {
    const std::string log_dir = c_.run_dir + "/ranks/" + s_.name;
    std::filesystem::create_directories(log_dir);
    const JobPlaces job = place_job(network_, s_.ranks, s_.placement);
    const int world = job.world;
    const WorkloadDefinition run_workload = workload_for_run(world);
    for (const LocalRank& local : job.local) {
      const int r = local.rank;
      RankState state;
      state.rank = r;
      const std::string metrics = log_dir + "/rank" + std::to_string(r) + ".jsonl";
      std::filesystem::remove(metrics);
      state.tail = std::make_unique<MetricsTail>(metrics);
      state.log_path = log_dir + "/rank" + std::to_string(r) + ".log";

      LaunchSpec spec;
      spec.argv = {c_.executable};
      for (std::string& arg : workload_.rank_command(run_workload, metrics)) {
        spec.argv.push_back(std::move(arg));
      }
      spec.env = torchrun_environment(job.master_addr, c_.master_port, r, world,
                                      local.local_rank, local.local_world_size);
      spec.env["FABRICLAB_BIND_ADDR"] = local.bind_addr;
      if (!c_.rdma_device.empty()) spec.env["FABRICLAB_RDMA_DEVICE"] = c_.rdma_device;
      spec.netns_fd = local.netns_fd;
      spec.netns_label = local.netns_label;
      spec.stdout_stream = Redirect::file(state.log_path);
      spec.stderr_stream = Redirect::file(state.log_path);
      spec.label = "rank " + std::to_string(r);
      ranks_.push_back(Process::launch(spec, c_.ledger));
      states_.push_back(std::move(state));
    }
  }

  // The watchdog loop: returns when the scenario has an outcome.
  void watch() {
    const auto start = Clock::now();
    Watchdog watchdog(s_.stall_s, s_.deadline_s, start);
    auto last_counters = start;
    while (true) {
      // A link fault's change falls between two polls: wake for it.
      const auto fault_due = link_fault_ ? link_fault_->due_in(Clock::now()) : kPollInterval;
      std::this_thread::sleep_for(std::min<Clock::duration>(kPollInterval, fault_due));
      collect_events();
      poll_link_fault();
      if (Clock::now() - last_counters >= kCounterInterval) {
        sample_counters();
        last_counters = Clock::now();
      }
      show_progress(seconds_since(start));
      if (steps_done() >= 2) fault_point("mid_scenario");

      if (StopSignals::stop_requested()) {
        outcome_.status = rundir::ScenarioStatus::kInterrupted;
        outcome_.message = "stopped by signal " + std::to_string(StopSignals::stop_signal());
        return;
      }
      if (check_rank_exits()) return;
      if (c_.external_failure) {
        std::string why = c_.external_failure();
        if (!why.empty()) {
          outcome_.status = rundir::ScenarioStatus::kFailed;
          outcome_.message = std::move(why);
          return;
        }
      }
      switch (watchdog.check(Clock::now(), progress_made(states_), all_finished())) {
        case WatchdogVerdict::kRunning:
          continue;
        case WatchdogVerdict::kStalled:
          outcome_.status = rundir::ScenarioStatus::kStalled;
          outcome_.message = fmt::format(
              "no rank completed a step for {:.0f} s (stall limit); {} of {} steps done",
              s_.stall_s, steps_done(), planned());
          return;
        case WatchdogVerdict::kDeadline:
          outcome_.status = rundir::ScenarioStatus::kDeadline;
          outcome_.message =
              fmt::format("still running after the {:.0f} s deadline; {} of {} steps done",
                          s_.deadline_s, steps_done(), planned());
          return;
      }
    }
  }

  bool all_finished() const {
    if (states_.empty()) return false;
    for (const RankState& st : states_)
      if (!st.finished) return false;
    return true;
  }

  // True when the outcome is decided by the ranks' exits. A rank that fails
  // fails the scenario; the message names first the rank that was lost (one
  // killed by a signal: the others only failed for want of it), then what
  // the others said -- they get kPeerFailureGrace to notice the loss
  // themselves (a reset connection ends Gloo's collective at once).
  bool check_rank_exits() {
    bool all_done = true;
    bool any_failed = false;
    for (Process& rank : ranks_) {
      const auto status = rank.poll();
      all_done = all_done && status.has_value();
      any_failed = any_failed || (status && !status->success());
    }
    if (any_failed) {
      const auto give_up = Clock::now() + kPeerFailureGrace;
      while (Clock::now() < give_up && std::any_of(ranks_.begin(), ranks_.end(), [](Process& r) {
               return !r.poll().has_value();
             }))
        std::this_thread::sleep_for(kPollInterval);
      collect_events();
      outcome_.status = rundir::ScenarioStatus::kFailed;
      outcome_.message = describe_rank_failures();
      return true;
    }
    if (all_done) {
      outcome_.status = rundir::ScenarioStatus::kCompleted;
      return true;
    }
    return false;
  }

  std::string describe_rank_failures() {
    std::vector<size_t> failed;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      const auto status = ranks_[r].poll();
      if (status && !status->success()) failed.push_back(r);
    }
    std::stable_partition(failed.begin(), failed.end(),
                          [&](size_t r) { return ranks_[r].poll()->signaled; });
    std::string message;
    for (size_t r : failed) {
      message += fmt::format("{}rank {} {}: {}", message.empty() ? "" : "; then ", states_[r].rank,
                             ranks_[r].poll()->describe(), last_line_of(states_[r].log_path));
    }
    return message;
  }

  void collect_events() {
    for (RankState& st : states_) {
      for (auto& event : st.tail->read_new()) {
        st.take(event);
        event["scenario"] = s_.name;
        outcome_.events.push_back(std::move(event));
      }
    }
    outcome_.steps_completed = steps_done();
    outcome_.steps_planned = planned();
  }

  void sample_counters() {
    last_ = sample_since(
        read_counter_sample(network_, drops_of(settings_), sample_of(settings_)), baseline_);
    add_event("counters", counters_event_fields(last_));
  }

  // The RDMA device's counters over the scenario (its ranks' whole span):
  // one event per host, which the recording sums (rdma_summary.h).
  void record_rdma_counters() {
    if (c_.rdma_device.empty()) return;
    const rdma::RdmaCounters since =
        rdma::rdma_counters_since(rdma::read_rdma_counters(c_.rdma_device), rdma_before_);
    add_event("rdma_counters", {{"host", c_.rdma_host},
                                {"device", c_.rdma_device},
                                {"counters", since}});
  }

  int64_t steps_done() const { return runner::steps_done(states_); }

  // From the ranks' start events; before any rank starts (it may never,
  // if it cannot rendezvous), from the lab's parameters when they say.
  int64_t planned() const {
    int64_t p = 0;
    for (const RankState& st : states_) p = std::max(p, st.planned_steps);
    if (p == 0) p = workload_.planned_steps(s_.workload);
    return p;
  }

  void show_progress(double elapsed_s) {
    c_.console->status_line(live_line(s_.name, states_, planned(), elapsed_s, last_));
  }

  void stop_ranks() {
    // Stalled ranks are stuck in a collective: no point in a long grace.
    terminate_all(ranks_, std::chrono::milliseconds(1500));
    ranks_.clear();
    c_.console->clear_status();
  }

  const ScenarioContext& c_;
  const ScenarioDefinition& s_;
  const LabNetwork& network_;
  const Workload& workload_;
  const LinkPlan plan_;  // which setting on which link, with the run's seed
  std::vector<std::unique_ptr<AppliedLinkSetting>> settings_;
  // The scenario's own impairments among settings_, with their words, in
  // the order applied (an impair link fault changes them: impair_change.h).
  std::vector<std::pair<netem::Applied*, std::string>> own_impairments_;
  std::vector<Process> ranks_;
  std::unique_ptr<NeighbourFlows> neighbours_;
  std::unique_ptr<ScenarioFault> link_fault_;
  std::vector<RankState> states_;
  CounterSample baseline_;  // when the ranks were launched
  rdma::RdmaCounters rdma_before_;  // the RDMA device's, at the same moment
  CounterSample last_;      // since baseline_
  ScenarioOutcome outcome_;
  std::unique_ptr<LinkCapture> capture_;
  std::string capture_file_;
};

}  // namespace

ScenarioOutcome run_scenario(const ScenarioContext& context, const ScenarioDefinition& scenario) {
  return ScenarioRun(context, scenario).run();
}

}  // namespace fabriclab::runner
