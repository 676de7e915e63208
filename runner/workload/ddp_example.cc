#include "runner/workload/ddp_example.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace fabriclab::runner {

WorkloadDefinition ddp_example_workload(const WorkloadDefinition& train, const std::string& script) {
  if (train.kind != "train")
    throw std::invalid_argument("--workload ddp replaces a \"train\" workload; this lab's is \"" +
                                train.kind + "\"");
  // What ddp_train.py takes (its argparse), by the trainer's parameter names.
  static const std::set<std::string> kMapped = {
      "model", "width", "steps", "batch", "lr", "momentum", "seed", "threads",
      "timeout_s", "data", "bucket_cap_mb", "first_bucket_mb", "step_compute_ms"};
  if (train.param("steps").empty())
    throw std::invalid_argument("--workload ddp needs the lab's workload to set steps");
  if (train.param("data") == "synthetic")
    throw std::invalid_argument("--workload ddp reads Fashion-MNIST; the lab's data is \"synthetic\"");
  nlohmann::json argv = {kDebianPython, script};
  for (const auto& [key, value] : train.params) {
    if (!kMapped.count(key))
      throw std::invalid_argument("--workload ddp: the lab's workload sets " + key +
                                  ", which the DDP example does not do (it takes: model, width, "
                                  "steps, batch, lr, momentum, seed, threads, timeout_s, data, "
                                  "bucket_cap_mb, first_bucket_mb, step_compute_ms)");
    std::string flag = key == "timeout_s" ? "timeout" : key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    argv.push_back("--" + flag);
    argv.push_back(value);
  }
  WorkloadDefinition command;
  command.kind = "command";
  command.params["command"] = argv.dump();
  command.params["steps"] = train.param("steps");
  return command;
}

}  // namespace fabriclab::runner
