// Test fixture for the grader: hand-made recordings (run.json +
// metrics.jsonl per recordings/FORMAT.md) whose times add up like a real
// trainer's, and a lab folder with one exercise of every kind. Tests change
// the generated JSON before writing it to doctor or truncate a recording.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabriclab::runner::grading::testing {

struct FakeScenario {
  std::string name;
  std::string status = "completed";
  long steps_planned = 10;
  long steps_done = 10;  // per rank; fewer than planned for a stall
  double step_ms = 100;  // every step of every rank
  double comm_ms = 10;
  long eval_every = 5;  // also after the last planned step
  double eval_ms = 20;
};

// Accuracy the fake trainer reaches after `step`: 0.1 + 0.08 step, at most 0.9.
double fake_accuracy(long step);

struct FakeRun {
  std::string lab_id = "02";
  uint64_t seed = 1234567;
  int ranks = 2;
  std::vector<FakeScenario> scenarios;
  // Built by build(), changed by tests, written by write().
  nlohmann::json run;
  std::vector<nlohmann::json> metrics;

  void build();
  std::string write(const std::string& dir) const;    // creates dir; returns it
  nlohmann::json& scenario(const std::string& name);  // in `run`
};

// Lab 02's four scenarios: clean 10 x 100 ms, latency 2.5x, loss 5x,
// latency-loss stalled after 3 steps of 2 s.
FakeRun lab02_run();

// A lab folder `<root>/02-test/lab.toml` with the four scenarios and one
// exercise of every kind (see grading_fixture.cc); returns <root>.
std::string write_lab02(const std::string& root);
// The same lab with `extra` appended (e.g. a broken [[exercise]]); returns the lab.toml path.
std::string write_lab02_with(const std::string& root, const std::string& extra,
                             bool keep_exercises = true);

// Correct answers for lab02_run() graded with write_lab02()'s exercises.
std::string correct_answers_02();

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);

}  // namespace fabriclab::runner::grading::testing
