#include "trainer/gradient_sync.h"

#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace fabriclab::trainer {

GradientSync::GradientSync(std::vector<torch::Tensor> params,
                           c10::intrusive_ptr<c10d::ProcessGroup> group, int64_t first_bucket_bytes,
                           int64_t bucket_bytes, int channels)
    : params_(std::move(params)), group_(std::move(group)), channels_(std::max(1, channels)) {
  std::vector<int64_t> sizes;
  for (const auto& p : params_) sizes.push_back(p.numel() * static_cast<int64_t>(p.element_size()));
  plan_ = plan_buckets(sizes, first_bucket_bytes, bucket_bytes);

  where_.resize(params_.size());
  state_.resize(plan_.size());
  for (size_t b = 0; b < plan_.size(); ++b) {
    int64_t elements = 0;
    for (size_t slot = 0; slot < plan_[b].params.size(); ++slot) {
      const int param = plan_[b].params[slot];
      where_[param] = {static_cast<int>(b), static_cast<int>(slot)};
      state_[b].offsets.push_back(elements);
      elements += params_[param].numel();
    }
    state_[b].buffer = torch::zeros({elements}, torch::kFloat32);
    bytes_per_step_ += plan_[b].bytes;
  }
  reset_for_next_step();

  if (!group_) return;  // single process: gradients stay as autograd left them

  // Point every .grad at its slice of the bucket. set_() makes a plain alias
  // of the storage, not an autograd view, so the optimizer's zero_grad()
  // (detach_() + zero_()) works on it; autograd then accumulates in place
  // (`grad += new_grad`) because .grad is defined and has the parameter's
  // layout.
  torch::NoGradGuard no_grad;
  grad_aliases_.resize(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto [b, slot] = where_[i];
    const torch::Tensor& buffer = state_[b].buffer;
    torch::Tensor alias = torch::empty({0}, buffer.options());
    alias.set_(buffer.storage(), state_[b].offsets[slot], params_[i].sizes(),
               params_[i].detach().contiguous().strides());
    params_[i].mutable_grad() = alias;
    grad_aliases_[i] = alias;
  }
  // Hooks after accumulation (on the AccumulateGrad node), not on the
  // incoming gradient: only then is the bucket slice final.
  for (size_t i = 0; i < params_.size(); ++i) {
    const int param = static_cast<int>(i);
    auto accumulator = torch::autograd::impl::grad_accumulator(params_[i]);
    accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [this, param](const torch::autograd::variable_list& outputs,
                      const torch::autograd::variable_list& /*inputs*/) {
          on_gradient_ready(param);
          return outputs;
        }));
    accumulators_.push_back(std::move(accumulator));
  }
}

void GradientSync::broadcast_parameters() {
  if (!group_) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> tensors;
  for (auto& p : params_) tensors.push_back(p.detach());
  c10d::BroadcastOptions options;
  options.rootRank = 0;
  // One broadcast per parameter keeps it simple; it runs once.
  for (auto& t : tensors) {
    std::vector<torch::Tensor> one{t};
    group_->broadcast(one, options)->wait();
  }
}

void GradientSync::on_gradient_ready(int param) {
  torch::Tensor& grad = params_[param].mutable_grad();
  torch::Tensor& alias = grad_aliases_[param];
  if (!grad.defined() || grad.data_ptr() != alias.data_ptr()) {
    // Someone replaced .grad (set it to none, assigned a new tensor): autograd
    // stored the gradient elsewhere. Bring it into the bucket and re-alias.
    torch::NoGradGuard no_grad;
    if (grad.defined()) {
      alias.copy_(grad);
    } else {
      alias.zero_();
    }
    grad = alias;
  }
  if (--state_[where_[param].first].pending == 0) launch_ready_buckets();
}

void GradientSync::launch_ready_buckets() {
  while (next_to_launch_ < state_.size() && state_[next_to_launch_].pending == 0) {
    BucketState& bucket = state_[next_to_launch_];
    const int64_t n = bucket.buffer.numel();
    for (int c = 0; c < channels_; ++c) {
      // Every rank cuts the same slices, so every rank issues the same collectives.
      const int64_t begin = n * c / channels_, end = n * (c + 1) / channels_;
      if (end == begin) continue;
      std::vector<torch::Tensor> tensors{channels_ == 1 ? bucket.buffer
                                                        : bucket.buffer.narrow(0, begin, end - begin)};
      bucket.works.push_back(group_->allreduce(tensors));
    }
    ++next_to_launch_;
  }
}

double GradientSync::finish() {
  if (!group_) return 0.0;
  if (next_to_launch_ != state_.size()) {
    // Every parameter must get a gradient every step, or ranks would issue
    // different collectives and deadlock; fail loudly instead.
    throw std::logic_error("gradient sync: bucket " + std::to_string(next_to_launch_) +
                           " incomplete after backward (a parameter got no gradient)");
  }
  const auto start = std::chrono::steady_clock::now();
  for (auto& bucket : state_)
    for (auto& work : bucket.works) work->wait();
  const double blocked_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  // The grads are aliases of the buffers: averaging the buffers averages them.
  torch::NoGradGuard no_grad;
  const double world = group_->getSize();
  for (auto& bucket : state_) bucket.buffer.div_(world);
  reset_for_next_step();
  return blocked_ms;
}

void GradientSync::reset_for_next_step() {
  for (size_t b = 0; b < plan_.size(); ++b) {
    state_[b].pending = static_cast<int>(plan_[b].params.size());
    state_[b].works.clear();
  }
  next_to_launch_ = 0;
}

}  // namespace fabriclab::trainer
