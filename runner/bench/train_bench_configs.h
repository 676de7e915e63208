// What `fabriclab bench train` (train_bench.h) measures: the model
// configurations, each with the fabriclab/DDP ratio it must reach.
//
//   preset "issue": lab 02's model (labs/02-*/lab.toml's [trainer], target
//                   >= 1.25x DDP) and an MLP with >= 25 MB of gradients
//                   (target >= 1.0x), the two figures issue 2 asks for;
//   no preset:      the one model of the options ("custom"), with target
//                   >= 1.0x when its gradient is 25 MB or more, else none.
//
// Errors: InputError when lab 02 cannot be found or read (preset "issue"),
// or for a model runner/workload/model_size.h does not know.
// Pure functions except for reading lab 02's file; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/bench/train_bench.h"

namespace fabriclab::runner::bench {

struct TrainBenchConfig {
  std::string label;
  std::string model;
  int64_t width = 0;
  int64_t batch = 0;
  double target = 0;  // required fabriclab/DDP ratio; 0 = none
};

// Issue 2: "25 MB or more of gradients".
constexpr int64_t kLargeGradientBytes = 25'000'000;

std::vector<TrainBenchConfig> train_bench_configs(const TrainBenchOptions& options);

}  // namespace fabriclab::runner::bench
