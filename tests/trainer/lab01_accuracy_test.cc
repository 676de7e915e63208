// Lab 01's configuration on the real Fashion-MNIST reaches >= 85% test
// accuracy. Keep in step with labs/01-*/lab.toml.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "common/build_paths.h"
#include "tests/support/child_process.h"
#include "tests/trainer/metrics_reader.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::testing {
namespace {

TEST(Lab01, SingleProcessReaches85PercentOnFashionMnist) {
  struct stat st {};
  if (::stat("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", &st) != 0) {
    SKIP_OR_FAIL_IN_CI("Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)");
  }
  const std::string dir = make_temp_dir("lab01");
  const std::string metrics = dir + "/m.jsonl";
  const RunResult r =
      run_command({fabriclab::build_paths::fabriclab_binary(), "train", "--model", "mlp", "--width",
                   "128", "--epochs", "2", "--batch", "64", "--lr", "0.05", "--metrics", metrics},
                  {}, std::chrono::minutes(5));
  ASSERT_EQ(r.status.code, 0) << r.output;
  const auto evals = read_events(metrics, "eval");
  ASSERT_FALSE(evals.empty());
  EXPECT_GE(evals.back()["accuracy"].get<double>(), 0.85) << r.output;
  std::remove(metrics.c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace fabriclab::testing
