#include "trainer/gemm.h"

#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>

#include "common/input_error.h"

namespace fabriclab::trainer {
namespace {

std::string onednn_isa_name() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "isa " + std::to_string(static_cast<int>(dnnl_get_effective_cpu_isa()));
  }
}

// OpenBLAS names the kernels it chose; looked up at run time because the
// BLAS behind libblas.so.3 is a Debian alternative and may not be OpenBLAS.
std::string system_blas_name() {
  using CoreName = char* (*)();
  auto core_name = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (core_name == nullptr || core_name() == nullptr) return "not OpenBLAS";
  return std::string("OpenBLAS, ") + core_name() + " kernels";
}

}  // namespace

Gemm parse_gemm(const std::string& word) {
  if (word == "onednn") return Gemm::kOnednn;
  if (word == "torch") return Gemm::kTorch;
  throw InputError("unknown --gemm '" + word + "': expected onednn or torch");
}

std::string gemm_name(Gemm gemm) { return gemm == Gemm::kOnednn ? "onednn" : "torch"; }

std::string describe_gemm(Gemm gemm) {
  if (gemm == Gemm::kOnednn) return "oneDNN sgemm (" + onednn_isa_name() + ")";
  return "libtorch's BLAS (" + system_blas_name() + ")";
}

}  // namespace fabriclab::trainer
