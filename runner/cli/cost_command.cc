// `fabriclab cost RUN|LAB`: prices a run's slowdowns (lab 06): the idle
// GPU-seconds per hour each scenario's extra time per step costs, in dollars
// on clusters of N GPUs at a price per GPU-hour, and its worst stall's
// dollars -- the arithmetic of common/wait_cost.h on the run's run.json and
// metrics, so the student can check it by hand. Without a run it prices a
// what-if: `--extra-ms 28 --steps-per-hour 8000 --gpus 512` is the
// curriculum's RCA, `--stall-s 10 --gpus 1024` its 10 s stall.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include <spdlog/fmt/fmt.h>
#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "common/wait_cost.h"
#include "runner/cli/commands.h"
#include "runner/grading/graded_run.h"
#include "runner/report/cost_table.h"
#include "runner/report/result/result_parts.h"
#include "runner/report/run_directory.h"
#include "runner/report/wait_cost.h"

namespace fabriclab::cli {
namespace {

namespace fs = std::filesystem;
namespace report = runner::report;
using nlohmann::json;

struct CostOptions {
  std::string run;  // a run directory, or a lab number: its newest run
  std::string runs_dir = "runs";
  report::CostSettings settings;  // its `scenarios`: --scenario
  std::optional<double> extra_ms;
  std::optional<double> steps_per_hour;
  std::optional<double> stall_s;
  bool json = false;
};

void validate(const CostOptions& o) {
  for (double gpus : o.settings.gpus) {
    if (!(gpus > 0) || !std::isfinite(gpus))
      throw InputError("--gpus: expected counts above 0, got " + fmt::format("{}", gpus));
  }
  if (!(o.settings.usd_per_gpu_hour > 0) || !std::isfinite(o.settings.usd_per_gpu_hour))
    throw InputError("--usd-per-gpu-hour: expected a price above 0");
  const bool what_if = o.extra_ms || o.steps_per_hour || o.stall_s;
  if (what_if && !o.run.empty()) {
    throw InputError(
        "give a run to price, or --extra-ms/--steps-per-hour/--stall-s for a what-if, "
        "not both");
  }
  if (!what_if && o.run.empty()) {
    throw InputError(
        "nothing to price: give a run directory or a lab number (fabriclab cost 06), "
        "or a what-if (--extra-ms 28 --steps-per-hour 8000)");
  }
  if (o.extra_ms.has_value() != o.steps_per_hour.has_value()) {
    throw InputError(
        "--extra-ms and --steps-per-hour go together: idle s per GPU-hour = extra x "
        "steps per hour");
  }
  if (o.steps_per_hour && !(*o.steps_per_hour > 0 && std::isfinite(*o.steps_per_hour)))
    throw InputError("--steps-per-hour: expected above 0");
  if (o.extra_ms && !std::isfinite(*o.extra_ms)) throw InputError("--extra-ms: expected a number of milliseconds");
  if (o.stall_s && !(*o.stall_s >= 0 && std::isfinite(*o.stall_s))) throw InputError("--stall-s: expected 0 or more");
}

// RUN as given: a directory holding run.json, else a lab number's newest run.
std::string run_directory(const CostOptions& o) {
  std::error_code error;
  if (fs::is_directory(o.run, error)) return o.run;
  if (o.run.find('/') == std::string::npos) {
    return runner::grading::newest_run_dir(o.runs_dir, o.run);
  }
  throw InputError(o.run + ": not found (expected a run directory or a lab number)");
}

void check_names(const std::vector<report::ScenarioSummary>& all,
                 const std::vector<std::string>& names, const std::string& dir) {
  std::string known;  // the names that would have been right
  for (const auto& s : all) known += (known.empty() ? "" : ", ") + s.name;
  for (const std::string& name : names) {
    bool found = false;
    for (const auto& s : all) found = found || s.name == name;
    if (!found)
      throw InputError(dir + ": the run has no scenario '" + name + "' (expected one of: " + known + ")");
  }
}

json clusters_json(const report::CostSettings& settings) {
  json clusters = json::array();
  for (double gpus : settings.gpus) {
    const double hour = cluster_usd_per_hour(gpus, settings.usd_per_gpu_hour);
    clusters.push_back({{"gpus", gpus},
                        {"usd_per_hour", hour},
                        {"usd_per_minute", hour / 60},
                        {"usd_per_second", hour / kSecondsPerHour}});
  }
  return clusters;
}

std::optional<double> seconds(const std::optional<double>& ms) {
  if (!ms) return std::nullopt;
  return *ms / 1000;
}

json priced_json(double idle_s_per_gpu_hour, std::optional<double> stall_s,
                 const report::CostSettings& settings) {
  json idle = json::object();
  json stall = json::object();
  for (double gpus : settings.gpus) {
    const std::string key = fmt::format("{:g}", gpus);
    idle[key] = idle_usd_per_hour(idle_s_per_gpu_hour, gpus, settings.usd_per_gpu_hour);
    if (stall_s) stall[key] = stall_usd(*stall_s, gpus, settings.usd_per_gpu_hour);
  }
  return {{"idle_usd_per_hour", idle}, {"stall_usd", stall_s ? stall : json(nullptr)}};
}

void price_what_if(const CostOptions& o) {
  const report::CostSettings& settings = o.settings;
  json out = {{"usd_per_gpu_hour", settings.usd_per_gpu_hour},
              {"clusters", clusters_json(settings)}};
  std::string text = fmt::format("At ${:g} per GPU-hour:\n\n{}", settings.usd_per_gpu_hour,
                                 report::format_cluster_cost(settings));
  double idle_s = 0;
  if (o.extra_ms) {
    idle_s = idle_seconds_per_gpu_hour(*o.extra_ms / 1000, *o.steps_per_hour);
    text += fmt::format(
        "\n{:g} ms extra per step x {} steps per hour = {} s idle in each GPU-hour "
        "({:.1f}%)\n",
        *o.extra_ms, report::format_count(*o.steps_per_hour), report::format_count(idle_s),
        idle_s / kSecondsPerHour * 100);
    for (double gpus : settings.gpus) {
      text += fmt::format(
          "  on {} GPUs: {} per hour\n", report::format_count(gpus),
          report::format_usd(idle_usd_per_hour(idle_s, gpus, settings.usd_per_gpu_hour)));
    }
    out["idle_s_per_gpu_hour"] = idle_s;
  }
  if (o.stall_s) {
    text += fmt::format("\nA {:g} s stall of the whole cluster:\n", *o.stall_s);
    for (double gpus : settings.gpus) {
      text +=
          fmt::format("  on {} GPUs: {}\n", report::format_count(gpus),
                      report::format_usd(stall_usd(*o.stall_s, gpus, settings.usd_per_gpu_hour)));
    }
  }
  const json priced = priced_json(idle_s, o.stall_s, settings);
  if (o.extra_ms) out["idle_usd_per_hour"] = priced["idle_usd_per_hour"];
  if (o.stall_s) out["stall_usd"] = priced["stall_usd"];
  std::cout << (o.json ? out.dump(2) + "\n" : text);
}

void price_run(const CostOptions& o) {
  const std::string dir = run_directory(o);
  const report::RunDirectory run = report::read_run_directory(dir);
  const std::vector<report::ScenarioSummary> summaries = report::summarize_run(run);
  check_names(summaries, o.settings.scenarios, dir);

  const std::vector<report::PricedScenario> priced =
      report::priced_scenarios(summaries, o.settings.scenarios);
  for (const std::string& name : o.settings.scenarios) {
    if (std::none_of(priced.begin(), priced.end(),
                     [&](const auto& p) { return p.summary->name == name; })) {
      throw InputError(dir + ": scenario '" + name +
                       "' has no slowdown to price (did it and its baseline complete?)");
    }
  }
  json scenarios = json::array();
  for (const auto& [summary, cost] : priced) {
    const report::ScenarioSummary& s = *summary;
    json row = {{"name", s.name},
                {"baseline", s.baseline.value_or("clean")},
                {"slowdown", report::result_value(s.result, "slowdown")},  // priced: it has one
                {"step_s", cost.step_s},
                {"baseline_step_s", cost.baseline_step_s},
                {"extra_ms", cost.extra_ms},
                {"steps_per_hour", cost.steps_per_hour},
                {"idle_s_per_gpu_hour", cost.idle_s_per_gpu_hour},
                {"stall_ms", cost.stall_ms ? json(*cost.stall_ms) : json(nullptr)}};
    row.update(priced_json(cost.idle_s_per_gpu_hour, seconds(cost.stall_ms), o.settings));
    scenarios.push_back(row);
  }
  if (scenarios.empty()) {
    throw InputError(dir +
                     ": no scenario has a slowdown to price (a slowdown needs the scenario "
                     "and its baseline, usually clean, to complete)");
  }
  if (o.json) {
    json out = {{"run", dir},
                {"usd_per_gpu_hour", o.settings.usd_per_gpu_hour},
                {"clusters", clusters_json(o.settings)},
                {"scenarios", scenarios}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << "Run " << dir << "\n\n" << report::format_cost_table(summaries, o.settings);
}

}  // namespace

void add_cost_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "cost",
      "Price a run's slowdowns: idle GPU-seconds per hour and dollars on clusters of N GPUs "
      "(lab 06); or a what-if with --extra-ms/--steps-per-hour/--stall-s");
  auto o = std::make_shared<CostOptions>();
  command->add_option("run", o->run,
                      "Run directory (or recording) to price, or a lab number: its newest run "
                      "under --runs");
  command->add_option("--scenario", o->settings.scenarios,
                      "Price only these scenarios: repeatable, or a list: --scenario clean,latency")
      ->delimiter(',');
  command->add_option("--gpus", o->settings.gpus, "Cluster sizes, e.g. --gpus 256,1024,4096")
      ->delimiter(',')
      ->capture_default_str();
  command
      ->add_option("--usd-per-gpu-hour", o->settings.usd_per_gpu_hour,
                   "Price of one GPU for an hour, dollars")
      ->capture_default_str();
  command->add_option("--extra-ms", o->extra_ms, "What-if: milliseconds lost per step");
  command->add_option("--steps-per-hour", o->steps_per_hour,
                      "What-if: steps the job makes per hour");
  command->add_option("--stall-s", o->stall_s, "What-if: one stall of the whole cluster, seconds");
  command->add_option("--runs", o->runs_dir, "Folder holding run directories (default: runs)");
  command->add_flag("--json", o->json, "Print the figures as one JSON object");
  command->footer(
      "Examples:\n"
      "  fabriclab cost 06                                  the newest run of lab 06\n"
      "  fabriclab cost runs/05-... --scenario case-a --gpus 512\n"
      "  fabriclab cost --extra-ms 28 --steps-per-hour 8000 --gpus 512   the curriculum's RCA\n"
      "  fabriclab cost --stall-s 10 --gpus 1024                         a 10 s stall");
  command->callback([o] {
    validate(*o);
    if (o->run.empty()) {
      price_what_if(*o);
    } else {
      price_run(*o);
    }
  });
}

}  // namespace fabriclab::cli
