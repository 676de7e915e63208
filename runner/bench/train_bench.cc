#include "runner/bench/train_bench.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/build_paths.h"
#include "common/free_port.h"
#include "common/input_error.h"
#include "common/temp_dir.h"
#include "runner/bench/rank_wait.h"
#include "runner/bench/step_rate.h"
#include "runner/bench/train_bench_configs.h"
#include "runner/process/process.h"
#include "runner/workload/model_size.h"
#include "trainer/gemm.h"

namespace fabriclab::runner::bench {
namespace {

namespace fs = std::filesystem;

// kFabriclab is the trainer as the labs run it; with --accounting-cost its
// steps also read lo's counters (a lab rank reads its eth0's), and
// kUnaccounted is the same run with --no-accounting.
enum class Side { kFabriclab, kDdp, kUnaccounted };
const char* side_name(Side side) {
  switch (side) {
    case Side::kFabriclab: return "fabriclab";
    case Side::kDdp: return "DDP";
    case Side::kUnaccounted: return "fabriclab --no-accounting";
  }
  return "";
}
const char* side_stem(Side side) {
  switch (side) {
    case Side::kFabriclab: return "fabriclab";
    case Side::kDdp: return "ddp";
    case Side::kUnaccounted: return "unaccounted";
  }
  return "";
}

std::vector<std::string> rank_argv(Side side, const TrainBenchConfig& c,
                                   const TrainBenchOptions& o, const std::string& metrics) {
  const std::vector<std::string> common = {"--model",   c.model,
                                           "--width",   std::to_string(c.width),
                                           "--batch",   std::to_string(c.batch),
                                           "--steps",   std::to_string(o.steps),
                                           "--threads", std::to_string(o.threads),
                                           "--metrics", metrics,
                                           "--timeout", "120"};
  std::vector<std::string> argv;
  if (side != Side::kDdp) {
    argv = {o.trainer, "train", "--data", "synthetic", "--iface", "lo", "--log-every", "0",
            "--gemm", o.gemm};
    if (side == Side::kUnaccounted) argv.push_back("--no-accounting");
    if (side == Side::kFabriclab && o.accounting_cost) {
      argv.push_back("--wire-device");
      argv.push_back("lo");
    }
  } else {
    argv = {o.python, o.script, "--warmup", std::to_string(o.warmup)};
    if (o.ddp_bucket_view) argv.push_back("--gradient-as-bucket-view");
  }
  argv.insert(argv.end(), common.begin(), common.end());
  return argv;
}

// Launches the N ranks of one side, waits for all, and times them.
StepRate run_side(Side side, const TrainBenchConfig& c, const TrainBenchOptions& o,
                  const TempDir& dir, int run) {
  const int port = fabriclab::free_loopback_port();
  std::vector<Process> ranks;
  std::vector<std::string> metrics, logs;
  for (int r = 0; r < o.world_size; ++r) {
    const std::string stem =
        std::string(side_stem(side)) + "-" + std::to_string(run) + "-rank" + std::to_string(r);
    metrics.push_back(dir.file(stem + ".jsonl"));
    logs.push_back(dir.file(stem + ".log"));
    LaunchSpec spec;
    spec.argv = rank_argv(side, c, o, metrics.back());
    spec.env = torchrun_environment("127.0.0.1", port, r, o.world_size, r, o.world_size);
    spec.env["GLOO_SOCKET_IFNAME"] = "lo";
    spec.stdout_stream = Redirect::file(logs.back());
    spec.stderr_stream = Redirect::append(logs.back());
    spec.label = std::string(side_name(side)) + " rank " + std::to_string(r);
    ranks.push_back(Process::launch(spec));
  }
  wait_for_ranks(ranks, logs,
                 std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s),
                 std::string(side_name(side)) + " ranks did not finish within " +
                     std::to_string(o.timeout_s) + " s",
                 std::chrono::milliseconds(50));
  std::vector<nlohmann::json> events;
  for (const auto& path : metrics) {
    auto more = read_json_lines(path);
    events.insert(events.end(), more.begin(), more.end());
  }
  return step_rate(events, o.world_size, o.warmup);
}

std::string join(const std::vector<double>& values) {
  std::string text;
  for (double v : values) text += (text.empty() ? "" : " ") + fmt::format("{:.1f}", v);
  return text;
}

// Steps/s of every repeat of one configuration, per side.
struct Row {
  std::vector<double> fab;
  std::vector<double> baseline;  // DDP; with --accounting-cost, fabriclab --no-accounting
};

void print_table(const TrainBenchOptions& o, const std::vector<TrainBenchConfig>& configs,
                 const std::vector<Row>& rows, const std::string& fabriclab_gemm,
                 const std::string& ddp_gemm) {
  std::printf(
      "\nfabriclab bench train: %d ranks on loopback (gloo), %d intra-op thread(s) each, "
      "%lld steps (%lld warmup excluded), median of %d alternating repeats; DDP "
      "gradient_as_bucket_view=%s\n\n",
      o.world_size, o.threads, static_cast<long long>(o.steps), static_cast<long long>(o.warmup),
      o.repeat, o.ddp_bucket_view ? "True" : "False");
  std::printf("dense layers: fabriclab on %s; DDP on %s\n\n", fabriclab_gemm.c_str(),
              ddp_gemm.c_str());
  std::printf("%-30s %-18s %10s %9s %16s %12s %7s %8s %s\n", "config", "model", "params", "grad MB",
              "fabriclab st/s", "DDP st/s", "ratio", "target", "result");
  for (size_t i = 0; i < configs.size(); ++i) {
    const TrainBenchConfig& c = configs[i];
    const int64_t params = runner::model_params(c.model, c.width);
    const double fab = median(rows[i].fab), ddp = median(rows[i].baseline);
    const double ratio = ddp > 0 ? fab / ddp : 0;
    const std::string model = fmt::format("{} w{} b{}", c.model, c.width, c.batch);
    const std::string target = c.target > 0 ? fmt::format(">={:.2f}x", c.target) : "-";
    const char* result = c.target > 0 ? (ratio >= c.target ? "PASS" : "MISS") : "";
    std::printf("%-30s %-18s %10lld %9.1f %16.1f %12.1f %6.2fx %8s %s\n", c.label.c_str(),
                model.c_str(), static_cast<long long>(params), params * 4 / 1e6, fab, ddp, ratio,
                target.c_str(), result);
  }
  std::printf("\nper repeat (steps/s):\n");
  for (size_t i = 0; i < configs.size(); ++i) {
    std::printf("  %-28s fabriclab [%s]  DDP [%s]\n", configs[i].label.c_str(),
                join(rows[i].fab).c_str(), join(rows[i].baseline).c_str());
  }
}

// --accounting-cost: steps/s with and without the per-step accounting, and
// what it costs a step: per pair, on step time / off step time - 1.
void print_accounting_table(const TrainBenchOptions& o,
                            const std::vector<TrainBenchConfig>& configs,
                            const std::vector<Row>& rows) {
  std::printf(
      "\nfabriclab bench train --accounting-cost: %d ranks on loopback (gloo), %d intra-op "
      "thread(s) each, %lld steps (%lld warmup excluded), %d alternating pairs; accounting on = "
      "schedstat and lo's counters read twice a step, off = --no-accounting\n\n",
      o.world_size, o.threads, static_cast<long long>(o.steps), static_cast<long long>(o.warmup),
      o.repeat);
  std::printf("%-30s %-18s %13s %13s %10s %10s %16s\n", "config", "model", "on st/s",
              "off st/s", "on ms", "off ms", "cost/step %");
  for (size_t i = 0; i < configs.size(); ++i) {
    const TrainBenchConfig& c = configs[i];
    std::vector<double> cost;
    for (size_t k = 0; k < rows[i].fab.size() && k < rows[i].baseline.size(); ++k)
      if (rows[i].fab[k] > 0) cost.push_back(100.0 * (rows[i].baseline[k] / rows[i].fab[k] - 1));
    const double on = median(rows[i].fab), off = median(rows[i].baseline);
    const auto [lo, hi] = std::minmax_element(cost.begin(), cost.end());
    const std::string model = fmt::format("{} w{} b{}", c.model, c.width, c.batch);
    const std::string cost_text =
        cost.empty() ? "-" : fmt::format("{:+.2f} [{:+.2f}, {:+.2f}]", median(cost), *lo, *hi);
    std::printf("%-30s %-18s %13.1f %13.1f %10.3f %10.3f %16s\n", c.label.c_str(), model.c_str(),
                on, off, on > 0 ? 1000 / on : 0, off > 0 ? 1000 / off : 0, cost_text.c_str());
  }
  std::printf("\nper pair (steps/s, on / off, cost %%):\n");
  for (size_t i = 0; i < configs.size(); ++i) {
    std::string pairs;
    for (size_t k = 0; k < rows[i].fab.size() && k < rows[i].baseline.size(); ++k)
      pairs += fmt::format("{}{:.1f}/{:.1f} ({:+.2f})", pairs.empty() ? "" : "  ", rows[i].fab[k],
                           rows[i].baseline[k], 100.0 * (rows[i].baseline[k] / rows[i].fab[k] - 1));
    std::printf("  %-28s %s\n", configs[i].label.c_str(), pairs.c_str());
  }
}

}  // namespace

std::string default_ddp_script() {
  return std::string(fabriclab::build_paths::source_dir()) + "/trainer/bench/ddp_baseline.py";
}

void run_train_bench(const TrainBenchOptions& o) {
  if (o.warmup < 1 || o.warmup >= o.steps) {
    throw InputError("--warmup must be >= 1 and below --steps (" + std::to_string(o.steps) + ")");
  }
  if (!o.accounting_cost && !fs::exists(o.script)) {
    throw InputError("--ddp-script " + o.script + ": no such file (trainer/bench/ddp_baseline.py)");
  }
  const std::vector<TrainBenchConfig> configs = train_bench_configs(o);
  // Where a difference comes from: at large batches the step is matrix products.
  const std::string fabriclab_gemm = trainer::describe_gemm(trainer::parse_gemm(o.gemm));
  const std::string ddp_gemm = trainer::describe_gemm(trainer::Gemm::kTorch);
  spdlog::info("dense layers: fabriclab on {}; DDP on {}", fabriclab_gemm, ddp_gemm);
  TempDir dir("fabriclab-bench-train");
  std::vector<Row> rows(configs.size());
  int run = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    const TrainBenchConfig& c = configs[i];
    spdlog::info(
        "{}: {} width {} batch {} ({} params), {} ranks x {} thread(s), {} steps "
        "({} warmup), {} repeat(s)",
        c.label, c.model, c.width, c.batch, runner::model_params(c.model, c.width), o.world_size,
        o.threads, o.steps, o.warmup, o.repeat);
    for (int r = 0; r < o.repeat; ++r) {
      // Alternate which side goes first so drift on a shared machine hits both.
      // With --accounting-cost the second side is fabriclab without it (and
      // the row's `ddp` holds that side's figures).
      const Side other = o.accounting_cost ? Side::kUnaccounted : Side::kDdp;
      const Side order[2] = {r % 2 == 0 ? Side::kFabriclab : other,
                             r % 2 == 0 ? other : Side::kFabriclab};
      for (Side side : order) {
        const StepRate rate = run_side(side, c, o, dir, run++);
        (side == Side::kFabriclab ? rows[i].fab : rows[i].baseline).push_back(rate.steps_per_s);
        spdlog::info("  repeat {}: {:9} {:8.1f} steps/s ({} steps in {:.2f} s)", r + 1,
                     side_name(side), rate.steps_per_s, rate.steps, rate.wall_s);
      }
    }
  }
  if (o.accounting_cost)
    print_accounting_table(o, configs, rows);
  else
    print_table(o, configs, rows, fabriclab_gemm, ddp_gemm);
}

}  // namespace fabriclab::runner::bench
