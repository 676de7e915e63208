#include "runner/bench/train_bench_configs.h"

#include "runner/workload/model_size.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::bench {
namespace {

// Lab 02's model: labs/02-*/lab.toml's [workload], from the labs folder
// `fabriclab run` would use.
TrainBenchConfig lab02_config() {
  const LabDefinition lab = load_lab(find_lab_file(default_labs_dir(), "02"));
  auto setting = [&](const char* key, const std::string& fallback) {
    auto it = lab.workload.params.find(key);
    return it == lab.workload.params.end() ? fallback : it->second;
  };
  return TrainBenchConfig{"lab 02 (" + lab.name + ")", setting("model", "mlp"),
                          std::stoi(setting("width", "128")), std::stoi(setting("batch", "64")),
                          1.25};
}

}  // namespace

std::vector<TrainBenchConfig> train_bench_configs(const TrainBenchOptions& o) {
  if (o.preset == "issue") {
    return {lab02_config(), TrainBenchConfig{">= 25 MB gradient", "mlp", 2560, 64, 1.0}};
  }
  TrainBenchConfig c{"custom", o.model, o.width, o.batch, 0};
  if (runner::model_params(o.model, o.width) * 4 >= kLargeGradientBytes) c.target = 1.0;
  return {c};
}

}  // namespace fabriclab::runner::bench
