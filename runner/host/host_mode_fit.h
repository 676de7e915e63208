// Which labs host mode can run on a given set of hosts, decided before
// anything is applied (a refusal is an InputError, exit 2, saying what the
// lab needs). Host mode has the machines and the network between them, and
// nothing else; it refuses a lab that needs more:
//   - ranks: hosts x ranks per host must equal the lab's ranks (host h runs
//     ranks h*K..h*K+K-1, host_roster.h); a one-rank lab crosses no network;
//   - a fabric built of namespaces (`leaf_spine`: ToRs, spines and their
//     `uplinks`), or `host_links` shaping every rank's NIC: the machines'
//     own network has neither to shape;
//   - scenarios with a setting whose kind refuses host mode
//     (LinkSettingKind::in_host_mode: a queue at the switch the ranks share),
//     or that run neighbour flows between ranks (`neighbours`): that switch
//     exists only in namespace mode. The lab's other scenarios can still run
//     (--scenario);
//   - scenarios with link settings whose ranks all land on the first host
//     (ranks = N <= ranks per host): their traffic never leaves it.
// Scenarios with a setting host mode skips (a sysctl: the hosts' own are
// never changed) or that place ranks (`placement`) are not refused here:
// host mode skips them, saying why (host_run.cc).
//
// Pure function; thread-safe.
#pragma once

#include <vector>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::host {

// Ranks per host for `scenarios` of `lab` on `hosts` hosts, `ranks_per_host`
// as given by --ranks-per-host (0 = the lab's ranks / hosts). InputError
// when host mode cannot run them, naming what the lab needs.
int fit_lab_to_hosts(const LabDefinition& lab,
                     const std::vector<const ScenarioDefinition*>& scenarios, int hosts,
                     int ranks_per_host);

}  // namespace fabriclab::runner::host
