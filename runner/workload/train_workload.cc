#include "runner/workload/train_workload.h"

#include <algorithm>
#include <stdexcept>

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
        {"eval_at", ParamKind::kString},
        {"timeout_s", ParamKind::kNumber},     {"data", ParamKind::kString},
        {"bucket_cap_mb", ParamKind::kInteger}, {"first_bucket_mb", ParamKind::kInteger},
        {"compute_slowdown", ParamKind::kNumber}, {"slow_rank", ParamKind::kRank},
        {"step_compute_ms", ParamKind::kNumber}, {"channels", ParamKind::kInteger}};
    return keys;
  }

  std::vector<std::string> rank_command(const WorkloadDefinition& workload,
                                        const std::string& metrics_path) const override {
    std::vector<std::string> argv = {"train", "--metrics", metrics_path, "--log-every", "0"};
    const std::vector<std::string> flags = train_flags(workload);
    argv.insert(argv.end(), flags.begin(), flags.end());
    return argv;
  }

  // What the trainer's flags would refuse (runner/cli/train_command.cc), so
  // a lab that sets it fails at load, before any namespace exists.
  // Messages start with the parameter's name: the loader points at its line.
  void check(const WorkloadDefinition& workload) const override {
    const std::string model = workload.param("model", "mlp");
    if (model != "mlp" && model != "cnn")
      throw std::invalid_argument("model \"" + model + "\" is not one the trainer has (mlp, cnn)");
    for (const char* key : {"width", "steps", "epochs", "batch", "threads", "bucket_cap_mb",
                            "first_bucket_mb"}) {
      const std::string text = workload.param(key);
      if (!text.empty() && std::stoll(text) < 1)
        throw std::invalid_argument(std::string(key) + " must be at least 1, got " + text);
    }
    // eval_at = "0,10,20": steps, comma-separated, as --eval-at takes them.
    const std::string eval_at = workload.param("eval_at");
    for (size_t at = 0; !eval_at.empty() && at <= eval_at.size();) {
      const size_t comma = std::min(eval_at.find(',', at), eval_at.size());
      const std::string item = eval_at.substr(at, comma - at);
      if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("eval_at must be steps >= 0 separated by commas, got \"" +
                                    eval_at + "\"");
      at = comma + 1;
    }
    const auto number = [&](const char* key, double fallback) {
      const std::string text = workload.param(key);
      return text.empty() ? fallback : std::stod(text);
    };
    if (!(number("lr", 0.05) > 0)) throw std::invalid_argument("lr must be above 0");
    const double momentum = number("momentum", 0);
    if (!(momentum >= 0 && momentum < 1))
      throw std::invalid_argument("momentum must be in [0, 1), got " + workload.param("momentum"));
    if (!(number("timeout_s", 60) > 0)) throw std::invalid_argument("timeout_s must be above 0");
    const double slowdown = number("compute_slowdown", 1);
    if (!(slowdown >= 1 && slowdown <= 100))
      throw std::invalid_argument("compute_slowdown must be in [1, 100], got " +
                                  workload.param("compute_slowdown"));
    const double channels = number("channels", 1);
    if (!(channels >= 1 && channels <= 8))
      throw std::invalid_argument("channels must be in [1, 8], got " + workload.param("channels"));
    const double compute_ms = number("step_compute_ms", 0);
    if (!(compute_ms >= 0 && compute_ms <= 600000))
      throw std::invalid_argument("step_compute_ms must be in [0, 600000], got " +
                                  workload.param("step_compute_ms"));
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
