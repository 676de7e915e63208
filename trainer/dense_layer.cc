#include "trainer/dense_layer.h"

#include <oneapi/dnnl/dnnl.h>
#include <torch/autograd.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/modules/linear.h>

#include <stdexcept>
#include <string>

namespace fabriclab::trainer {
namespace {

// Row-major C[m, n] = op(A) op(B) + beta C, as dnnl_sgemm defines it.
void sgemm(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, const float* a,
           int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const dnnl_status_t status =
      dnnl_sgemm(trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    throw std::runtime_error("oneDNN sgemm failed with status " + std::to_string(status));
  }
}

// x [B, in], weight [out, in], bias [out]; all contiguous fp32.
struct OnednnLinearFunction : public torch::autograd::Function<OnednnLinearFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& weight_in, const torch::Tensor& bias) {
    const torch::Tensor x = x_in.contiguous(), weight = weight_in.contiguous();
    const int64_t batch = x.size(0), in = x.size(1), out = weight.size(0);
    // The bias seeds C, so the product adds onto it (beta = 1): no second pass.
    torch::Tensor y = bias.expand({batch, out}).contiguous();
    sgemm('N', 'T', batch, out, in, x.data_ptr<float>(), in, weight.data_ptr<float>(), in, 1.0f,
          y.data_ptr<float>(), out);
    ctx->save_for_backward({x, weight});
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& weight = saved[1];
    const torch::Tensor g = grads[0].contiguous();
    const int64_t batch = x.size(0), in = x.size(1), out = weight.size(0);
    torch::Tensor grad_x, grad_weight, grad_bias;
    // The first layer's input is data: nobody asks for its gradient.
    if (ctx->needs_input_grad(0)) {
      grad_x = torch::empty({batch, in}, x.options());  // g [B, out] . W [out, in]
      sgemm('N', 'N', batch, in, out, g.data_ptr<float>(), out, weight.data_ptr<float>(), in,
            0.0f, grad_x.data_ptr<float>(), in);
    }
    if (ctx->needs_input_grad(1)) {
      grad_weight = torch::empty({out, in}, weight.options());  // g^T [out, B] . x [B, in]
      sgemm('T', 'N', out, in, batch, g.data_ptr<float>(), out, x.data_ptr<float>(), in, 0.0f,
            grad_weight.data_ptr<float>(), in);
    }
    if (ctx->needs_input_grad(2)) grad_bias = g.sum(0);
    return {grad_x, grad_weight, grad_bias};
  }
};

}  // namespace

torch::Tensor onednn_linear(const torch::Tensor& x, const torch::Tensor& weight,
                            const torch::Tensor& bias) {
  TORCH_CHECK(x.dim() == 2 && x.scalar_type() == torch::kFloat && x.device().is_cpu(),
              "onednn_linear wants a 2-D fp32 CPU input, got ", x.sizes(), " ", x.scalar_type());
  return OnednnLinearFunction::apply(x, weight, bias);
}

DenseImpl::DenseImpl(int64_t in_features, int64_t out_features, Gemm gemm)
    : in_features_(in_features), out_features_(out_features), gemm_(gemm) {
  reset();
}

void DenseImpl::reset() {
  // nn::Linear's own initialisation, drawn from the same generator in the
  // same order, so a seed gives the same starting weights as before.
  torch::nn::Linear reference(in_features_, out_features_);
  weight = register_parameter("weight", reference->weight.detach().clone());
  bias = register_parameter("bias", reference->bias.detach().clone());
}

torch::Tensor DenseImpl::forward(const torch::Tensor& x) {
  if (gemm_ == Gemm::kOnednn) return onednn_linear(x, weight, bias);
  return torch::nn::functional::linear(x, weight, bias);
}

}  // namespace fabriclab::trainer
