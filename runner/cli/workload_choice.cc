#include "runner/cli/workload_choice.h"

#include <stdexcept>

#include "common/input_error.h"
#include "runner/cli/command_job.h"
#include "runner/workload/ddp_example.h"

namespace fabriclab::cli {

void choose_workload(runner::LabDefinition& lab, const std::string& choice) {
  if (choice.empty() || choice == "train") return;
  if (choice != "ddp")
    throw InputError("--workload: expected train (the lab's own) or ddp (PyTorch DDP), got '" +
                     choice + "'");
  const std::string script = python_helper_dir() + "/ddp_train.py";
  try {
    lab.workload = runner::ddp_example_workload(lab.workload, script);
    for (runner::ScenarioDefinition& s : lab.scenarios)
      s.workload = runner::ddp_example_workload(s.workload, script);
  } catch (const std::invalid_argument& e) {
    throw InputError(lab.path + ": " + e.what());
  }
}

}  // namespace fabriclab::cli
