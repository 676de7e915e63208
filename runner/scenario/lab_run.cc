#include "runner/scenario/lab_run.h"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "common/input_error.h"
#include "runner/lab/lab_definition.h"
#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/ledger/stale_runs.h"
#include "runner/process/stop_signals.h"
#include "runner/recording/console.h"
#include "runner/report/render_report.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"
#include "runner/scenario/scenario_runner.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {
namespace {

constexpr int kCastWidth = 110;
constexpr int kCastHeight = 32;
constexpr int kFirstMasterPort = 29500;

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &tm);
  return text;
}

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<const ScenarioDefinition*> select_scenarios(const LabDefinition& lab,
                                                        const std::vector<std::string>& names) {
  std::vector<const ScenarioDefinition*> selected;
  for (const auto& s : lab.scenarios) {
    if (names.empty() || std::find(names.begin(), names.end(), s.name) != names.end()) {
      selected.push_back(&s);
    }
  }
  for (const std::string& name : names) {
    bool known = false;
    for (const auto& s : lab.scenarios) known = known || s.name == name;
    if (!known) {
      std::string list;
      for (const auto& s : lab.scenarios) list += (list.empty() ? "" : ", ") + s.name;
      throw InputError("--scenario " + name + ": lab " + lab.id + " has no such scenario (" + list + ")");
    }
  }
  return selected;
}

nlohmann::json host_facts() {
  struct utsname u {};
  ::uname(&u);
  return {{"kernel", u.release}, {"host", u.nodename}};
}

void write_json(const std::string& path, const nlohmann::json& doc) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp);
    out << doc.dump(2) << "\n";
  }
  std::filesystem::rename(temp, path);
}

}  // namespace

int run_lab(const LabRunOptions& options) {
  const LabDefinition lab = load_lab(options.lab_file, options.quick);
  const auto scenarios = select_scenarios(lab, options.scenarios);

  StopSignals::install();
  clean_stale_runs_and_warn();

  const std::string run_id = make_run_id();
  const std::string run_dir = options.output_dir + "/" + lab.id + "-" + utc_stamp() + "-" + run_id;
  std::filesystem::create_directories(run_dir);

  Console console(std::cout);
  console.attach_cast(run_dir + "/session.cast", kCastWidth, kCastHeight,
                      "fabriclab lab " + lab.name);
  console.print(fmt::format("\n== Lab {}: {} ==\n", lab.id, lab.title));

  Ledger ledger(run_id);
  std::unique_ptr<Topology> topology = Topology::build({lab.ranks, run_id, "10.77.0.0"}, ledger);
  console.print(topology->describe() + "\n");

  std::unique_ptr<netem::Backend> backend;
  std::string backend_why;
  for (const auto* s : scenarios) {
    if (s->spec && !backend) backend = netem::make_backend(options.backend, &backend_why);
  }
  if (backend) console.print(fmt::format("impairments: {} backend ({})\n", backend->name(), backend_why));

  nlohmann::json manifest = {
      {"format", "fabriclab-run"},
      {"version", 1},
      {"lab", {{"id", lab.id}, {"name", lab.name}, {"title", lab.title}}},
      {"run_id", run_id},
      {"seed", std::random_device{}()},
      {"started_unix_s", unix_now_s()},
      {"quick", options.quick},
      {"mode", "namespaces"},
      {"privileges", options.privileges},
      {"backend", backend ? backend->name() : "none"},
      {"backend_why", backend_why},
      {"versions", {{"fabriclab", FABRICLAB_VERSION}, {"libtorch", "1.13.1"}}},
      {"ranks", lab.ranks},
      {"trainer", lab.trainer},
      {"scenarios", nlohmann::json::array()}};
  manifest.update(host_facts());

  std::ofstream metrics(run_dir + "/metrics.jsonl");
  int exit_code = 0;
  int port = kFirstMasterPort;
  for (const ScenarioDefinition* s : scenarios) {
    if (StopSignals::stop_requested()) break;
    console.marker("scenario " + s->name + ": start");
    console.print(fmt::format("\n-- scenario {}: {}{} --\n", s->name, s->condition,
                              s->impair.empty() ? "" : " (netem: " + s->impair + ")"));
    ScenarioContext context{&lab, topology.get(), backend.get(), &ledger, &console, run_dir, port++};
    ScenarioOutcome outcome = run_scenario(context, *s);
    for (const auto& event : outcome.events) metrics << event.dump() << "\n";
    metrics.flush();

    std::string verdict = outcome.status;
    std::transform(verdict.begin(), verdict.end(), verdict.begin(), ::toupper);
    console.print(fmt::format("   {}: {} in {:.1f} s, {} of {} steps{}\n", s->name, verdict,
                              outcome.ended_unix_s - outcome.started_unix_s,
                              outcome.steps_completed, outcome.steps_planned,
                              outcome.message.empty() ? "" : " -- " + outcome.message));
    console.marker("scenario " + s->name + ": " + outcome.status);
    if (outcome.status == "failed" || outcome.status == "interrupted") exit_code = 1;
    manifest["scenarios"].push_back({{"name", s->name},
                                     {"condition", s->condition},
                                     {"impairments", {{{"links", s->links}, {"spec", s->impair}, {"applied", outcome.applied}}}},
                                     {"status", outcome.status},
                                     {"message", outcome.message},
                                     {"started_unix_s", outcome.started_unix_s},
                                     {"ended_unix_s", outcome.ended_unix_s},
                                     {"steps_planned", outcome.steps_planned},
                                     {"steps_completed", outcome.steps_completed}});
  }
  metrics.close();
  manifest["ended_unix_s"] = unix_now_s();
  write_json(run_dir + "/run.json", manifest);
  topology.reset();  // ranks are stopped; remove the lab network

  // Results are computed from the metrics, the same way a replay does, and
  // stored in run.json so graders need not recompute them.
  const auto summaries = report::summarize_run(report::read_run_directory(run_dir));
  for (auto& scenario : manifest["scenarios"]) {
    for (const auto& summary : summaries) {
      if (summary.name == scenario["name"]) scenario["result"] = nlohmann::json(summary.result);
    }
  }
  write_json(run_dir + "/run.json", manifest);
  std::ostringstream report_text;
  report::render_report(run_dir, report_text, options.charts_in_terminal);
  console.print("\n" + report_text.str());
  console.print(fmt::format("\nrun directory: {}\n", run_dir));
  console.close_cast();
  return exit_code;
}

}  // namespace fabriclab::runner
