// Hand-made metrics events and run directories for the report tests: what
// the trainer and the runner write (doc/metrics.md, recordings/FORMAT.md),
// with round numbers so the expected results can be worked out by hand.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fabriclab::runner::report::testing {

using nlohmann::json;

inline json start_event(const std::string& scenario, int rank, int world_size, int steps) {
  return {{"v", 1},      {"event", "start"},         {"scenario", scenario}, {"rank", rank},
          {"ts", 999.0}, {"world_size", world_size}, {"steps", steps}};
}

inline json step_event(const std::string& scenario, int rank, int step, double end_ts,
                       double step_ms, double comm_ms, double loss) {
  return {{"v", 1},
          {"event", "step"},
          {"scenario", scenario},
          {"rank", rank},
          {"step", step},
          {"ts", end_ts},
          {"loss", loss},
          {"step_ms", step_ms},
          {"comm_ms", comm_ms},
          {"compute_ms", step_ms - comm_ms},
          {"bytes", 407080},
          {"samples", 256}};
}

// One rank's steps back to back from start_ts: events with cumulative ends.
inline std::vector<json> rank_steps(const std::string& scenario, int rank, double start_ts,
                                    const std::vector<double>& step_ms,
                                    const std::vector<double>& comm_ms,
                                    const std::vector<double>& loss) {
  std::vector<json> events;
  double ts = start_ts;
  for (size_t i = 0; i < step_ms.size(); ++i) {
    ts += step_ms[i] / 1000.0;
    events.push_back(
        step_event(scenario, rank, static_cast<int>(i) + 1, ts, step_ms[i], comm_ms[i], loss[i]));
  }
  return events;
}

// A scenario of `ranks` identical ranks taking `steps` steps of `step_ms`
// (comm a quarter of it), loss falling from 2.3.
inline std::vector<json> uniform_scenario(const std::string& scenario, int ranks, int steps,
                                          double step_ms, double start_ts) {
  std::vector<json> events;
  for (int rank = 0; rank < ranks; ++rank)
    events.push_back(start_event(scenario, rank, ranks, steps));
  for (int rank = 0; rank < ranks; ++rank) {
    std::vector<double> ms(steps, step_ms), comm(steps, step_ms / 4), loss;
    for (int i = 0; i < steps; ++i) loss.push_back(2.3 / (1 + 0.1 * i) + 0.01 * rank);
    for (json& event : rank_steps(scenario, rank, start_ts, ms, comm, loss))
      events.push_back(event);
  }
  return events;
}

// A fresh, empty directory under the temp dir, removed by the destructor
// (kept, to look at the charts, when FABRICLAB_KEEP_TEST_DIRS is set).
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("fabriclab-report-" + tag + "-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    if (std::getenv("FABRICLAB_KEEP_TEST_DIRS")) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Lab 02 as labs/02-dropped-packet names it: clean (80 steps of 100 ms),
// latency (250 ms), loss (600 ms) and `both`, which stalled after 41 of 80
// steps; counters for each, an eval for the completed ones.
inline void write_lab02_run(const std::filesystem::path& dir) {
  json manifest = {
      {"format", "fabriclab-run"},
      {"version", 1},
      {"lab",
       {{"id", "02"}, {"name", "02-dropped-packet"}, {"title", "What one dropped packet costs"}}},
      {"ranks", 2},
      {"trainer", {{"steps", 80}}},
      {"scenarios", json::array()}};
  struct Plan {
    const char* name;
    const char* condition;
    const char* status;
    const char* message;
    int steps;
    double step_ms;
    double start_ts;
    int retransmits;
  };
  const Plan plans[] = {
      {"clean", "no impairment", "completed", "", 80, 100, 1000, 0},
      {"latency", "+100 ms latency", "completed", "", 80, 250, 2000, 4},
      {"loss", "+10% loss", "completed", "", 80, 600, 3000, 1234},
      {"both", "+50 ms, +1% loss", "stalled", "no rank completed a step for 20 s", 41, 400,
       4000, 57},
  };
  std::string metrics;
  for (const Plan& plan : plans) {
    manifest["scenarios"].push_back({{"name", plan.name},
                                     {"condition", plan.condition},
                                     {"status", plan.status},
                                     {"message", plan.message},
                                     {"steps_planned", 80},
                                     {"steps_completed", plan.steps}});
    metrics += json{{"v", 1},
                    {"event", "scenario_start"},
                    {"scenario", plan.name},
                    {"ts", plan.start_ts - 1}}
                   .dump() +
               "\n";
    for (const json& event :
         uniform_scenario(plan.name, 2, plan.steps, plan.step_ms, plan.start_ts)) {
      metrics += event.dump() + "\n";
    }
    if (plan.steps == 80) {
      metrics += json{{"v", 1},
                      {"event", "eval"},
                      {"scenario", plan.name},
                      {"rank", 0},
                      {"ts", plan.start_ts + plan.steps * plan.step_ms / 1000 + 0.1},
                      {"step", 80},
                      {"accuracy", 0.84},
                      {"test_loss", 0.45},
                      {"eval_ms", 12.0}}
                     .dump() +
                 "\n";
    }
    metrics += json{{"v", 1},
                    {"event", "counters"},
                    {"scenario", plan.name},
                    {"ts", plan.start_ts + plan.steps * plan.step_ms / 1000 + 0.2},
                    {"retransmits", plan.retransmits},
                    {"drops", plan.retransmits / 2},
                    {"link_bytes", 8140000}}
                   .dump() +
               "\n";
    metrics += json{{"v", 1},
                    {"event", "scenario_end"},
                    {"scenario", plan.name},
                    {"ts", plan.start_ts + plan.steps * plan.step_ms / 1000 + 0.3},
                    {"status", plan.status},
                    {"message", plan.message}}
                   .dump() +
               "\n";
  }
  write_text(dir / "run.json", manifest.dump(2));
  write_text(dir / "metrics.jsonl", metrics);
}

}  // namespace fabriclab::runner::report::testing
