#include "runner/scenario/lab_fit.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/program_on_path.h"
#include "common/temp_dir.h"
#include "runner/process/iperf_client.h"
#include "runner/scenario/host_preflight.h"
#include "runner/scenario/lab_run.h"

namespace fabriclab::runner {

namespace {

// The median compute_ms of a few steps of the lab's job, one rank, here.
std::optional<double> measure_step_compute_ms(const LabDefinition& lab) {
  if (lab.workload.kind != "train") return std::nullopt;
  const TempDir tmp("fabriclab-fit");
  const std::string metrics = (tmp.path() / "metrics.jsonl").string();
  std::vector<std::string> argv = {"/proc/self/exe", "train", "--data", "synthetic", "--steps",
                                   "4", "--log-every", "0", "--metrics", metrics};
  for (const char* key : {"model", "width", "batch", "threads"}) {
    const std::string value = lab.workload.param(key);
    if (!value.empty()) {
      argv.push_back(std::string("--") + key);
      argv.push_back(value);
    }
  }
  run_client(argv, -1, (tmp.path() / "train.out").string(), 120);
  std::vector<double> compute;
  std::ifstream in(metrics);
  for (std::string line; std::getline(in, line);) {
    const auto event = nlohmann::json::parse(line, nullptr, false);
    // The first step carries the warm-up.
    if (event.value("event", "") == "step" && event.value("step", 0) > 1)
      compute.push_back(event.value("compute_ms", 0.0));
  }
  if (compute.empty()) return std::nullopt;
  std::sort(compute.begin(), compute.end());
  return compute[compute.size() / 2];
}

}  // namespace

LabFit fit_lab(const LabDefinition& lab, bool measure_compute) {
  LabFit fit;
  const auto worse = [&](LabFitVerdict v, const std::string& why) {
    fit.verdict = std::max(fit.verdict, v);
    fit.notes.insert(fit.notes.begin(), why);
  };
  const std::vector<const ScenarioDefinition*> scenarios = select_scenarios(lab, {});  // every one
  try {
    refuse_what_this_host_cannot_run(lab, scenarios);
  } catch (const HostRefusesLab& e) {
    worse(LabFitVerdict::kCannot, e.what());
  }
  try {
    std::string why;
    const auto backend =
        backend_for(scenarios, lab.fabric.link_settings, netem::BackendKind::kAuto, &why);
    if (!backend) {
      fit.notes.push_back("impairments: none");
    } else if (backend->name() == "userspace") {
      worse(LabFitVerdict::kRunsWithCaveat,
            "impairments on the userspace backend (this kernel has no sch_netem): fabriclab's "
            "own process holds the packets at each receiver, on this machine's CPU; a stock "
            "kernel uses netem");
    } else {
      fit.notes.push_back("impairments: " + why);
    }
  } catch (const std::exception& e) {
    worse(LabFitVerdict::kCannot, std::string("no impairment backend: ") + e.what());
  }
  bool flows = false;
  for (const ScenarioDefinition* s : scenarios)
    flows = flows || s->flow_probe_s > 0 || !s->neighbours.empty();
  if (flows && !program_on_path("iperf3"))
    worse(LabFitVerdict::kCannot, "its flows run iperf3, which is not installed (apt install iperf3)");
  if (measure_compute) {
    fit.step_compute_ms = measure_step_compute_ms(lab);
    const std::string modelled = lab.workload.param("step_compute_ms");
    if (fit.step_compute_ms && !modelled.empty()) {
      const double model_ms = std::stod(modelled);
      if (*fit.step_compute_ms > model_ms)
        worse(LabFitVerdict::kRunsWithCaveat,
              fmt::format("a step computes in {:.0f} ms here, longer than the {:.0f} ms the lab "
                          "models: the network's share of a step is smaller than its README's",
                          *fit.step_compute_ms, model_ms));
      else
        fit.notes.push_back(fmt::format("a step computes in {:.0f} ms here; the lab models {:.0f} "
                                        "ms (the rest is slept, as a GPU's compute would take)",
                                        *fit.step_compute_ms, model_ms));
    } else if (fit.step_compute_ms) {
      fit.notes.push_back(fmt::format("a step computes in {:.0f} ms here (its factors are "
                                      "measured against its own clean run)",
                                      *fit.step_compute_ms));
    }
  }
  return fit;
}

const char* verdict_words(LabFitVerdict verdict) {
  switch (verdict) {
    case LabFitVerdict::kRuns:
      return "runs";
    case LabFitVerdict::kRunsWithCaveat:
      return "runs with a caveat";
    case LabFitVerdict::kCannot:
      return "cannot";
  }
  return "?";
}

}  // namespace fabriclab::runner
