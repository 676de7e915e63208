#include "runner/bench/step_rate.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

namespace fabriclab::runner {

StepRate step_rate(const std::vector<nlohmann::json>& events, int world_size, int64_t warmup) {
  if (world_size < 1) throw std::runtime_error("step rate: world size must be >= 1");
  if (warmup < 1) throw std::runtime_error("step rate: warmup must be >= 1 step");
  // rank -> (step -> ts); the last step each rank reached.
  std::vector<std::map<int64_t, double>> ts(static_cast<size_t>(world_size));
  for (const auto& e : events) {
    if (!e.is_object() || e.value("event", "") != "step") continue;
    const int rank = e.at("rank").get<int>();
    if (rank < 0 || rank >= world_size) {
      throw std::runtime_error("step rate: event of rank " + std::to_string(rank) +
                               " outside world size " + std::to_string(world_size));
    }
    ts[static_cast<size_t>(rank)][e.at("step").get<int64_t>()] = e.at("ts").get<double>();
  }
  int64_t last = -1;
  double start = 0, end = 0;
  for (int rank = 0; rank < world_size; ++rank) {
    const auto& steps = ts[static_cast<size_t>(rank)];
    if (steps.empty())
      throw std::runtime_error("step rate: rank " + std::to_string(rank) + " wrote no step events");
    const int64_t rank_last = steps.rbegin()->first;
    if (last >= 0 && rank_last != last) {
      throw std::runtime_error("step rate: rank " + std::to_string(rank) + " ended at step " +
                               std::to_string(rank_last) + ", rank 0 at step " +
                               std::to_string(last));
    }
    last = rank_last;
    if (last <= warmup) {
      throw std::runtime_error("step rate: rank " + std::to_string(rank) + " reached step " +
                               std::to_string(last) + ", not past the " + std::to_string(warmup) +
                               " warmup steps");
    }
    const auto warm = steps.find(warmup);
    if (warm == steps.end()) {
      throw std::runtime_error("step rate: rank " + std::to_string(rank) +
                               " has no event for step " + std::to_string(warmup) +
                               " (end of warmup)");
    }
    start = rank == 0 ? warm->second : std::max(start, warm->second);
    end = rank == 0 ? steps.rbegin()->second : std::max(end, steps.rbegin()->second);
  }
  if (!(end > start)) throw std::runtime_error("step rate: measured span is not positive");
  StepRate rate;
  rate.steps = last - warmup;
  rate.wall_s = end - start;
  rate.steps_per_s = static_cast<double>(rate.steps) / rate.wall_s;
  return rate;
}

std::vector<nlohmann::json> read_json_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<nlohmann::json> events;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      events.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": not JSON: " + e.what());
    }
  }
  return events;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace fabriclab::runner
