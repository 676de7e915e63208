#include "trainer/trainer.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <sched.h>

#include "common/input_error.h"
#include "trainer/dataset.h"
#include "trainer/emulated_compute.h"
#include "trainer/gradient_sync.h"
#include "trainer/metrics_writer.h"
#include "trainer/models.h"
#include "trainer/process_group.h"
#include "trainer/sched_time.h"
#include "trainer/wire_bytes.h"

namespace fabriclab::trainer {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The indices of this rank's share of the training set for one epoch, as
// DistributedSampler does: one permutation shared by all ranks (same seed),
// every world_size-th element starting at rank.
torch::Tensor epoch_shard(int64_t size, int64_t epoch, const TrainOptions& o) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(o.seed + static_cast<uint64_t>(epoch));
  torch::Tensor order = at::randperm(size, generator, torch::kInt64);
  return order.slice(0, o.rendezvous.rank, size, o.rendezvous.world_size);
}

struct EvalResult {
  double accuracy = 0;
  double test_loss = 0;
};

// Every rank evaluates its shard of the test set; correct counts and loss
// sums are allreduced so all ranks report the same figure.
EvalResult evaluate(torch::nn::Sequential& model, const Split& test,
                    const c10::intrusive_ptr<c10d::ProcessGroup>& group, const Rendezvous& rv) {
  torch::NoGradGuard no_grad;
  model->eval();
  const int64_t n = test.size();
  const int64_t begin = n * rv.rank / rv.world_size;
  const int64_t end = n * (rv.rank + 1) / rv.world_size;
  double correct = 0, loss_sum = 0;
  for (int64_t i = begin; i < end; i += 1000) {
    const int64_t stop = std::min(end, i + 1000);
    torch::Tensor logits = model->forward(test.images.slice(0, i, stop));
    torch::Tensor labels = test.labels.slice(0, i, stop);
    correct += logits.argmax(1).eq(labels).sum().item<double>();
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, labels,
                    torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
  }
  model->train();
  if (group) {
    std::vector<torch::Tensor> totals{torch::tensor({correct, loss_sum}, torch::kFloat64)};
    group->allreduce(totals)->wait();
    correct = totals[0][0].item<double>();
    loss_sum = totals[0][1].item<double>();
  }
  return {correct / n, loss_sum / n};
}

// Cosine decay from `base` to 0 over the run: a steadier final model than a
// constant rate, so "accuracy after N steps" is a figure a lab can grade.
double cosine_lr(double base, int64_t step, int64_t total) {
  constexpr double kPi = 3.14159265358979323846;
  return 0.5 * base * (1 + std::cos(kPi * static_cast<double>(step - 1) / total));
}

void set_learning_rate(torch::optim::SGD& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::SGDOptions&>(group.options()).lr(lr);
  }
}

// FNV-1a over the raw bytes of every parameter: ranks that stayed in sync
// report the same digest (tests and the grader compare them).
std::string parameter_digest(const torch::nn::Sequential& model) {
  uint64_t hash = 1469598103934665603ull;
  for (const auto& p : model->parameters()) {
    const torch::Tensor t = p.detach().contiguous();
    const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
    for (size_t i = 0; i < t.nbytes(); ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// A failed collective leaves Gloo's worker threads and pending work behind;
// unwinding would run ProcessGroupGloo's destructor, which can block on that
// work until the timeout. The event is on disk, so leave at once.
[[noreturn]] void die_on_collective_failure(MetricsWriter& metrics, int rank, int64_t step,
                                            const std::string& what) {
  spdlog::error("rank {}: step {}: collective failed: {}", rank, step, what);
  spdlog::error("rank {}: a peer died, closed its connections or stopped answering within "
                "--timeout; exiting",
                rank);
  metrics.write("error", {{"step", step}, {"message", what}});
  spdlog::default_logger()->flush();
  std::_Exit(1);
}

// c10::Error's what() carries a C++ backtrace; the first line says what happened.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

void validate(const TrainOptions& o) {
  validate(o.rendezvous);
  if (o.batch <= 0) throw InputError("--batch must be positive, got " + std::to_string(o.batch));
  if (o.steps < 0 || o.epochs < 0 || (o.steps == 0 && o.epochs == 0)) {
    throw InputError("give a positive --steps or --epochs");
  }
  if (!(o.lr > 0)) throw InputError("--lr must be positive");
  if (!(o.momentum >= 0 && o.momentum < 1))
    throw InputError("--momentum must be in [0, 1), got " + std::to_string(o.momentum));
  if (o.threads < 1) throw InputError("--threads must be >= 1");
  if (o.eval_every < 0) throw InputError("--eval-every must be >= 0");
  for (const int64_t step : o.eval_at)
    if (step < 0) throw InputError("--eval-at takes steps >= 0, got " + std::to_string(step));
  if (!(o.compute_slowdown >= 1 && o.compute_slowdown <= 100)) {
    throw InputError("--compute-slowdown must be in [1, 100], got " +
                     std::to_string(o.compute_slowdown));
  }
  if (o.slow_rank < -1) throw InputError("--slow-rank must be a rank (or -1: every rank)");
  if (!(o.step_compute_ms >= 0 && o.step_compute_ms <= 600000))
    throw InputError("--step-compute-ms must be in [0, 600000], got " +
                     std::to_string(o.step_compute_ms));
}

namespace {

// One rank's training, step by step: what run_training() used to hold in one
// long function, split along its phases. Members are built in the order the
// run needs them: the data and the model before the rendezvous, the
// gradient sync (which broadcasts rank 0's parameters) right after it.
class TrainingRun {
 public:
  explicit TrainingRun(const TrainOptions& o)
      : o_(o),
        rv_(o.rendezvous),
        data_(load_data(o)),
        metrics_(o.metrics_path, rv_.rank),
        model_(make_model(o.model, o.width, o.gemm)),
        group_(join(rv_, o.channels)),
        sync_(model_->parameters(), group_, o.first_bucket_bytes, o.bucket_bytes, o.channels),
        steps_per_epoch_(std::max<int64_t>(1, data_.train.size() / rv_.world_size / o.batch)),
        total_steps_(o.steps > 0 ? o.steps : o.epochs * steps_per_epoch_),
        wire_(wire_device(o, group_)),
        optimizer_(model_->parameters(), torch::optim::SGDOptions(o.lr).momentum(o.momentum)),
        slowed_(o.compute_slowdown > 1 && (o.slow_rank < 0 || o.slow_rank == rv_.rank)),
        padded_(slowed_ || o.step_compute_ms > 0) {
    try {
      sync_.broadcast_parameters();
    } catch (const std::exception& e) {
      die_on_collective_failure(metrics_, rv_.rank, 0, first_line(e.what()));
    }
  }

  int64_t total_steps() const { return total_steps_; }

  // The logs and the metrics' start event: what this rank trains, on what.
  void announce() {
    const int64_t params = count_parameters(model_);
    std::vector<int64_t> bucket_bytes;
    for (const auto& b : sync_.buckets()) bucket_bytes.push_back(b.bytes);
    spdlog::info("rank {}/{}: {} width {}: {} parameters = {} bytes of fp32 gradient per step, in "
                 "{} bucket(s)",
                 rv_.rank, rv_.world_size, model_kind_name(o_.model), o_.width, params, params * 4,
                 bucket_bytes.size());
    spdlog::info("rank {}: data {}: {} train / {} test images; {} steps of {} per rank", rv_.rank,
                 data_.description, data_.train.size(), data_.test.size(), total_steps_, o_.batch);
    spdlog::info("rank {}: dense layers on {}, {} intra-op thread(s)", rv_.rank,
                 describe_gemm(o_.gemm), o_.threads);
    if (o_.channels > 1)
      spdlog::info("rank {}: {} channels: each bucket allreduced in {} slices at once", rv_.rank,
                   o_.channels, o_.channels);
    if (!wire_.device().empty())
      spdlog::info("rank {}: step tx/rx bytes from {}'s counters", rv_.rank, wire_.device());
    nlohmann::json start_fields = {{"world_size", rv_.world_size},
                                   {"model", model_kind_name(o_.model)},
                                   {"width", o_.width},
                                   {"params", params},
                                   {"grad_bytes", params * 4},
                                   {"buckets", bucket_bytes},
                                   {"batch", o_.batch},
                                   {"steps", total_steps_},
                                   {"dataset", data_.description},
                                   {"threads", o_.threads},
                                   {"gemm", gemm_name(o_.gemm)},
                                   {"launcher", rv_.launcher},
                                   {"local_rank", rv_.local_rank}};
    if (!wire_.device().empty()) start_fields["net_device"] = wire_.device();
    // The cores this rank may run on: with the ranks' cpu_ms, the shortest
    // step this machine allows (runner/report/result/cpu_part.cc).
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
      start_fields["cores"] = CPU_COUNT(&allowed);
    if (!o_.accounting) start_fields["accounting"] = false;
    if (group_ && rv_.agent_store_attempt)
      start_fields["store_prefix"] = agent_store_prefix(*rv_.agent_store_attempt);
    metrics_.write("start", start_fields);
    if (slowed_) spdlog::info("rank {}: a slow worker, {}x compute", rv_.rank, o_.compute_slowdown);
    // The untrained model (--eval-at 0), before the clock starts: wall_s
    // and samples_per_s time the training.
    if (evaluation_due(0)) evaluate_at(0);
    run_start_ = Clock::now();
  }

  // Forward, (a slow worker's sleep), backward, allreduce, update; one step event.
  void train_step(int64_t step) {
    const int64_t in_epoch = (step - 1) % steps_per_epoch_;
    if (in_epoch == 0)
      shard_ = epoch_shard(data_.train.size(), (step - 1) / steps_per_epoch_, o_);
    torch::Tensor index = shard_.slice(0, in_epoch * o_.batch, (in_epoch + 1) * o_.batch);

    const auto step_start = Clock::now();
    const std::optional<SchedTime> sched_start =
        o_.accounting ? sched_clock_.now() : std::nullopt;
    wire_.start();
    set_learning_rate(optimizer_, cosine_lr(o_.lr, step, total_steps_));
    optimizer_.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(
        model_->forward(data_.train.images.index_select(0, index)),
        data_.train.labels.index_select(0, index));
    const double slowed_ms = padded_ ? sleep_out_emulated_compute(ms_since(step_start)) : 0;
    const auto backward_start = Clock::now();
    loss.backward();
    last_backward_ms_ = ms_since(backward_start);
    double comm_ms = 0;
    try {
      comm_ms = sync_.finish();
    } catch (const std::exception& e) {
      die_on_collective_failure(metrics_, rv_.rank, step, first_line(e.what()));
    }
    optimizer_.step();
    const double step_ms = ms_since(step_start);

    last_loss_ = loss.item<double>();
    comm_total_ms_ += comm_ms;
    nlohmann::json step_fields = {{"step", step},
                                  {"loss", last_loss_},
                                  {"step_ms", step_ms},
                                  {"compute_ms", step_ms - comm_ms},
                                  {"comm_ms", comm_ms},
                                  {"bytes", group_ ? sync_.bytes_per_step() : 0},
                                  {"samples", index.size(0)}};
    if (padded_) step_fields["slowed_ms"] = slowed_ms;
    // How much of the step this rank ran, and how much it was ready to run
    // with no core free (sched_time.h): the machine's CPU, beside the wait.
    if (const std::optional<SchedTime> sched_end = sched_start ? sched_clock_.now() : std::nullopt;
        sched_start && sched_end) {
      step_fields["cpu_ms"] = sched_end->on_cpu_ms - sched_start->on_cpu_ms;
      step_fields["queued_ms"] = sched_end->queued_ms - sched_start->queued_ms;
    }
    step_fields.update(wire_.since_start());
    metrics_.write("step", step_fields);
    if (o_.log_every > 0 && (step % o_.log_every == 0 || step == 1)) {
      spdlog::info("rank {}: step {}/{} loss {:.4f} step {:.1f} ms (comm {:.1f} ms)", rv_.rank,
                   step, total_steps_, last_loss_, step_ms, comm_ms);
    }
  }

  bool evaluation_due(int64_t step) const {
    if (std::find(o_.eval_at.begin(), o_.eval_at.end(), step) != o_.eval_at.end()) return true;
    return step > 0 && ((o_.eval_every > 0 && step % o_.eval_every == 0) || step == total_steps_);
  }

  // Test accuracy over the whole test set (shared out among the ranks).
  void evaluate_at(int64_t step) {
    const auto eval_start = Clock::now();
    EvalResult result;
    try {
      result = evaluate(model_, data_.test, group_, rv_);
    } catch (const std::exception& e) {
      die_on_collective_failure(metrics_, rv_.rank, step, first_line(e.what()));
    }
    last_accuracy_ = result.accuracy;
    metrics_.write("eval", {{"step", step},
                            {"accuracy", result.accuracy},
                            {"test_loss", result.test_loss},
                            {"eval_ms", ms_since(eval_start)}});
    spdlog::info("rank {}: step {}: test accuracy {:.2f}% (test loss {:.4f})", rv_.rank, step,
                 100 * result.accuracy, result.test_loss);
  }

  // The final event: wall time, throughput, the parameters' digest.
  void finish() {
    // The digest first: over a large model it takes a while (a second on a
    // busy machine for 4M parameters), and wall_s must end where the event's
    // timestamp does, or the grader finds the recording inconsistent.
    const std::string digest = parameter_digest(model_);
    const double wall_s = ms_since(run_start_) / 1000;
    nlohmann::json final_event = {{"steps", total_steps_},
                                  {"wall_s", wall_s},
                                  {"samples_per_s", total_steps_ * o_.batch / wall_s},
                                  {"final_loss", last_loss_},
                                  {"comm_ms_total", comm_total_ms_},
                                  {"param_digest", digest}};
    if (last_accuracy_ >= 0) final_event["accuracy"] = last_accuracy_;
    metrics_.write("final", final_event);
    spdlog::info("rank {}: done: {} steps in {:.2f} s ({:.0f} samples/s), comm {:.2f} s",
                 rv_.rank, total_steps_, wall_s, total_steps_ * o_.batch / wall_s,
                 comm_total_ms_ / 1000);
  }

 private:
  static Dataset load_data(const TrainOptions& o) {
    if (o.data_dir == "synthetic") return make_synthetic_dataset(o.seed);
    return load_idx_dataset(o.data_dir.empty() ? kDefaultDataDir : o.data_dir);
  }

  // Whose counters give a step's tx/rx bytes: none for one process (no
  // network) or without accounting; else --wire-device, or the interface Gloo
  // binds to.
  static std::string wire_device(const TrainOptions& o,
                                 const c10::intrusive_ptr<c10d::ProcessGroup>& group) {
    if (!group || !o.accounting) return "";
    if (!o.wire_device.empty()) return o.wire_device;
    return lab_interface(o.rendezvous.iface, o.rendezvous.bind_addr);
  }

  static c10::intrusive_ptr<c10d::ProcessGroup> join(const Rendezvous& rv, int channels) {
    try {
      return make_process_group(rv, channels);
    } catch (const std::exception& e) {
      throw std::runtime_error("rank " + std::to_string(rv.rank) + ": rendezvous with " +
                               std::to_string(rv.world_size) + " ranks at " + rv.master_addr +
                               ":" + std::to_string(rv.master_port) +
                               " failed: " + first_line(e.what()));
    }
  }

  // The emulated part of a step's compute, slept after the forward pass and
  // sized by emulated_sleep_ms() (emulated_compute.h). Returns the time it
  // slept.
  double sleep_out_emulated_compute(double forward_ms) {
    const double factor = slowed_ ? o_.compute_slowdown : 1;
    const auto sleep_start = Clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(
        emulated_sleep_ms(forward_ms, last_backward_ms_, o_.step_compute_ms, factor)));
    return ms_since(sleep_start);
  }

  const TrainOptions& o_;
  const Rendezvous& rv_;
  Dataset data_;
  MetricsWriter metrics_;
  torch::nn::Sequential model_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  GradientSync sync_;
  const int64_t steps_per_epoch_;
  const int64_t total_steps_;
  WireBytes wire_;
  SchedClock sched_clock_;  // the threads' schedstat files, kept open
  torch::optim::SGD optimizer_;
  const bool slowed_;
  const bool padded_;  // some of each step's compute is slept (above)
  Clock::time_point run_start_;
  torch::Tensor shard_;
  double last_loss_ = 0, last_accuracy_ = -1, comm_total_ms_ = 0;
  double last_backward_ms_ = -1;  // none yet
};

}  // namespace

void run_training(const TrainOptions& o) {
  validate(o);
  ignore_broken_pipes();
  torch::set_num_threads(o.threads);
  torch::manual_seed(o.seed);
  TrainingRun run(o);
  run.announce();
  for (int64_t step = 1; step <= run.total_steps(); ++step) {
    run.train_step(step);
    if (run.evaluation_due(step)) run.evaluate_at(step);
  }
  run.finish();
}

}  // namespace fabriclab::trainer
