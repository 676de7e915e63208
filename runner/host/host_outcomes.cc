#include "runner/host/host_outcomes.h"

#include <algorithm>

namespace fabriclab::runner {

// Every field, by its own name; a missing one is an error (at()).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ScenarioOutcome, status, message, started_unix_s, ended_unix_s,
                                   steps_planned, steps_completed, ranks_here, applied,
                                   impairments, link_picks, events)

}  // namespace fabriclab::runner

namespace fabriclab::runner::host {
namespace {

// An interruption (Ctrl-C on some host) wins: the other hosts' ranks then
// fail because their peer stopped, which is its consequence, not its cause.
int severity(rundir::ScenarioStatus status) {
  switch (status) {
    case rundir::ScenarioStatus::kInterrupted:
      return 4;
    case rundir::ScenarioStatus::kFailed:
      return 3;
    case rundir::ScenarioStatus::kStalled:
      return 2;
    case rundir::ScenarioStatus::kDeadline:
      return 1;
    case rundir::ScenarioStatus::kCompleted:
    case rundir::ScenarioStatus::kSkipped:
      return 0;
  }
  return 0;
}

}  // namespace

nlohmann::json outcome_to_json(const ScenarioOutcome& o) { return o; }

ScenarioOutcome outcome_from_json(const nlohmann::json& j) { return j.get<ScenarioOutcome>(); }

ScenarioOutcome merge_outcomes(const std::vector<ScenarioOutcome>& per_host,
                               const HostRoster& roster) {
  ScenarioOutcome merged;
  merged.status = rundir::ScenarioStatus::kCompleted;
  merged.started_unix_s = per_host.front().started_unix_s;
  // Steps count on the hosts that ran ranks of this scenario (`[[scenario]]
  // ranks` may leave some idle).
  merged.steps_completed = -1;
  nlohmann::json start_event;
  nlohmann::json counters = {
      {"retransmits", 0},   {"drops", 0}, {"link_bytes", 0}, {"links", nlohmann::json::object()},
      {"ranks", nlohmann::json::object()}};
  std::string scenario;
  std::vector<std::string> failures;  // "host H (ADDR): rank ..." per failed host
  for (size_t h = 0; h < per_host.size(); ++h) {
    const ScenarioOutcome& o = per_host[h];
    const std::string who = roster.describe(static_cast<int>(h));
    if (o.status == rundir::ScenarioStatus::kFailed) failures.push_back(who + ": " + o.message);
    if (o.status == rundir::ScenarioStatus::kSkipped &&
        merged.status == rundir::ScenarioStatus::kCompleted) {
      merged.status = o.status;  // skipped everywhere, as every host reads the same lab
      merged.message = o.message;
    } else if (severity(o.status) > severity(merged.status)) {
      merged.status = o.status;
      merged.message = who + ": " + o.message;
    }
    merged.started_unix_s = std::min(merged.started_unix_s, o.started_unix_s);
    merged.ended_unix_s = std::max(merged.ended_unix_s, o.ended_unix_s);
    if (o.ranks_here > 0) {
      merged.steps_completed = merged.steps_completed < 0
                                   ? o.steps_completed
                                   : std::min(merged.steps_completed, o.steps_completed);
    }
    merged.steps_planned = std::max(merged.steps_planned, o.steps_planned);
    for (const std::string& line : o.applied) merged.applied.push_back(who + ": " + line);
    // Every host plans the links with the same seed and lab, so the entries
    // line up: the first host's plan, each entry with every host's lines.
    if (o.impairments.is_array()) {
      for (size_t i = 0; i < o.impairments.size(); ++i) {
        if (merged.impairments.size() <= i) {
          nlohmann::json entry = o.impairments[i];
          entry["applied"] = nlohmann::json::array();
          merged.impairments.push_back(entry);
        }
        for (const auto& line : o.impairments[i].value("applied", nlohmann::json::array()))
          merged.impairments[i]["applied"].push_back(who + ": " + line.get<std::string>());
      }
    }
    merged.link_picks.insert(o.link_picks.begin(), o.link_picks.end());
    nlohmann::json last_counters;
    nlohmann::json last_rtts = nlohmann::json::object();  // rank -> its last round trip read
    for (const nlohmann::json& event : o.events) {
      const std::string kind = event.value("event", "");
      scenario = event.value("scenario", scenario);
      if (kind == "counters") {
        last_counters = event;
        if (event.contains("ranks") && event["ranks"].is_object()) {
          for (const auto& [rank, r] : event["ranks"].items())
            if (r.is_object() && r.value("rtt_ms", nlohmann::json()).is_number())
              last_rtts[rank] = r["rtt_ms"];
        }
      } else if (kind == "scenario_start") {
        if (start_event.is_null() || event.value("ts", 0.0) < start_event.value("ts", 0.0))
          start_event = event;
      } else if (kind != "scenario_end") {
        merged.events.push_back(event);
      }
    }
    if (!last_counters.is_null()) {
      for (const char* field : {"retransmits", "drops", "link_bytes"})
        counters[field] = counters[field].get<uint64_t>() + last_counters.value(field, uint64_t{0});
      // Each host reads its own link ("<address>-lab"): the names never collide.
      if (last_counters.contains("links") && last_counters["links"].is_object())
        counters["links"].update(last_counters["links"]);
      // Each host reads its own ranks; the last sample comes after they
      // stopped (no connections), so it keeps the last round trip read.
      if (last_counters.contains("ranks") && last_counters["ranks"].is_object()) {
        for (auto [rank, r] : last_counters["ranks"].items()) {
          if (last_rtts.contains(rank)) r["rtt_ms"] = last_rtts[rank];
          counters["ranks"][rank] = r;
        }
      }
    }
  }
  if (merged.steps_completed < 0) merged.steps_completed = 0;  // no host ran ranks
  // --capture: the lead's pcap is the one in the recording (its --iface
  // sees both directions of its exchange with every peer); each follower's
  // stays in its own run directory.
  merged.capture = per_host.front().capture;
  // A rank lost on one host fails the ranks of the others for want of it:
  // the host that lost a rank (killed by a signal) first, then the others.
  if (merged.status == rundir::ScenarioStatus::kFailed && failures.size() > 1) {
    std::stable_partition(failures.begin(), failures.end(), [](const std::string& f) {
      return f.find("killed by signal") != std::string::npos;
    });
    merged.message.clear();
    for (const std::string& f : failures)
      merged.message += (merged.message.empty() ? "" : "; ") + f;
  }
  auto runner_event = [&](const std::string& kind, nlohmann::json fields) {
    fields["v"] = rundir::kMetricsFormatVersion;
    fields["event"] = kind;
    fields["scenario"] = scenario;
    fields["ts"] = merged.ended_unix_s;
    return fields;
  };
  if (!start_event.is_null()) merged.events.push_back(start_event);
  merged.events.push_back(runner_event("counters", counters));
  merged.events.push_back(
      runner_event("scenario_end", {{"status", merged.status}, {"message", merged.message}}));
  std::stable_sort(merged.events.begin(), merged.events.end(),
                   [](const nlohmann::json& a, const nlohmann::json& b) {
                     return a.value("ts", 0.0) < b.value("ts", 0.0);
                   });
  return merged;
}

}  // namespace fabriclab::runner::host
