#include "runner/report/scenario_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "common/input_error.h"
#include "runner/report/wire_bytes.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

double number_field(const json& event, const char* key) {
  auto it = event.find(key);
  if (it == event.end() || !it->is_number()) {
    throw InputError(event.value("event", std::string("?")) + " event: field '" + key +
                     "': expected a number");
  }
  return it->get<double>();
}

struct RankSteps {
  int last_step = 0;
  std::optional<double> last_loss;  // none: the workload trains nothing
};

// One message size of an allreduce sweep, over the ranks that reported it.
struct SizeAccumulator {
  double size = 0;
  double time_us_sum = 0, ip_time_us_sum = 0;
  int ranks = 0;
  std::int64_t wrong = -1;
};

double busbw_of(double size, double time_us, int ranks) {
  // doc/allreduce_bench.md: algbw = S / t (GB/s), busbw = algbw x 2(n-1)/n.
  if (time_us <= 0 || ranks < 1) return 0;
  return size / time_us / 1e3 * 2.0 * (ranks - 1) / ranks;
}

void add_wrong(std::int64_t& total, const json& event, const char* key) {
  const json value = event.value(key, json());
  if (value.is_number() && value.get<double>() >= 0)
    total = std::max<std::int64_t>(total, 0) + value.get<std::int64_t>();
}

// Fills the allreduce fields from the sizes every rank of world_size measured.
void summarize_sweep(const std::map<int, SizeAccumulator>& sizes, int world_size,
                     ScenarioResult& result) {
  const SizeAccumulator* largest = nullptr;
  double busbw_sum = 0;
  int places = 0;
  std::int64_t wrong = -1;
  for (const auto& [step, size] : sizes) {
    if (size.ranks < world_size) continue;  // a size some rank never finished
    const double oop = busbw_of(size.size, size.time_us_sum / size.ranks, world_size);
    const double ip = busbw_of(size.size, size.ip_time_us_sum / size.ranks, world_size);
    busbw_sum += oop + ip;
    places += 2;
    if (size.wrong >= 0) wrong = std::max<std::int64_t>(wrong, 0) + size.wrong;
    if (!largest || size.size >= largest->size) largest = &size;
  }
  if (!largest) return;
  result.busbw_gb_per_s =
      busbw_of(largest->size, largest->time_us_sum / largest->ranks, world_size);
  result.avg_busbw_gb_per_s = busbw_sum / places;
  result.largest_size = static_cast<std::int64_t>(largest->size);
  if (wrong >= 0) result.wrong = wrong;
}

}  // namespace

std::string status_word(const ScenarioSummary& summary) {
  return summary.status ? rundir::to_string(*summary.status) : "unknown";
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double percentile_nearest_rank(std::vector<double> values, double percent) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least `percent`% of the values
  // at or below it. The epsilon keeps 0.99 * 100 from rounding up to 100.
  const double rank = std::ceil(percent / 100.0 * values.size() - 1e-9);
  const size_t index = static_cast<size_t>(std::max(1.0, rank)) - 1;
  return values[std::min(index, values.size() - 1)];
}

namespace {

// The last sample's ports, as one queue: counts summed, depths the deepest.
void summarize_queues(const json& queues, ScenarioResult& result) {
  std::int64_t marks = 0, unmarkable = 0;
  double paused_ms = 0, p50 = 0, p99 = 0, max = 0;
  for (const auto& [rank, port] : queues.items()) {
    if (!port.is_object()) continue;
    marks += port.value("marked", std::int64_t{0});
    unmarkable += port.value("unmarkable", std::int64_t{0});
    paused_ms += port.value("paused_ms", 0.0);
    p50 = std::max(p50, port.value("depth_p50_bytes", 0.0) / 1024);
    p99 = std::max(p99, port.value("depth_p99_bytes", 0.0) / 1024);
    max = std::max(max, port.value("depth_max_bytes", 0.0) / 1024);
  }
  result.marks = marks;
  result.unmarkable = unmarkable;
  result.paused_ms = paused_ms;
  result.queue_p50_kb = p50;
  result.queue_p99_kb = p99;
  result.queue_max_kb = max;
}

// The last sample's router links: what they carried in all, and the one
// that carried the most (the first by name among equals).
void summarize_uplinks(const json& links, ScenarioResult& result) {
  int uplinks = 0;
  std::int64_t total = 0, hottest = 0;
  result.bytes_by_uplink.clear();
  std::optional<std::string> hot;
  for (const auto& [name, link] : links.items()) {
    if (!link.is_object() || !link.value("uplink", false)) continue;
    ++uplinks;
    const std::int64_t bytes =
        link.value("tx_bytes", std::int64_t{0}) + link.value("rx_bytes", std::int64_t{0});
    total += bytes;
    result.bytes_by_uplink[name] = bytes;
    if (bytes > hottest) {
      hottest = bytes;
      hot = name;
    }
  }
  if (uplinks == 0) return;
  std::map<std::string, std::int64_t> by_spine;
  for (const auto& [name, bytes] : result.bytes_by_uplink)
    by_spine[name.substr(name.find('-') + 1)] += bytes;
  std::int64_t spine_max = 0;
  result.hot_spine.reset();
  for (const auto& [spine, bytes] : by_spine)
    if (bytes > spine_max) spine_max = bytes, result.hot_spine = spine;
  result.uplink_bytes = total;
  result.hot_uplink = hot;
  result.hot_uplink_share =
      total > 0 ? std::optional<double>(static_cast<double>(hottest) / static_cast<double>(total))
                : std::nullopt;
}

}  // namespace

ScenarioResult summarize_scenario(const std::vector<json>& events) {
  return summarize_scenario(events, summarize_wire_bytes(events), rank_view(events));
}

ScenarioResult summarize_scenario(const std::vector<json>& events, const WireBytes& wire,
                                  const RankView& view) {
  ScenarioResult result;
  double first_start_s = std::numeric_limits<double>::infinity();
  double last_end_s = -std::numeric_limits<double>::infinity();
  double step_ms_sum = 0;
  double comm_ms_sum = 0;
  std::map<int, double> slowest_step_ms;  // step number -> max over ranks
  std::map<int, double> network_ms;       // step number -> min comm_ms over ranks
  std::map<int, RankSteps> ranks;
  std::map<int, SizeAccumulator> sweep;  // step number -> an allreduce size
  int world_size = 0;

  for (const json& event : events) {
    const std::string kind = event.value("event", std::string());
    if (kind == "start") {
      ranks.try_emplace(static_cast<int>(number_field(event, "rank")));
      if (event.contains("world_size") && event["world_size"].is_number_integer()) {
        world_size = std::max(world_size, event["world_size"].get<int>());
      }
    } else if (kind == "step") {
      const int rank = static_cast<int>(number_field(event, "rank"));
      const int step = static_cast<int>(number_field(event, "step"));
      const double ts = number_field(event, "ts");
      const double step_ms = number_field(event, "step_ms");
      const double comm_ms = number_field(event, "comm_ms");
      const std::optional<double> loss =
          event.contains("loss") ? std::optional<double>(number_field(event, "loss"))
                                 : std::nullopt;
      first_start_s = std::min(first_start_s, ts - step_ms / 1000.0);
      last_end_s = std::max(last_end_s, ts);
      step_ms_sum += step_ms;
      comm_ms_sum += comm_ms;
      double& slowest = slowest_step_ms[step];
      slowest = std::max(slowest, step_ms);
      const auto [network, first] = network_ms.try_emplace(step, comm_ms);
      if (!first) network->second = std::min(network->second, comm_ms);
      RankSteps& rank_steps = ranks[rank];
      if (event.contains("size") && event.contains("time_us")) {
        SizeAccumulator& size = sweep[step];
        size.size = number_field(event, "size");
        size.time_us_sum += number_field(event, "time_us");
        size.ip_time_us_sum += event.contains("ip_time_us") ? number_field(event, "ip_time_us")
                                                            : number_field(event, "time_us");
        ++size.ranks;
        add_wrong(size.wrong, event, "wrong");
        add_wrong(size.wrong, event, "ip_wrong");
      }
      if (step >= rank_steps.last_step) {
        rank_steps.last_step = step;
        rank_steps.last_loss = loss;
      }
    } else if (kind == "eval") {
      result.accuracy = number_field(event, "accuracy");
    } else if (kind == "counters") {
      result.retransmits = static_cast<std::int64_t>(number_field(event, "retransmits"));
      result.drops = static_cast<std::int64_t>(number_field(event, "drops"));
      result.link_bytes = static_cast<std::int64_t>(number_field(event, "link_bytes"));
      if (event.contains("ce_packets")) {
        result.ce_packets = static_cast<std::int64_t>(number_field(event, "ce_packets"));
        result.ce_echoed = static_cast<std::int64_t>(number_field(event, "ce_echoed"));
      }
      if (event.contains("queues") && event["queues"].is_object()) summarize_queues(event["queues"], result);
      if (event.contains("links") && event["links"].is_object()) summarize_uplinks(event["links"], result);
    } else if (kind == "neighbour") {
      const std::string name = event.value("name", std::string("flow"));
      const auto figure = [&](const char* key) {
        const json& value = event.value(key, json());
        return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
      };
      result.neighbour_mbps[name] = figure("mbps");
      result.neighbour_rtt_ms[name] = figure("rtt_ms");
    } else if (kind == "flow") {
      result.flow_gbps = number_field(event, "goodput_gbps");
      result.flow_retx_share = number_field(event, "retx_share");
    }
  }

  if (slowest_step_ms.empty()) return result;  // no step: nothing measured

  result.wall_s = last_end_s - first_start_s;
  result.comm_share = step_ms_sum > 0 ? std::clamp(comm_ms_sum / step_ms_sum, 0.0, 1.0) : 0;
  std::vector<double> step_ms;
  step_ms.reserve(slowest_step_ms.size());
  for (const auto& [step, ms] : slowest_step_ms) step_ms.push_back(ms);
  result.median_step_ms = median_of(step_ms);
  result.p99_step_ms = percentile_nearest_rank(step_ms, 99);
  if (step_ms.size() > 1) {  // slowest_step_ms is ordered by step: [0] is the first
    result.longest_step_ms = *std::max_element(step_ms.begin() + 1, step_ms.end());
    result.mean_step_ms = std::accumulate(step_ms.begin() + 1, step_ms.end(), 0.0) /
                          static_cast<double>(step_ms.size() - 1);
  }
  std::vector<double> network;
  for (const auto& [step, ms] : network_ms) network.push_back(ms);
  result.median_network_ms = median_of(network);

  // Ranks that started but never completed a step count (with 0 steps), as
  // do ranks of world_size that left no event at all.
  int steps_every_rank = std::numeric_limits<int>::max();
  double loss_sum = 0;
  int ranks_with_steps = 0;
  for (const auto& [rank, rank_steps] : ranks) {
    steps_every_rank = std::min(steps_every_rank, rank_steps.last_step);
    if (rank_steps.last_step > 0 && rank_steps.last_loss) {
      loss_sum += *rank_steps.last_loss;
      ++ranks_with_steps;
    }
  }
  if (world_size > static_cast<int>(ranks.size())) steps_every_rank = 0;
  result.steps_completed = steps_every_rank;
  if (ranks_with_steps > 0) result.final_loss = loss_sum / ranks_with_steps;
  if (!sweep.empty())
    summarize_sweep(sweep, std::max(world_size, static_cast<int>(ranks.size())), result);

  result.tx_bytes_per_step = wire.tx_bytes_per_step;
  result.ring_bytes = wire.ring_bytes;
  result.wire_overhead = wire.wire_overhead;
  result.wire_bytes_per_param = wire.wire_bytes_per_param;

  result.straggler = view.straggler;
  result.slow_link = view.slow_link;
  // The others: every rank but the one named slow (worker, else link).
  const std::optional<int> slow = view.straggler ? view.straggler : view.slow_link;
  double share_sum = 0;
  int others = 0;
  for (const RankTimes& t : view.ranks) {
    if (slow && t.rank == *slow) continue;
    share_sum += t.wait_share;
    ++others;
  }
  if (others > 0 && view.ranks.size() > 1) result.others_wait_share = share_sum / others;
  return result;
}

void compute_slowdowns(std::vector<ScenarioSummary>& summaries, const std::string& clean_name) {
  const auto completed = [&](const std::string& name) -> const ScenarioSummary* {
    for (const ScenarioSummary& summary : summaries) {
      if (summary.name == name && summary.status == rundir::ScenarioStatus::kCompleted)
        return &summary;
    }
    return nullptr;
  };
  const auto completed_wall_s = [&](const std::string& name) -> std::optional<double> {
    for (const ScenarioSummary& summary : summaries) {
      if (summary.name == name && summary.status == rundir::ScenarioStatus::kCompleted &&
          summary.result.wall_s > 0) {
        return summary.result.wall_s;
      }
    }
    return std::nullopt;
  };
  for (ScenarioSummary& summary : summaries) {
    summary.result.slowdown.reset();
    summary.result.busbw_ratio.reset();
    summary.result.flow_slowdown.reset();
    summary.result.step_slowdown.reset();
    summary.result.amplification.reset();
    const std::string baseline = summary.baseline.value_or(clean_name);
    // The busbw ratio: the same sweep's largest size under two networks.
    const ScenarioSummary* base = baseline.empty() ? nullptr : completed(baseline);
    const ScenarioResult& r = summary.result;
    if (base && summary.status == rundir::ScenarioStatus::kCompleted && r.busbw_gb_per_s &&
        base->result.busbw_gb_per_s && *base->result.busbw_gb_per_s > 0 &&
        r.largest_size == base->result.largest_size) {
      summary.result.busbw_ratio = *r.busbw_gb_per_s / *base->result.busbw_gb_per_s;
    }
    const std::optional<double> baseline_wall_s =
        baseline.empty() ? std::nullopt : completed_wall_s(baseline);
    summary.slowdown_at_least.reset();
    if (baseline_wall_s && summary.status == rundir::ScenarioStatus::kCompleted &&
        summary.result.wall_s > 0) {
      summary.result.slowdown = summary.result.wall_s / *baseline_wall_s;
    }
    // The flow's slowdown on the same link against the same baseline.
    if (base && r.flow_gbps && base->result.flow_gbps && *r.flow_gbps > 0)
      summary.result.flow_slowdown = *base->result.flow_gbps / *r.flow_gbps;
    if (base && summary.status == rundir::ScenarioStatus::kCompleted && base->result.mean_step_ms &&
        *base->result.mean_step_ms > 0 && r.mean_step_ms && *r.mean_step_ms > 0)
      summary.result.step_slowdown = *r.mean_step_ms / *base->result.mean_step_ms;
    // The job's extra step time against the share of bytes the flow sent twice.
    if (summary.result.step_slowdown && r.flow_retx_share && *r.flow_retx_share > 0 &&
        summary.name != baseline)
      summary.result.amplification = (*summary.result.step_slowdown - 1) / *r.flow_retx_share;
    if (baseline_wall_s && summary.status == rundir::ScenarioStatus::kDeadline &&
        summary.result.wall_s > 0) {
      summary.slowdown_at_least =
          std::max(summary.result.wall_s, summary.cut_off_after_s.value_or(0)) / *baseline_wall_s;
    }
  }
}

std::vector<ScenarioSummary> summarize_run(const RunDirectory& run) {
  const json& manifest = run.manifest;
  std::map<std::string, json> declared;
  if (manifest.contains("scenarios") && manifest["scenarios"].is_array()) {
    for (const json& scenario : manifest["scenarios"]) {
      if (scenario.is_object() && scenario.contains("name") && scenario["name"].is_string()) {
        declared[scenario["name"].get<std::string>()] = scenario;
      }
    }
  }
  std::optional<int> trainer_steps;
  if (manifest.contains("trainer") && manifest["trainer"].is_object()) {
    const json& steps = manifest["trainer"].value("steps", json());
    if (steps.is_number_integer()) trainer_steps = steps.get<int>();
  }

  std::vector<ScenarioSummary> summaries;
  for (const std::string& name : run.scenario_names) {
    const json scenario = declared.count(name) ? declared[name] : json::object();
    const auto events_it = run.events.find(name);
    static const std::vector<json> kNoEvents;
    const std::vector<json>& events = events_it == run.events.end() ? kNoEvents : events_it->second;

    ScenarioSummary summary;
    summary.name = name;
    auto text = [&](const char* key) {
      const json value = scenario.value(key, json());
      return value.is_string() ? value.get<std::string>() : std::string();
    };
    summary.condition = text("condition");
    if (scenario.contains("baseline")) summary.baseline = text("baseline");
    if (const json sweep = scenario.value("sweep", json()); sweep.is_object()) {
      summary.sweep = sweep.value("name", std::string());
      summary.sweep_value = sweep.value("value", 0.0);
    }
    // The reader has checked every status word.
    summary.status = rundir::scenario_status_from_string(text("status"));
    summary.message = text("message");
    for (const json& event : events) {
      if (event.value("event", std::string()) != "scenario_end") continue;
      if (!summary.status) {
        const json word = event.value("status", json());
        if (word.is_string())
          summary.status = rundir::scenario_status_from_string(word.get<std::string>());
      }
      if (summary.message.empty()) summary.message = event.value("message", std::string());
    }
    const json planned = scenario.value("steps_planned", json());
    if (planned.is_number_integer()) {
      summary.steps_planned = planned.get<int>();
    } else {
      summary.steps_planned = trainer_steps;
    }
    summary.wire = summarize_wire_bytes(events);
    summary.ranks = rank_view(events);
    summary.result = summarize_scenario(events, summary.wire, summary.ranks);
    // How long it ran before it was cut off: from its first step's start.
    double first_step_start_s = std::numeric_limits<double>::infinity();
    double end_s = 0;
    for (const json& event : events) {
      const std::string kind = event.value("event", std::string());
      if (kind == "step" && event.contains("ts") && event.contains("step_ms")) {
        first_step_start_s = std::min(first_step_start_s, event.value("ts", 0.0) -
                                                              event.value("step_ms", 0.0) / 1000);
      } else if (kind == "scenario_end") {
        end_s = event.value("ts", 0.0);
      }
    }
    if (end_s > first_step_start_s) summary.cut_off_after_s = end_s - first_step_start_s;
    summaries.push_back(std::move(summary));
  }
  compute_slowdowns(summaries);
  return summaries;
}

void to_json(json& out, const ScenarioResult& result) {
  auto optional = [](const auto& value) { return value ? json(*value) : json(nullptr); };
  out = json{{"wall_s", result.wall_s},
             {"slowdown", optional(result.slowdown)},
             {"median_step_ms", result.median_step_ms},
             {"p99_step_ms", result.p99_step_ms},
             {"longest_step_ms", optional(result.longest_step_ms)},
             {"mean_step_ms", optional(result.mean_step_ms)},
             {"median_network_ms", optional(result.median_network_ms)},
             {"comm_share", result.comm_share},
             {"final_loss", optional(result.final_loss)},
             {"accuracy", optional(result.accuracy)},
             {"retransmits", optional(result.retransmits)},
             {"drops", optional(result.drops)},
             {"link_bytes", optional(result.link_bytes)},
             {"steps_completed", result.steps_completed},
             {"tx_bytes_per_step", optional(result.tx_bytes_per_step)},
             {"ring_bytes", optional(result.ring_bytes)},
             {"wire_overhead", optional(result.wire_overhead)},
             {"wire_bytes_per_param", optional(result.wire_bytes_per_param)},
             {"straggler", optional(result.straggler)},
             {"slow_link", optional(result.slow_link)},
             {"others_wait_share", optional(result.others_wait_share)}};
  if (result.busbw_gb_per_s) {  // an allreduce scenario
    out["busbw_gb_per_s"] = *result.busbw_gb_per_s;
    out["avg_busbw_gb_per_s"] = optional(result.avg_busbw_gb_per_s);
    out["busbw_ratio"] = optional(result.busbw_ratio);
    out["wrong"] = optional(result.wrong);
    out["largest_size"] = optional(result.largest_size);
  }
  if (result.flow_gbps) {  // a scenario with a flow probe
    out["flow_gbps"] = *result.flow_gbps;
    out["flow_retx_share"] = optional(result.flow_retx_share);
    out["step_slowdown"] = optional(result.step_slowdown);
    out["flow_slowdown"] = optional(result.flow_slowdown);
    out["amplification"] = optional(result.amplification);
  }
  if (result.marks) {  // a scenario with a queue
    out["marks"] = *result.marks;
    out["unmarkable"] = optional(result.unmarkable);
    out["paused_ms"] = optional(result.paused_ms);
    out["queue_p50_kb"] = optional(result.queue_p50_kb);
    out["queue_p99_kb"] = optional(result.queue_p99_kb);
    out["queue_max_kb"] = optional(result.queue_max_kb);
  }
  if (result.ce_packets) {
    out["ce_packets"] = *result.ce_packets;
    out["ce_echoed"] = optional(result.ce_echoed);
  }
  if (result.uplink_bytes) {  // a fabric with routers
    out["uplink_bytes"] = *result.uplink_bytes;
    out["hot_uplink"] = optional(result.hot_uplink);
    out["hot_uplink_share"] = optional(result.hot_uplink_share);
    out["uplinks"] = result.bytes_by_uplink;
    out["hot_spine"] = optional(result.hot_spine);
  }
  for (const auto& [name, mbps] : result.neighbour_mbps) out[name + "_mbps"] = optional(mbps);
  for (const auto& [name, rtt] : result.neighbour_rtt_ms) out[name + "_rtt_ms"] = optional(rtt);
}

void from_json(const json& in, ScenarioResult& result) {
  if (!in.is_object()) throw InputError("result: expected a JSON object");
  auto required = [&](const char* key) {
    auto it = in.find(key);
    if (it == in.end() || !it->is_number()) {
      throw InputError(std::string("result: field '") + key + "': expected a number");
    }
    return it->get<double>();
  };
  auto optional = [&](const char* key) -> std::optional<double> {
    auto it = in.find(key);
    if (it == in.end() || it->is_null()) return std::nullopt;
    if (!it->is_number()) {
      throw InputError(std::string("result: field '") + key + "': expected a number or null");
    }
    return it->get<double>();
  };
  auto optional_count = [&](const char* key) -> std::optional<std::int64_t> {
    const auto value = optional(key);
    if (!value) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(*value));
  };
  result.wall_s = required("wall_s");
  result.slowdown = optional("slowdown");
  result.median_step_ms = required("median_step_ms");
  result.p99_step_ms = required("p99_step_ms");
  result.longest_step_ms = optional("longest_step_ms");
  result.mean_step_ms = optional("mean_step_ms");
  result.median_network_ms = optional("median_network_ms");
  result.comm_share = required("comm_share");
  result.final_loss = optional("final_loss");
  result.accuracy = optional("accuracy");
  result.retransmits = optional_count("retransmits");
  result.drops = optional_count("drops");
  result.link_bytes = optional_count("link_bytes");
  result.steps_completed = static_cast<int>(optional("steps_completed").value_or(0));
  result.tx_bytes_per_step = optional("tx_bytes_per_step");
  result.ring_bytes = optional("ring_bytes");
  result.wire_overhead = optional("wire_overhead");
  result.wire_bytes_per_param = optional("wire_bytes_per_param");
  const auto rank_of = [&](const char* key) -> std::optional<int> {
    const auto value = optional(key);
    if (!value) return std::nullopt;
    return static_cast<int>(std::llround(*value));
  };
  result.straggler = rank_of("straggler");
  result.slow_link = rank_of("slow_link");
  result.others_wait_share = optional("others_wait_share");
  result.busbw_gb_per_s = optional("busbw_gb_per_s");
  result.avg_busbw_gb_per_s = optional("avg_busbw_gb_per_s");
  result.busbw_ratio = optional("busbw_ratio");
  result.wrong = optional_count("wrong");
  result.largest_size = optional_count("largest_size");
  result.flow_gbps = optional("flow_gbps");
  result.flow_retx_share = optional("flow_retx_share");
  result.step_slowdown = optional("step_slowdown");
  result.flow_slowdown = optional("flow_slowdown");
  result.amplification = optional("amplification");
  result.marks = optional_count("marks");
  result.unmarkable = optional_count("unmarkable");
  result.paused_ms = optional("paused_ms");
  result.queue_p50_kb = optional("queue_p50_kb");
  result.queue_p99_kb = optional("queue_p99_kb");
  result.queue_max_kb = optional("queue_max_kb");
  result.ce_packets = optional_count("ce_packets");
  result.ce_echoed = optional_count("ce_echoed");
  result.uplink_bytes = optional_count("uplink_bytes");
  result.hot_uplink_share = optional("hot_uplink_share");
  if (const auto hot = in.find("hot_uplink"); hot != in.end() && !hot->is_null()) {
    if (!hot->is_string()) throw InputError("result: field 'hot_uplink': expected a link's name or null");
    result.hot_uplink = hot->get<std::string>();
  }
  if (const auto spine = in.find("hot_spine"); spine != in.end() && spine->is_string())
    result.hot_spine = spine->get<std::string>();
  if (const auto uplinks = in.find("uplinks"); uplinks != in.end() && uplinks->is_object()) {
    for (const auto& [name, bytes] : uplinks->items()) {
      if (!bytes.is_number()) throw InputError("result: uplinks." + name + ": expected a number of bytes");
      result.bytes_by_uplink[name] = bytes.get<std::int64_t>();
    }
  }
  const auto read_per_flow = [&](const std::string& suffix,
                                  std::map<std::string, std::optional<double>>& into) {
    for (const auto& [key, value] : in.items()) {
      if (key.size() > suffix.size() &&
          key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0)
        into[key.substr(0, key.size() - suffix.size())] = optional(key.c_str());
    }
  };
  read_per_flow("_mbps", result.neighbour_mbps);
  read_per_flow("_rtt_ms", result.neighbour_rtt_ms);
}

}  // namespace fabriclab::runner::report
