// What `fabriclab bench train` measures: the configurations and their targets.
#include "runner/bench/train_bench_configs.h"
#include "common/build_paths.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace fabriclab::runner::bench {
namespace {

TEST(TrainBenchConfigs, CustomModelHasATargetOnlyWithALargeGradient) {
  TrainBenchOptions o;  // mlp w128: 118,282 params, 0.47 MB of gradient
  std::vector<TrainBenchConfig> configs = train_bench_configs(o);
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].label, "custom");
  EXPECT_EQ(configs[0].model, "mlp");
  EXPECT_EQ(configs[0].width, 128);
  EXPECT_EQ(configs[0].batch, 64);
  EXPECT_EQ(configs[0].target, 0);

  o.width = 2560;  // 8.6 M params: 34 MB
  configs = train_bench_configs(o);
  EXPECT_EQ(configs[0].target, 1.0);
}

TEST(TrainBenchConfigs, IssuePresetIsTheDenseMlpAndALargeMlp) {
  TrainBenchOptions o;
  o.preset = "issue";
  const std::vector<TrainBenchConfig> configs = train_bench_configs(o);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].model, "mlp");
  EXPECT_EQ(configs[0].width, 512);
  EXPECT_EQ(configs[0].batch, 1536);
  EXPECT_EQ(configs[0].target, 1.25);
  EXPECT_EQ(configs[1].label, ">= 25 MB gradient");
  EXPECT_EQ(configs[1].width, 2560);
  EXPECT_EQ(configs[1].target, 1.0);
}

TEST(TrainBenchOptions, DefaultDdpScriptIsInThisTree) {
  EXPECT_EQ(TrainBenchOptions().script,
            std::string(fabriclab::build_paths::source_dir()) + "/trainer/bench/ddp_baseline.py");
}

}  // namespace
}  // namespace fabriclab::runner::bench
