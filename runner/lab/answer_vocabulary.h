// The vocabulary of exercises (labs/SCHEMA.md, "Where the expected answer
// comes from" and "Checks"): what a lab file may write in an exercise's
// `value`, `check` and options' `when`. Parsing and load-time validation
// live here, with the lab model; evaluating them against a student's
// recording is the grader's (runner/grading/value_source.h, property.h).
// Not an expression language: a small, fixed set of forms.
//
//   recording paths (from = "recording")
//     scenario.NAME.result.FIELD      number (or null): run.json's summary row
//     scenario.NAME.status            text: completed | stalled | ...
//     scenario.NAME.steps_completed   number
//     [scenario.NAME.]eval.FIELD@step=N   number: rank 0's eval after step N
//     [scenario.NAME.]start.FIELD     number: rank 0's start event (params, grad_bytes...)
//     [scenario.NAME.]final.FIELD     number: rank 0's final event
//     scenario.NAME.rdma.FIELD        number or null: run.json's `rdma` of a RoCE
//                                     scenario (sent_pkts, lost_pkts, naks,
//                                     resent_pkts, resent_per_lost...)
//     scenarios.ordered_by.result.FIELD   list: scenario names, ascending (nulls last)
//     [scenario.NAME.]sync_s@params=P,dtype=fp32|bf16,gbps=G,nics=K
//                                     number: seconds one sync of a P-parameter
//                                     model takes over K NICs of G Gb/s at the
//                                     scenario's measured wire bytes per
//                                     parameter (common/sync_time.h)
//     [scenario.NAME.]idle_s_per_gpu_hour | extra_ms | steps_per_hour | stall_ms
//                                     number: what the scenario's slowdown
//                                     against its baseline costs
//                                     (runner/report/wait_cost.h)
//     [scenario.NAME.]idle_usd_per_hour@gpus=N,usd=P
//     [scenario.NAME.]stall_usd@gpus=N,usd=P
//                                     number: those idle seconds, or its worst
//                                     stall, in dollars on N GPUs at $P per
//                                     GPU-hour (common/wait_cost.h)
//     sweep.NAME.result.FIELD@reaches=L   number or null: the swept value at
//                                     which the sweep's points' FIELD first
//                                     reaches L, linearly interpolated between
//                                     the two points around it; null when no
//                                     point reaches it (common/sweep_crossing.h)
//     conditions.NAME                 number: the run's drawn choice of [[draw]] NAME
//                                     ("75ms" -> 75; draw.h), from run.json `conditions`
//     PATH / [K x] PATH2              number or null: PATH divided by K times PATH2
//                                     (PATH2 may be a number: "/ 200")
//                                     (null when either is null or the divisor 0):
//                                     "scenario.latency.result.median_network_ms /
//                                     2 x conditions.added_latency", round trips
//   (without "scenario.NAME." the lab's first scenario is meant)
//   lab values (from = "lab")
//     params | grad_bytes | grad_bytes_bf16 | ring_bytes_per_rank   numbers
//     idle_usd_per_hour@extra_ms=E,steps_per_hour=S,gpus=N,usd=P
//     stall_usd@stall_s=T,gpus=N,usd=P
//                                     numbers: a what-if priced by
//                                     common/wait_cost.h (the curriculum's RCA)
//     (empty value with `answer` = a literal choice key, rank or ordering)
//   seed labels (from = "seed")
//     LABEL                           rank "rN" = seed_pick(seed, LABEL, ranks) (seed_pick.h)
//
//   checks (kind = "property", and choice options' `when`)
//     scenario NAME STATUS      that scenario ended with STATUS (alternatives
//                               joined by '|', e.g. stalled|deadline)
//     any scenario STATUS       at least one scenario did
//     no scenario STATUS        none did
//     PATH OP NUMBER            a number from the recording compared with OP
//                               in >= <= > < ==
//     PATH OP [K x] PATH2       compared with another number of the recording,
//                               optionally scaled by K (e.g. "scenario.loss.
//                               result.slowdown >= 1.5 x scenario.latency.
//                               result.slowdown"); PATH2 may also be
//                               seed.LABEL: the rank index seed_pick(seed,
//                               LABEL, ranks) draws for the run (seed_pick.h)
//     otherwise                 (choice options only) no earlier option held
//
// Contract: parse_*() and validate_*() throw std::invalid_argument with a
// message fit to follow "exercise 'id': ". `scenarios` is the lab's scenario
// names in lab order. Pure functions.
#pragma once

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/lab/exercise.h"

namespace fabriclab::runner {

using ScenarioNames = std::vector<std::string>;

// A recording path taken apart.
struct RecordingPath {
  std::string scenario;  // empty: the lab's first scenario
  std::string what;  // result | rdma | status | steps_completed | eval | start | final | ordered_by | sync_s
                     // | cost | reaches | conditions (field: the draw's name)
  std::string field;
  long step = 0;
  // sync_s: the model, its number format and the links it is moved over.
  double params = 0;
  std::string dtype;
  double gbps = 0;
  int nics = 0;
  // cost: the cluster and its price (0 for the fields that are not dollars).
  double gpus = 0;
  double usd_per_gpu_hour = 0;
  // reaches: the sweep (its points are the scenarios named NAME-...) and the level.
  std::string sweep;
  double level = 0;
};
enum class PathType { kNumber, kText, kList };

RecordingPath parse_recording_path(const std::string& text);
// "A / [K x] B" taken apart; nullopt when `text` is one path.
struct PathRatio {
  std::string numerator;
  double scale = 1;
  std::string denominator;
};
std::optional<PathRatio> parse_path_ratio(const std::string& text);
// A divisor written as a number ("/ 200"), or nullopt for a path.
std::optional<double> literal_number(const std::string& text);
PathType validate_recording_path(const std::string& text);
// The scenario a parsed path reads: its own, else the lab's first.
std::string path_scenario(const RecordingPath& path, const ScenarioNames& scenarios);
// The scenarios a recording path reads (a slowdown or a cost also reads the baseline:
// "clean", else the first scenario; an ordering reads them all).
ScenarioNames path_scenarios(const std::string& text, const ScenarioNames& scenarios);

// A sweep's points among `scenarios`: the names that start with "SWEEP-"
// (runner/lab/sweep.h names them so), in lab order.
ScenarioNames sweep_scenarios(const std::string& sweep, const ScenarioNames& scenarios);

// The words of from = "lab" numbers.
const std::set<std::string>& lab_value_names();

// A from = "lab" what-if cost taken apart (fields not in its form stay 0).
struct WhatIfCost {
  std::string what;  // idle_usd_per_hour | stall_usd
  double extra_ms = 0;
  double steps_per_hour = 0;
  double stall_s = 0;
  double gpus = 0;
  double usd_per_gpu_hour = 0;
};
// nullopt when `text` is not a what-if; throws std::invalid_argument when it
// is one with a value out of range.
std::optional<WhatIfCost> parse_what_if_cost(const std::string& text);

// A from = "lab" path between two ranks of a scenario:
// `switch_hops@scenario=NAME,from=A,to=B`, the switches a packet from rank A
// to rank B crosses where that scenario places them (scenario_paths.h).
struct HopsQuery {
  std::string scenario;
  int from = 0, to = 0;
};
std::optional<HopsQuery> parse_hops_query(const std::string& text);

// An exercise's derivation against its kind; recording paths must name
// scenarios the lab has.
void validate_derivation(const Exercise& exercise, const ScenarioNames& scenarios);

// The scenario statuses a check may name (recordings/FORMAT.md).
const std::set<std::string>& check_status_words();

struct Check {
  // kIs: "PATH is WORD", a text result (the hot uplink's name) equal to WORD.
  // kComparePaths: "PATH OP [scale x] other_path".
  enum class Form { kOtherwise, kScenario, kAny, kNo, kCompare, kIs, kComparePaths } form =
      Form::kOtherwise;
  std::string scenario;
  std::vector<std::string> statuses;  // any of them matches
  std::string path, op;
  double number = 0;
  std::string word;  // kIs
  double scale = 1;        // kComparePaths
  std::string other_path;  // kComparePaths: a recording path or seed.LABEL
};
// "seed.LABEL" -> "LABEL"; "" when `path` is not a seed pick.
std::string seed_label(const std::string& path);
// A conjunction "CHECK and CHECK ..." split into its checks (one element for
// a single check). A conjunction holds when every part holds; choice options'
// `when` and property checks may use one, a lesson may not (its verdict
// quotes one comparison).
std::vector<std::string> check_parts(const std::string& text);
// One check (not a conjunction).
Check parse_check(const std::string& text);
// A check or a conjunction of checks (none of them "otherwise").
void validate_check(const std::string& text, const ScenarioNames& scenarios);
ScenarioNames check_scenarios(const std::string& text, const ScenarioNames& scenarios);

}  // namespace fabriclab::runner
