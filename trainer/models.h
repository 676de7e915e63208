// The models a lab can train. Both are plain torch::nn::Sequential stacks so
// parameters() has a fixed, documented order (gradient buckets depend on it).
//
// mlp(width):  784 -> width -> width -> 10 (ReLU). Parameters:
//              785*width + (width+1)*width + (width+1)*10, so `width` dials the
//              gradient size: width 128 = 118,282 params = 473 KB of fp32
//              gradient; width 2560 = 8.6 M params = 34 MB.
// cnn:         conv(1->16, 5x5) pool conv(16->32, 5x5) pool -> width -> 10.
//
// The fully connected layers are Dense (dense_layer.h): nn::Linear's
// parameters and initialisation, with oneDNN or libtorch's BLAS underneath.
#pragma once

#include <torch/nn/modules/container/sequential.h>

#include <cstdint>

#include "trainer/dense_layer.h"
#include "trainer/model_kind.h"

namespace fabriclab::trainer {

// `width` applies to the MLP's hidden layers and the CNN's dense layer.
torch::nn::Sequential make_model(ModelKind kind, int64_t width, Gemm gemm = Gemm::kOnednn);

// Number of trainable scalars; gradient bytes = params * 4 (fp32).
int64_t count_parameters(const torch::nn::Sequential& model);

}  // namespace fabriclab::trainer
