#include "trainer/models.h"

#include <torch/torch.h>

#include "common/input_error.h"

namespace fabriclab::trainer {

torch::nn::Sequential make_model(ModelKind kind, int64_t width, Gemm gemm) {
  namespace nn = torch::nn;
  if (width <= 0) throw InputError("--width must be positive, got " + std::to_string(width));
  if (kind == ModelKind::kMlp) {
    return nn::Sequential(nn::Flatten(), Dense(28 * 28, width, gemm), nn::ReLU(),
                          Dense(width, width, gemm), nn::ReLU(), Dense(width, 10, gemm));
  }
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 16, 5)), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Conv2d(nn::Conv2dOptions(16, 32, 5)), nn::ReLU(), nn::MaxPool2d(2),
                        nn::Flatten(), Dense(32 * 4 * 4, width, gemm), nn::ReLU(),
                        Dense(width, 10, gemm));
}

int64_t count_parameters(const torch::nn::Sequential& model) {
  int64_t total = 0;
  for (const auto& p : model->parameters()) total += p.numel();
  return total;
}

}  // namespace fabriclab::trainer
