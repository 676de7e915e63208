// What multiplies the trainer's dense layers' matrices (dense_layer.h says
// why there is a choice). Free of libtorch, so the CLI and the benchmarks can
// parse and describe it without compiling libtorch's headers (doc/build.md).
#pragma once

#include <string>

namespace fabriclab::trainer {

enum class Gemm {
  kOnednn,  // dnnl_sgemm, forward and backward (the default)
  kTorch,   // torch::nn::functional::linear: the system BLAS, as PyTorch does
};

// "onednn" | "torch"; throws InputError otherwise.
Gemm parse_gemm(const std::string& word);
std::string gemm_name(Gemm gemm);

// What runs the products, for logs and benchmarks: e.g. "oneDNN sgemm
// (avx512_core_amx)" or "libtorch's BLAS (OpenBLAS, Haswell kernels)".
std::string describe_gemm(Gemm gemm);

}  // namespace fabriclab::trainer
