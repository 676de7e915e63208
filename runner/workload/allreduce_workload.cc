#include "runner/workload/allreduce_workload.h"

#include <stdexcept>

#include "common/allreduce_algorithms.h"
#include "common/input_error.h"
#include "runner/workload/message_sizes.h"

namespace fabriclab::runner {

namespace {

// The defaults when the lab is silent: a sweep of five sizes that a shaped
// lab link carries in seconds, not the bench's 20 iterations of 1M..64M.
constexpr int64_t kMinBytes = 1 << 20;
constexpr int64_t kMaxBytes = 16 << 20;
constexpr int64_t kLargestMaxBytes = int64_t{1} << 30;  // as the bench's -e

int64_t integer(const WorkloadDefinition& w, const std::string& key, int64_t fallback) {
  const std::string text = w.param(key);
  return text.empty() ? fallback : std::stoll(text);
}

std::vector<int64_t> sizes_of(const WorkloadDefinition& w) {
  return message_sizes(integer(w, "minbytes", kMinBytes), integer(w, "maxbytes", kMaxBytes),
                       integer(w, "stepfactor", 2));
}

class AllreduceWorkload : public Workload {
 public:
  const char* name() const override { return "allreduce"; }

  const std::map<std::string, ParamKind>& params() const override {
    static const std::map<std::string, ParamKind> keys = {
        {"minbytes", ParamKind::kInteger}, {"maxbytes", ParamKind::kInteger},
        {"stepfactor", ParamKind::kInteger}, {"iters", ParamKind::kInteger},
        {"warmup_iters", ParamKind::kInteger}, {"check", ParamKind::kInteger},
        {"channels", ParamKind::kInteger}, {"timeout_s", ParamKind::kInteger},
        {"algorithm", ParamKind::kString}, {"transport", ParamKind::kString}};
    return keys;
  }

  void check(const WorkloadDefinition& w) const override {
    const int64_t min = integer(w, "minbytes", kMinBytes), max = integer(w, "maxbytes", kMaxBytes);
    if (min < 1) throw std::invalid_argument("minbytes must be >= 1");
    if (max < min || max > kLargestMaxBytes)
      throw std::invalid_argument("maxbytes must be in minbytes (" + std::to_string(min) +
                                  ") .. 1073741824 (1G)");
    if (integer(w, "stepfactor", 2) < 2) throw std::invalid_argument("stepfactor must be >= 2");
    if (integer(w, "iters", 5) < 1) throw std::invalid_argument("iters must be >= 1");
    const int64_t check = integer(w, "check", 1);
    if (check != 0 && check != 1) throw std::invalid_argument("check must be 0 or 1");
    const int64_t channels = integer(w, "channels", 2);
    if (channels < 1 || channels > 16) throw std::invalid_argument("channels must be in 1..16");
    if (integer(w, "timeout_s", 120) < 1) throw std::invalid_argument("timeout_s must be >= 1");
    const std::string algorithm = w.param("algorithm");
    if (!algorithm.empty() && !is_allreduce_algorithm(algorithm))
      throw std::invalid_argument("algorithm '" + algorithm + "' is not one of Gloo's: expected " +
                                  allreduce_algorithm_list());
    const std::string transport = w.param("transport", "tcp");
    if (transport != "tcp" && transport != "roce")
      throw std::invalid_argument("transport must be \"tcp\" or \"roce\", not \"" + transport +
                                  "\"");
  }

  std::vector<std::string> rank_command(const WorkloadDefinition& w,
                                        const std::string& metrics_path) const override {
    std::string sizes;
    for (int64_t s : sizes_of(w)) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    const std::string algorithm = w.param("algorithm");
    std::vector<std::string> command = {"bench",     "allreduce-rank",
            "--sizes",   sizes,
            "--iters",   std::to_string(integer(w, "iters", 5)),
            "--warmup",  std::to_string(integer(w, "warmup_iters", 1)),
            "--check",   std::to_string(integer(w, "check", 1)),
            "--channels", std::to_string(integer(w, "channels", 2)),
            "--timeout", std::to_string(integer(w, "timeout_s", 120)),
            "--metrics", metrics_path,
            "--algorithm", algorithm.empty() ? default_allreduce_algorithm() : algorithm};
    // roce: the device comes from the runner (FABRICLAB_RDMA_DEVICE).
    if (w.param("transport", "tcp") == "roce") {
      command.push_back("--transport");
      command.push_back("roce");
    }
    return command;
  }

  int64_t planned_steps(const WorkloadDefinition& w) const override {
    return static_cast<int64_t>(sizes_of(w).size());
  }

  int64_t model_params(const WorkloadDefinition&) const override {
    throw InputError("workload 'allreduce' trains no model: it has no params or grad_bytes");
  }
};

}  // namespace

const Workload& allreduce_workload() {
  static const AllreduceWorkload instance;
  return instance;
}

}  // namespace fabriclab::runner
