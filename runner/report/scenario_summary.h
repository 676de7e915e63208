// One scenario's result row, computed from its metrics events alone, so a
// recording can be re-summarized anywhere (`fabriclab replay --summary`) and
// the grader checks exercises against the same numbers the student saw.
// Each field is declared (name, unit, kind, meaning) and computed by one
// result part, runner/report/result/ (the table: result_parts.h); its
// definition is in recordings/FORMAT.md ("result"). In short:
//
// - wall_s: from the earliest step start over all ranks (a step event's
//   `ts` is its end, so start = ts - step_ms / 1000) to the latest step end.
// - Step times are the bulk-synchronous view: for each step number, the
//   slowest rank's step_ms (every rank waits for it at the allreduce).
//   median_step_ms is the median of those (mean of the two middle ones for an
//   even count); p99_step_ms is the nearest-rank 99th percentile
//   (the ceil(0.99 n)-th smallest); longest_step_ms is the longest after
//   the first step (the first carries the warm-up) and mean_step_ms the
//   mean of those after the first: what the job pays per step, its rare
//   long steps (a retransmission timeout) included, which a median hides.
// - median_network_ms: the network's own time per step. For each step number,
//   the smallest comm_ms over ranks: the rank that reached the allreduce last
//   waited only for the network, the others also for it. Then the median over
//   steps. Divided by the round trip, it counts the round trips a step pays.
// - comm_share: sum of comm_ms / sum of step_ms over all ranks' steps, [0, 1].
// - final_loss: mean over ranks of each rank's last step loss.
// - accuracy: the last `eval` event's accuracy.
// - retransmits, drops, link_bytes: the last `counters` sample (cumulative).
// - steps_completed: steps every rank completed (min over ranks of the
//   highest step; 0 if a rank of world_size never completed one).
// - tx_bytes_per_step, ring_bytes, wire_overhead, wire_bytes_per_param:
//   wire_bytes.h.
// - slowdown: filled by compute_slowdowns(), not by summarize_scenario().
// - allreduce scenarios only (steps carrying `size` and `time_us`: the
//   `allreduce` workload, doc/metrics.md), nccl-tests' figures with the time
//   of each size and place averaged over ranks (its -a 1) and busbw = size /
//   time x 2(n-1)/n in GB/s (doc/allreduce_bench.md):
//   busbw_gb_per_s      the largest size's out-of-place busbw (the bottom row
//                       of all_reduce_perf: what the link gives a big message)
//   avg_busbw_gb_per_s  nccl-tests' "Avg bus bandwidth": mean over every size
//                       and both places
//   wrong               #wrong summed over ranks, sizes and places (null when
//                       not checked)
//   largest_size        bytes: the size busbw_gb_per_s is of
//   busbw_ratio         busbw_gb_per_s / the baseline's, set by
//                       compute_slowdowns() under the same rules as slowdown
//                       and only when both swept the same largest size
//
// Values that cannot be known are nullopt and null in JSON (no steps: no
// loss; no counters sample: no retransmits). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/report/run_directory.h"
#include "runner/report/rank_times.h"
#include "runner/report/alpha_beta_fit.h"
#include "runner/report/wire_bytes.h"

namespace fabriclab::runner::report {

struct ScenarioResult {
  double wall_s = 0;
  std::optional<double> slowdown;  // wall_s / clean's wall_s
  double median_step_ms = 0;
  double p99_step_ms = 0;
  // The longest of those after the first (which carries the warm-up): the
  // worst stall; null with fewer than two steps.
  std::optional<double> longest_step_ms;
  std::optional<double> mean_step_ms;
  std::optional<double> median_network_ms;  // null in recordings from before it
  double comm_share = 0;
  std::optional<double> final_loss;
  std::optional<double> accuracy;
  std::optional<std::int64_t> retransmits;
  // Of those, the ones the receiver had already (D-SACK; null in recordings
  // from before it), and the rest: retransmits minus those, all of them in
  // such older recordings.
  std::optional<std::int64_t> spurious_retransmits;
  std::optional<std::int64_t> loss_retransmits;
  std::optional<std::int64_t> drops;
  std::optional<std::int64_t> link_bytes;
  int steps_completed = 0;
  // Bytes on the wire per rank and step against the ring's 2(N-1)/N x S
  // (wire_bytes.h); null when the steps carry no tx_bytes.
  std::optional<double> tx_bytes_per_step;
  std::optional<double> ring_bytes;
  std::optional<double> wire_overhead;
  std::optional<double> wire_bytes_per_param;
  // Per-rank truth (rank_times.h): the rank the others waited for at the
  // barrier, the rank whose link the network evidence names (both null when
  // none), and the mean share of step time the other ranks spent waiting.
  std::optional<int> straggler;
  std::optional<int> slow_link;
  // The rank whose connections' median round trip is longer than every
  // other rank's (lab 12: the node a lossless port pauses holds every packet
  // it sends, its ACKs too); null when two share the longest or none has one.
  std::optional<int> longest_rtt;
  std::optional<double> others_wait_share;
  // Allreduce scenarios only (above); absent from JSON for the others.
  std::optional<double> busbw_gb_per_s;
  std::optional<double> avg_busbw_gb_per_s;
  std::optional<std::int64_t> wrong;
  std::optional<double> busbw_ratio;
  std::optional<std::int64_t> largest_size;  // bytes: the size busbw_gb_per_s is of
  // The alpha-beta model fitted to the sweep (alpha_beta_fit.h), when the
  // start event names the algorithm; absent from JSON otherwise. The points
  // and the model's time for each are for the `alpha_beta` table only.
  std::optional<std::string> algorithm;
  std::optional<std::int64_t> fit_steps;
  std::optional<double> fit_alpha_ms;
  std::optional<double> fit_latency_ms;
  std::optional<double> fit_busbw_gb_per_s;
  std::optional<double> crossover_bytes;
  std::optional<double> fit_error;
  std::vector<FitPoint> fit_points;
  std::vector<double> fit_predicted_us;
  // The flow probe's (a `flow` event, runner/scenario/flow_probe.h): one TCP
  // flow's goodput over the scenario's impaired link and the share of its
  // bytes it sent twice (retransmits x MSS / bytes sent). Set by
  // compute_slowdowns(), against the same baseline as slowdown:
  //   step_slowdown = mean_step_ms / the baseline's: the job's step time
  //                   (its first step's warm-up left out, unlike slowdown;
  //                   its timeouts in, unlike a median)
  //   flow_slowdown = the baseline's flow_gbps / this one's
  //   amplification = (step_slowdown - 1) / flow_retx_share: the job's extra
  //                   step time per unit of the flow's resent share (null for
  //                   the baseline itself and when the flow resent nothing).
  // Absent from JSON without a probe.
  std::optional<double> flow_gbps;
  std::optional<double> flow_retx_share;
  std::optional<double> step_slowdown;
  std::optional<double> flow_slowdown;
  std::optional<double> amplification;
  // A queue's (the `queue` setting's ports, the last `counters` sample's
  // `queues`), summed over its ports, depths the deepest port's, in KiB;
  // absent from JSON without a queue:
  //   marks        packets it set CE on
  //   unmarkable   packets it dropped because they could not be marked
  //   paused_ms    time its ports held their upstream links paused
  //   queue_p50_kb, queue_p99_kb, queue_max_kb: the depth arriving packets
  //                found (median, 99th percentile) and the deepest it was
  std::optional<std::int64_t> marks;
  std::optional<std::int64_t> unmarkable;
  std::optional<double> paused_ms;
  std::optional<double> queue_p50_kb;
  std::optional<double> queue_p99_kb;
  std::optional<double> queue_max_kb;
  // The ranks' kernels' ECN counters (netns_counters.h): CE-marked packets
  // that arrived, segments the senders learned were marked (ECE). Absent
  // from JSON in recordings from before them.
  std::optional<std::int64_t> ce_packets;
  std::optional<std::int64_t> ce_echoed;
  // Each neighbour flow's goodput (its `neighbour` event, Mb/s) and its
  // sender's mean smoothed round trip (ms), by name: `NAME_mbps` and
  // `NAME_rtt_ms` in JSON (null when it reported nothing).
  // A fabric with routers (leaf_spine): bytes the ToR-spine uplinks carried
  // (the last `counters` sample's links marked `uplink`, both directions),
  // the uplink that carried the most and its share of them; absent from
  // JSON without uplinks, hot_uplink null when they carried nothing.
  // hot_spine: the upper router whose uplinks ("tor0-spine1": LOWER-UPPER)
  // carried the most in all -- where the hash put the heaviest flows.
  std::optional<std::int64_t> uplink_bytes;
  std::optional<std::string> hot_uplink;
  std::optional<double> hot_uplink_share;
  std::optional<std::string> hot_spine;
  std::map<std::string, std::int64_t> bytes_by_uplink;  // `uplinks` in JSON: {"tor0-spine0": ...}
  std::map<std::string, std::optional<double>> neighbour_mbps;
  std::map<std::string, std::optional<double>> neighbour_rtt_ms;
  // The slowest of N (lab 10; result/slowest_of_n_part.cc, slowest_link.h),
  // only where one tc-netem delay was on every link of the scenario:
  //   link_delay_ms      one frame's mean delay under it
  //   slowest_link_ms    the mean of the largest of N frames' delays (N ranks)
  //   predicted_step_ms  the baseline's median step + 2(N-1) x slowest_link_ms:
  //                      each of the ring's 2(N-1) phases waits for its slowest link
  //   mean_model_step_ms the same with link_delay_ms: what the average predicts
  std::optional<double> link_delay_ms;
  std::optional<double> slowest_link_ms;
  std::optional<double> predicted_step_ms;
  std::optional<double> mean_model_step_ms;
  // This machine's CPU per step (lab 10; result/cpu_part.cc), where the
  // trainer measured it: one rank's CPU time and time waiting for a core,
  // and the job's CPU over the cores -- the step this machine cannot beat.
  std::optional<double> cpu_ms;
  std::optional<double> queued_ms;
  std::optional<double> cpu_floor_ms;
  std::optional<double> cpu_floor_multiple;  // median_step_ms / cpu_floor_ms
  // A link that went down mid-job (`link_fault`; result/link_fault_part.cc):
  // how long it was down, the job's gap around it, from its return to the
  // next step, and the retransmission timers (tcp_sockets.h) from its going
  // down until TCP recovered; absent from JSON where no link went down.
  std::optional<double> flap_s;
  std::optional<double> stall_s;
  std::optional<double> recovery_s;
  std::optional<std::int64_t> max_backoff;
  std::optional<std::int64_t> max_timeouts;
  std::optional<double> max_rto_ms;
  std::optional<double> rto_before_ms;
  std::optional<double> tcp_recovered_s;
  // A fabric uplink that failed mid-job (`link_fault` on "tor0-spine0";
  // result/uplink_fault_part.cc): the failed uplink and its spine, how long
  // the routers forwarded into it before withdrawing its routes (the
  // blackhole), the job's median step in each phase -- before the link went
  // down, rerouted (routes withdrawn until the link came back), after the
  // routes were restored -- and the share of all uplink bytes that went
  // through the failed spine in those phases; absent where no uplink failed.
  std::optional<std::string> failed_uplink;
  std::optional<std::string> failed_spine;
  std::optional<double> blackhole_s;
  std::optional<double> step_ms_before;
  std::optional<double> step_ms_rerouted;
  std::optional<double> step_ms_after;
  std::optional<double> rerouted_slowdown;  // step_ms_rerouted / step_ms_before
  std::optional<double> failed_spine_share_before;
  std::optional<double> failed_spine_share_rerouted;
  std::optional<double> failed_spine_share_after;
  std::optional<double> survivor_share_rerouted;  // 1 - failed_spine_share_rerouted
};

// A scenario as the report shows it: what run.json says about it plus the
// result computed from its events.
struct ScenarioSummary {
  std::string name;
  std::string condition;  // "+100 ms latency"; "" if unknown
  // From run.json, else the scenario_end event; nullopt when neither says.
  std::optional<rundir::ScenarioStatus> status;
  std::string message;    // why, for anything but completed
  std::optional<int> steps_planned;
  // The scenario its slowdown is measured against (run.json's `baseline`):
  // nullopt = the usual "clean" (recordings older than the key), "" = none.
  std::optional<std::string> baseline;
  // A `[[sweep]]` point (run.json `sweep`): its sweep's name and value;
  // "" when the scenario was written out.
  std::string sweep;
  double sweep_value = 0;
  // The tc-netem words of its `impair` (run.json `impairments`), when one
  // value went on all its links; "" otherwise (none, or several values).
  std::string impair;
  ScenarioResult result;
  // A scenario cut off by its deadline: the time from its first step's start
  // to its end (the scenario_end event) / its baseline's wall, a lower bound
  // of the slowdown it would have had (the table shows ">4.6"; not in
  // run.json, where slowdown stays null).
  std::optional<double> cut_off_after_s;  // first step start to scenario_end
  std::optional<double> slowdown_at_least;
  // The wire-bytes figures with their inputs (ranks, params, S), for tables.
  WireBytes wire;
  // Each rank's compute and wait, and the straggler (rank_times.h).
  RankView ranks;
  // The switch's ports as the last `counters` event with them left them
  // (`queues`, keyed "rN": the port toward rank N; recordings/FORMAT.md);
  // null when the scenario had no queue (port_table.h, lab 12).
  nlohmann::json ports;
};

// The result of one scenario's events (any order; other scenarios' events
// must not be mixed in). Events of kinds it does not use are ignored.
// Throws InputError if a used field has the wrong type.
ScenarioResult summarize_scenario(const std::vector<nlohmann::json>& events);
// The same, with the scenario's wire bytes and rank view already computed
// from those events (summarize_run() keeps them on the summary too).
ScenarioResult summarize_scenario(const std::vector<nlohmann::json>& events, const WireBytes& wire,
                                  const RankView& view);

// Sets every summary's result.slowdown = wall_s / wall_s of its baseline
// (its `baseline`, else the scenario named `clean_name`), or nullopt when it
// has none or that scenario is missing, not `completed`, or has no wall time
// -- and for scenarios that are not `completed` themselves (a stalled
// scenario's wall time is only a lower bound).
void compute_slowdowns(std::vector<ScenarioSummary>& summaries,
                       const std::string& clean_name = "clean");

// Every scenario of a run directory, in its order: name, condition,
// status, message and steps_planned from run.json (status falls back to the
// `scenario_end` event's, steps_planned to the trainer's `steps`), results
// from the events, slowdowns against "clean".
std::vector<ScenarioSummary> summarize_run(const RunDirectory& run);

// The status's word, or "unknown" when the run does not say.
std::string status_word(const ScenarioSummary& summary);

// Median and nearest-rank percentile as defined above; 0 for no values.
double median_of(std::vector<double> values);
double percentile_nearest_rank(std::vector<double> values, double percent);

// JSON as in run.json's `result` (optionals as null), by the parts'
// declarations (result_parts.h: result_row_json). from_json throws
// InputError "result: field 'wall_s': expected a number" on a bad object;
// unknown fields are ignored, absent optional fields read as nullopt.
void to_json(nlohmann::json& json, const ScenarioResult& result);
void from_json(const nlohmann::json& json, ScenarioResult& result);

}  // namespace fabriclab::runner::report
