// A fully connected layer whose matrix products run on oneDNN.
//
// Why not torch::nn::Linear: in libtorch 1.13 an fp32 Linear on the CPU
// calls the system BLAS, and which kernels that BLAS runs is decided outside
// the program. On this project's machine OpenBLAS runs its Haswell (AVX2)
// kernels (the environment sets OPENBLAS_CORETYPE=Haswell, and OpenBLAS
// 0.3.21 does not know the CPU anyway). oneDNN (libdnnl, which libtorch
// already links) picks its kernels from the CPU's feature flags, AVX-512
// here: `fabriclab bench gemm` measures lab 02's first layer at 74 GFLOP/s
// on one core against 44. An MLP step is almost all matrix products, so the
// layer sets the trainer's speed.
//
// Dense(in, out) has nn::Linear's parameters (weight [out, in], bias [out]),
// initialisation and parameter order, so seeds, bucket plans and parameter
// counts are unchanged. With Gemm::kTorch it is exactly nn::Linear's math.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

#include <cstdint>

#include "trainer/gemm.h"

namespace fabriclab::trainer {

// y = x W^T + b with oneDNN for the three products of forward and backward.
// x: [batch, in] fp32 on the CPU; differentiable in x, weight and bias.
torch::Tensor onednn_linear(const torch::Tensor& x, const torch::Tensor& weight,
                            const torch::Tensor& bias);

class DenseImpl : public torch::nn::Cloneable<DenseImpl> {
 public:
  DenseImpl(int64_t in_features, int64_t out_features, Gemm gemm);
  void reset() override;
  torch::Tensor forward(const torch::Tensor& x);

  torch::Tensor weight;
  torch::Tensor bias;

 private:
  int64_t in_features_;
  int64_t out_features_;
  Gemm gemm_;
};
TORCH_MODULE(Dense);

}  // namespace fabriclab::trainer
