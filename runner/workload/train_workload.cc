#include "runner/workload/train_workload.h"

#include <algorithm>

#include "runner/workload/model_size.h"

namespace fabriclab::runner {

namespace {

class TrainWorkload : public Workload {
 public:
  const char* name() const override { return "train"; }

  const std::map<std::string, ParamKind>& params() const override {
    static const std::map<std::string, ParamKind> keys = {
        {"model", ParamKind::kString},         {"width", ParamKind::kInteger},
        {"steps", ParamKind::kInteger},        {"epochs", ParamKind::kInteger},
        {"batch", ParamKind::kInteger},        {"lr", ParamKind::kNumber},
        {"momentum", ParamKind::kNumber},      {"seed", ParamKind::kInteger},
        {"threads", ParamKind::kInteger},      {"eval_every", ParamKind::kInteger},
        {"timeout_s", ParamKind::kNumber},     {"data", ParamKind::kString},
        {"bucket_cap_mb", ParamKind::kInteger}, {"first_bucket_mb", ParamKind::kInteger},
        {"compute_slowdown", ParamKind::kNumber}, {"slow_rank", ParamKind::kRank}};
    return keys;
  }

  std::vector<std::string> rank_command(const WorkloadDefinition& workload,
                                        const std::string& metrics_path) const override {
    std::vector<std::string> argv = {"train", "--metrics", metrics_path, "--log-every", "0"};
    const std::vector<std::string> flags = train_flags(workload);
    argv.insert(argv.end(), flags.begin(), flags.end());
    return argv;
  }

  int64_t planned_steps(const WorkloadDefinition& workload) const override {
    const std::string steps = workload.param("steps");
    return steps.empty() ? 0 : std::stoll(steps);
  }

  int64_t model_params(const WorkloadDefinition& workload) const override {
    // The trainer's defaults (trainer/trainer.h) when the lab is silent.
    return runner::model_params(workload.param("model", "mlp"),
                                std::stoll(workload.param("width", "128")));
  }
};

}  // namespace

const Workload& train_workload() {
  static const TrainWorkload instance;
  return instance;
}

std::vector<std::string> train_flags(const WorkloadDefinition& workload) {
  std::vector<std::string> args;
  for (const auto& [key, value] : workload.params) {
    std::string flag = key == "timeout_s" ? "timeout" : key;
    std::replace(flag.begin(), flag.end(), '_', '-');
    args.push_back("--" + flag);
    args.push_back(value);
  }
  return args;
}

}  // namespace fabriclab::runner
