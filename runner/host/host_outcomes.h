// One scenario's outcome across the hosts: each follower sends its own
// ScenarioOutcome (its ranks' events, its impairments, its verdict) to the
// lead as JSON, and the lead merges them into the one outcome the recording
// holds -- the same shape as a namespace-mode run's, so reports and grading
// read it unchanged (recordings/FORMAT.md).
//
// Merging, host by host in host order:
//   status    completed only if every host completed; else the first host's
//             that did not, by severity (interrupted: its cause; failed, stalled,
//             deadline), its message prefixed with the host's name;
//   steps     completed: the fewest any host completed; planned: the most;
//   times     started: earliest; ended: latest;
//   applied   every host's lines, each prefixed "host N (addr): ";
//   capture   the lead's (host 0's): its pcap is in the recording; a
//             follower's stays in its own run directory;
//   events    the ranks' events of every host; the runner's own events
//             become one scenario_start (the earliest), the sum of each
//             host's last counters (and in `links` every host's own link,
//             "<address>-lab"), and one scenario_end with the merged
//             status -- in time order.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "runner/host/host_roster.h"
#include "runner/scenario/scenario_runner.h"

namespace fabriclab::runner::host {

nlohmann::json outcome_to_json(const ScenarioOutcome& outcome);
ScenarioOutcome outcome_from_json(const nlohmann::json& json);

// `per_host[h]` is host h's outcome. `roster` names the hosts.
ScenarioOutcome merge_outcomes(const std::vector<ScenarioOutcome>& per_host,
                               const HostRoster& roster);

}  // namespace fabriclab::runner::host
