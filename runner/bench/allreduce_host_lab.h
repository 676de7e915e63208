// `fabriclab bench allreduce --hosts`: the bench's flags as a one-scenario
// allreduce lab, which host mode (`fabriclab run --hosts`'s machinery:
// roster, control store, guardian, ledger, the rxe device on --iface) runs
// like any lab; and the bench's table read back from that run's events.
// Host mode is not written twice: the bench is a front for it
// (runner/cli/bench_allreduce_hosts.h runs it).
//
// The lab (labs/SCHEMA.md), from the flags:
//   [lab]       id "bench", in a folder "bench-allreduce"
//   [workload]  kind "allreduce": minbytes, maxbytes, stepfactor, iters,
//               warmup_iters, check, channels, algorithm, transport from -b,
//               -e, -f, -n, -w, -c, --channels, --algorithm, --transport;
//               timeout_s from --timeout
//   [topology]  ranks
//   [[scenario]] one, "allreduce-<transport>-<hash>": `impair` and `links`
//               from --impair and --links; deadline and stall limits from
//               --timeout (a RoCE rank's start takes up to ~90 s in a VM)
//   [report]    no charts: the bench prints its table
// The scenario's name carries a hash of the lab's text, so hosts given
// different flags are refused when they join (host mode checks that every
// host runs the same lab and scenarios), not left waiting for each other.
//
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/bench/allreduce_bench.h"
#include "runner/bench/allreduce_table.h"

namespace fabriclab::runner::bench {

// The folder the lab must be written to (load_lab() wants the id as its prefix).
inline constexpr const char* kHostBenchLabFolder = "bench-allreduce";

struct HostBenchLab {
  std::string toml;      // lab.toml's text
  std::string scenario;  // its one scenario's name
};

// `options` as checked by check_allreduce_options(); `ranks` the run's
// ranks over every host.
HostBenchLab allreduce_host_lab(const AllreduceBenchOptions& options, int ranks);

// The table's rows from a run's events (metrics.jsonl) of `scenario`: each
// size's `step` events of every rank there, combined as the namespace bench
// combines its ranks (nccl-tests' -a 1: time the mean over ranks, #wrong
// summed; -1 when not checked), in size order. `ranks_seen` (may be null)
// gets how many ranks reported. Empty when no rank finished a size.
std::vector<AllreduceRow> allreduce_rows_from_events(const std::vector<nlohmann::json>& events,
                                                     const std::string& scenario,
                                                     int* ranks_seen = nullptr);

}  // namespace fabriclab::runner::bench
