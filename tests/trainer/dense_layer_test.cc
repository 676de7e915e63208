// The oneDNN dense layer must compute what nn::Linear computes: same values
// forward, same gradients backward, same starting weights for a seed.
#include "trainer/dense_layer.h"

#include <gtest/gtest.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/modules/linear.h>
#include <torch/torch.h>

#include "common/input_error.h"
#include "trainer/models.h"

namespace fabriclab::trainer {
namespace {

struct Grads {
  torch::Tensor y, x, weight, bias;
};

// Forward and backward through `linear`, with a fixed non-uniform upstream gradient.
template <typename Linear>
Grads run(Linear linear, const torch::Tensor& x0, const torch::Tensor& w0, const torch::Tensor& b0,
          bool x_needs_grad) {
  torch::Tensor x = x0.clone().set_requires_grad(x_needs_grad);
  torch::Tensor w = w0.clone().set_requires_grad(true);
  torch::Tensor b = b0.clone().set_requires_grad(true);
  torch::Tensor y = linear(x, w, b);
  torch::Tensor upstream = torch::linspace(-1, 1, y.numel()).reshape(y.sizes());
  (y * upstream).sum().backward();
  return {y.detach(), x.grad(), w.grad(), b.grad()};
}

void expect_close(const torch::Tensor& actual, const torch::Tensor& expected, const char* what) {
  ASSERT_TRUE(actual.defined()) << what;
  ASSERT_EQ(actual.sizes(), expected.sizes()) << what;
  EXPECT_TRUE(torch::allclose(actual, expected, 1e-4, 1e-4))
      << what << ": max difference " << (actual - expected).abs().max().item<float>();
}

class OnednnLinear : public testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

TEST_P(OnednnLinear, MatchesTorchLinearForwardAndBackward) {
  const auto [batch, in, out] = GetParam();
  torch::manual_seed(7);
  const torch::Tensor x = torch::randn({batch, in});
  const torch::Tensor w = torch::randn({out, in}) / std::sqrt(static_cast<double>(in));
  const torch::Tensor b = torch::randn({out});
  const Grads ours = run(onednn_linear, x, w, b, true);
  const Grads torchs = run(
      [](const torch::Tensor& xx, const torch::Tensor& ww, const torch::Tensor& bb) {
        return torch::nn::functional::linear(xx, ww, bb);
      },
      x, w, b, true);
  expect_close(ours.y, torchs.y, "output");
  expect_close(ours.x, torchs.x, "input gradient");
  expect_close(ours.weight, torchs.weight, "weight gradient");
  expect_close(ours.bias, torchs.bias, "bias gradient");
}

// Odd sizes catch a leading dimension or transpose mixed up.
INSTANTIATE_TEST_SUITE_P(Shapes, OnednnLinear,
                         testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(3, 5, 7),
                                         std::make_tuple(64, 784, 128),
                                         std::make_tuple(97, 33, 10)));

TEST(OnednnLinearGradients, DataInputGetsNoGradient) {
  torch::manual_seed(3);
  const Grads g = run(onednn_linear, torch::randn({8, 6}), torch::randn({4, 6}), torch::randn({4}),
                      false);
  EXPECT_FALSE(g.x.defined());
  EXPECT_TRUE(g.weight.defined());
  EXPECT_TRUE(g.bias.defined());
}

TEST(OnednnLinearGradients, RejectsWhatItCannotMultiply) {
  EXPECT_THROW(onednn_linear(torch::randn({2, 3, 4}), torch::randn({5, 4}), torch::randn({5})),
               c10::Error);
  EXPECT_THROW(onednn_linear(torch::randn({2, 4}, torch::kDouble), torch::randn({5, 4}),
                             torch::randn({5})),
               c10::Error);
}

TEST(Dense, StartsFromTheSameWeightsAsLinear) {
  torch::manual_seed(11);
  torch::nn::Linear linear(20, 6);
  torch::manual_seed(11);
  Dense dense(20, 6, Gemm::kOnednn);
  EXPECT_TRUE(torch::equal(dense->weight, linear->weight));
  EXPECT_TRUE(torch::equal(dense->bias, linear->bias));
  EXPECT_EQ(dense->parameters().size(), 2u);
}

TEST(Dense, BothGemmsTrainTheMlpToTheSameLoss) {
  // Five SGD steps on one model per gemm, from the same seed and batch.
  auto losses = [](Gemm gemm) {
    torch::manual_seed(5);
    torch::nn::Sequential model = make_model(ModelKind::kMlp, 32, gemm);
    torch::optim::SGD sgd(model->parameters(), 0.1);
    torch::manual_seed(6);
    const torch::Tensor images = torch::randn({16, 1, 28, 28});
    const torch::Tensor labels = torch::randint(0, 10, {16});
    std::vector<float> out;
    for (int i = 0; i < 5; ++i) {
      sgd.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(model->forward(images), labels);
      loss.backward();
      sgd.step();
      out.push_back(loss.item<float>());
    }
    return out;
  };
  const auto onednn = losses(Gemm::kOnednn), torchs = losses(Gemm::kTorch);
  ASSERT_EQ(onednn.size(), torchs.size());
  for (size_t i = 0; i < onednn.size(); ++i) EXPECT_NEAR(onednn[i], torchs[i], 1e-4) << i;
  EXPECT_LT(onednn.back(), onednn.front());
}

TEST(Gemm, NamesRoundTripAndBadNamesAreInputErrors) {
  EXPECT_EQ(parse_gemm(gemm_name(Gemm::kOnednn)), Gemm::kOnednn);
  EXPECT_EQ(parse_gemm(gemm_name(Gemm::kTorch)), Gemm::kTorch);
  EXPECT_THROW(parse_gemm("mkl"), InputError);
  EXPECT_NE(describe_gemm(Gemm::kOnednn).find("oneDNN"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::trainer
