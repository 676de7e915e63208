#include "tests/runner/grading/grading_fixture.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/lab/seed_pick.h"

namespace fabriclab::runner::grading::testing {

using nlohmann::json;
namespace fs = std::filesystem;

double fake_accuracy(long step) { return std::min(0.9, 0.1 + 0.08 * step); }

void FakeRun::build() {
  run = {{"format", "fabriclab-run"},
         {"version", 1},
         {"lab", {{"id", lab_id}, {"name", lab_id + "-test"}, {"title", "test"}}},
         {"run_id", "abc123"},
         {"seed", seed},
         {"ranks", ranks},
         {"trainer", {{"model", "mlp"}, {"width", 128}}},
         {"scenarios", json::array()}};
  metrics.clear();
  double clean_wall_s = 0;
  double t0 = 1795320000.0;
  for (const FakeScenario& s : scenarios) {
    std::vector<json> events;
    events.push_back(
        {{"v", 1}, {"event", "scenario_start"}, {"scenario", s.name}, {"ts", t0 - 0.5}});
    double wall_s = 0, accuracy = -1;
    for (int rank = 0; rank < ranks; ++rank) {
      double t = t0;
      events.push_back({{"v", 1},
                        {"event", "start"},
                        {"rank", rank},
                        {"scenario", s.name},
                        {"ts", t - 0.1},
                        {"world_size", ranks},
                        {"params", 118282},
                        {"grad_bytes", 473128}});
      for (long step = 1; step <= s.steps_done; ++step) {
        t += s.step_ms / 1000;
        events.push_back({{"v", 1},
                          {"event", "step"},
                          {"rank", rank},
                          {"scenario", s.name},
                          {"ts", t},
                          {"step", step},
                          {"loss", 2.0 / step},
                          {"step_ms", s.step_ms},
                          {"comm_ms", s.comm_ms},
                          {"compute_ms", s.step_ms - s.comm_ms},
                          {"bytes", 473128},
                          {"samples", 256}});
        wall_s = std::max(wall_s, t - t0);
        if (step % s.eval_every == 0 || step == s.steps_planned) {
          t += s.eval_ms / 1000;
          accuracy = fake_accuracy(step);
          events.push_back({{"v", 1},
                            {"event", "eval"},
                            {"rank", rank},
                            {"scenario", s.name},
                            {"ts", t},
                            {"step", step},
                            {"accuracy", accuracy},
                            {"test_loss", 1.0},
                            {"eval_ms", s.eval_ms}});
        }
      }
      if (s.status == "completed") {
        events.push_back({{"v", 1},
                          {"event", "final"},
                          {"rank", rank},
                          {"scenario", s.name},
                          {"ts", t + 0.001},
                          {"steps", s.steps_done},
                          {"wall_s", t - t0},
                          {"accuracy", accuracy}});
      }
    }
    events.push_back({{"v", 1},
                      {"event", "scenario_end"},
                      {"scenario", s.name},
                      {"ts", t0 + wall_s + 1},
                      {"status", s.status},
                      {"message", ""}});
    std::stable_sort(events.begin(), events.end(), [](const json& a, const json& b) {
      return a["ts"].get<double>() < b["ts"].get<double>();
    });
    metrics.insert(metrics.end(), events.begin(), events.end());
    if (s.name == "clean") clean_wall_s = wall_s;
    // As runner/report computes it: a stalled scenario has a wall time (a
    // lower bound) but no slowdown.
    json result = {
        {"wall_s", wall_s},
        {"median_step_ms", s.step_ms},
        {"accuracy", s.status == "completed" ? json(accuracy) : json()},
        {"slowdown",
         s.status == "completed" && clean_wall_s > 0 ? json(wall_s / clean_wall_s) : json()}};
    run["scenarios"].push_back({{"name", s.name},
                                {"condition", s.name},
                                {"status", s.status},
                                {"message", s.status == "completed" ? "" : "no step for 20 s"},
                                {"steps_planned", s.steps_planned},
                                {"steps_completed", s.steps_done},
                                {"result", result}});
    t0 += 1000;
  }
}

std::string FakeRun::write(const std::string& dir) const {
  fs::create_directories(dir);
  write_text(dir + "/run.json", run.dump(2));
  std::ostringstream lines;
  for (const json& e : metrics) lines << e.dump() << "\n";
  write_text(dir + "/metrics.jsonl", lines.str());
  return dir;
}

json& FakeRun::scenario(const std::string& name) {
  for (json& s : run["scenarios"]) {
    if (s["name"] == name) return s;
  }
  throw std::runtime_error("no scenario " + name);
}

FakeRun lab02_run() {
  FakeRun run;
  run.scenarios = {{"clean", "completed", 10, 10, 100, 10},
                   {"latency", "completed", 10, 10, 250, 160},
                   {"loss", "completed", 10, 10, 500, 410},
                   {"latency-loss", "stalled", 10, 3, 2000, 1900}};
  run.build();
  return run;
}

namespace {

const char* kLab02Head = R"(
[lab]
id = "02"
title = "test lab"
summary = "test"

[trainer]
model = "mlp"
width = 128
steps = 10

[topology]
ranks = 2

[[scenario]]
name = "clean"

[[scenario]]
name = "latency"
impair = "delay 100ms"

[[scenario]]
name = "loss"
impair = "loss 10%"

[[scenario]]
name = "latency-loss"
impair = "delay 50ms loss 1%"
)";

const char* kLab02Exercises = R"(
[[exercise]]
id = "grad-bytes"
prompt = "How many bytes is one gradient of this lab's model?"
points = 2
hints = ["params x 4 bytes; count weights and biases of every layer"]
kind = "number"
unit = "bytes"
from = "lab"
value = "grad_bytes"

[[exercise]]
id = "accuracy-step-5"
prompt = "Test accuracy of your clean run after step 5?"
hints = ["look for the eval event after step 5"]
kind = "number"
tolerance = 0.005
from = "recording"
value = "scenario.clean.eval.accuracy@step=5"

[[exercise]]
id = "slowdown-loss"
prompt = "Slowdown of loss against clean?"
points = 2
hints = ["divide the wall times"]
kind = "number"
tolerance = "10%"
from = "recording"
value = "scenario.loss.result.slowdown"

[[exercise]]
id = "stall"
prompt = "Which scenario stalled, and why?"
points = 3
hints = ["read the status column"]
kind = "choice"
from = "recording"
options = [
  { key = "latency", text = "latency: the window can't fill", when = "scenario latency stalled" },
  { key = "latency-loss", text = "latency+loss: timeouts on a long round trip stall the barrier", when = "scenario latency-loss stalled" },
  { key = "latency-loss-bw", text = "latency+loss: the bandwidth is too low" },
  { key = "none", text = "none stalled", when = "otherwise" },
]

[[exercise]]
id = "slow-rank"
prompt = "Which rank's link was slow?"
hints = ["compare per-rank wait times"]
kind = "rank"
from = "seed"
value = "slow_rank"

[[exercise]]
id = "order"
prompt = "Order the completed scenarios by wall time, fastest first."
points = 3
hints = ["sort by wall_s"]
kind = "ordering"
from = "recording"
value = "scenarios.ordered_by.result.wall_s"

[[exercise]]
id = "clean-done"
prompt = "Your clean scenario must complete."
hints = ["run the lab again until clean completes"]
kind = "property"
check = "scenario clean completed"
)";

}  // namespace

std::string write_lab02_with(const std::string& root, const std::string& extra,
                             bool keep_exercises) {
  fs::create_directories(root + "/02-test");
  const std::string path = root + "/02-test/lab.toml";
  write_text(path, std::string(kLab02Head) + (keep_exercises ? kLab02Exercises : "") + extra);
  return path;
}

std::string write_lab02(const std::string& root) {
  write_lab02_with(root, "");
  return root;
}

std::string correct_answers_02() {
  const uint64_t slow = seed_pick(1234567, "slow_rank", 2);
  // 118282 params x 4 bytes; eval after step 5: 0.5; loss 5x clean.
  return "grad-bytes = 473128\n"
         "accuracy-step-5 = 0.5\n"
         "slowdown-loss = 5.2\n"
         "stall = \"latency-loss\"\n"
         "slow-rank = \"r" +
         std::to_string(slow) +
         "\"\n"
         "order = [\"clean\", \"latency\", \"loss\", \"latency-loss\"]\n";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace fabriclab::runner::grading::testing
