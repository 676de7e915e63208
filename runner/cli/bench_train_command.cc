// `fabriclab bench train`: fabriclab's trainer against PyTorch DDP, side by
// side. A benchmark, not a test: it prints figures (issue 2, "Benchmark").
//
// For each configuration and each repeat it launches N `fabriclab train`
// ranks and N ranks of trainer/bench/ddp_baseline.py (Debian's python3-torch,
// the same libtorch 1.13 underneath) in the same way: one process per rank,
// torchrun's environment, a fresh loopback port, GLOO_SOCKET_IFNAME=lo (and
// `--iface lo` for fabriclab), the same model, per-rank batch, intra-op
// threads, steps and synthetic data shapes. The order alternates between
// repeats (fabriclab first, then DDP first) so slow drift on a shared machine
// is spread over both. Both write `step` events; steps/s after warmup comes
// from their timestamps (runner/bench/step_rate.h). The table shows medians.
//
// Everything it creates (processes, the temporary folder with metrics and
// logs) is owned by objects destroyed on every exit path.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "common/free_port.h"
#include "common/input_error.h"
#include "common/temp_dir.h"
#include "runner/bench/step_rate.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"
#include "runner/lab/lab_definition.h"
#include "runner/process/process.h"
#include "trainer/dense_layer.h"

namespace fabriclab::cli {
namespace {

namespace fs = std::filesystem;
using runner::Process;

struct BenchTrainOptions {
  std::string model = "mlp";
  int64_t width = 128;
  int64_t batch = 64;
  int world_size = 2;
  int threads = 1;
  int64_t steps = 300;
  int64_t warmup = 20;
  int repeat = 3;
  std::string python = "/usr/bin/python3";  // Debian's, where python3-torch lives
  std::string script = std::string(FABRICLAB_SOURCE_DIR) + "/trainer/bench/ddp_baseline.py";
  bool ddp_bucket_view = false;  // DDP(gradient_as_bucket_view=True); DDP's default is False
  std::string gemm = "onednn";    // fabriclab's --gemm
  std::string trainer = "/proc/self/exe";  // the fabriclab binary whose `train` runs
  std::string preset;                      // "" or "issue"
  int timeout_s = 600;                     // per run of N ranks
};

struct Config {
  std::string label;
  std::string model;
  int64_t width = 0;
  int64_t batch = 0;
  double target = 0;  // required fabriclab/DDP ratio; 0 = none
};

enum class Side { kFabriclab, kDdp };
const char* side_name(Side side) { return side == Side::kFabriclab ? "fabriclab" : "DDP"; }

// The models of trainer/models.cc.
int64_t parameter_count(const std::string& model, int64_t w) {
  if (model == "mlp") return 784 * w + w + w * w + w + w * 10 + 10;
  return (16 * 25 + 16) + (32 * 16 * 25 + 32) + (512 * w + w) + (w * 10 + 10);
}

constexpr int64_t kLargeGradientBytes = 25'000'000;  // issue 2: "25 MB or more of gradients"

std::string tail_of(const std::string& path, size_t max_chars = 1500) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
}

std::vector<std::string> rank_argv(Side side, const Config& c, const BenchTrainOptions& o,
                                   const std::string& metrics) {
  const std::vector<std::string> common = {"--model",   c.model,
                                           "--width",   std::to_string(c.width),
                                           "--batch",   std::to_string(c.batch),
                                           "--steps",   std::to_string(o.steps),
                                           "--threads", std::to_string(o.threads),
                                           "--metrics", metrics,
                                           "--timeout", "120"};
  std::vector<std::string> argv;
  if (side == Side::kFabriclab) {
    argv = {o.trainer, "train", "--data", "synthetic", "--iface", "lo", "--log-every", "0",
            "--gemm", o.gemm};
  } else {
    argv = {o.python, o.script, "--warmup", std::to_string(o.warmup)};
    if (o.ddp_bucket_view) argv.push_back("--gradient-as-bucket-view");
  }
  argv.insert(argv.end(), common.begin(), common.end());
  return argv;
}

// Launches the N ranks of one side, waits for all, and times them.
runner::StepRate run_side(Side side, const Config& c, const BenchTrainOptions& o,
                          const TempDir& dir, int run) {
  const int port = fabriclab::free_loopback_port();
  std::vector<Process> ranks;
  std::vector<std::string> metrics, logs;
  for (int r = 0; r < o.world_size; ++r) {
    const std::string stem = std::string(side == Side::kFabriclab ? "fabriclab" : "ddp") + "-" +
                             std::to_string(run) + "-rank" + std::to_string(r);
    metrics.push_back(dir.file(stem + ".jsonl"));
    logs.push_back(dir.file(stem + ".log"));
    runner::LaunchSpec spec;
    spec.argv = rank_argv(side, c, o, metrics.back());
    spec.env = runner::torchrun_environment("127.0.0.1", port, r, o.world_size, r, o.world_size);
    spec.env["GLOO_SOCKET_IFNAME"] = "lo";
    spec.stdout_stream = runner::Redirect::file(logs.back());
    spec.stderr_stream = runner::Redirect::append(logs.back());
    spec.label = std::string(side_name(side)) + " rank " + std::to_string(r);
    ranks.push_back(Process::launch(spec));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  for (;;) {
    size_t done = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const auto status = ranks[r].poll();
      if (!status) continue;
      if (!status->success()) {
        runner::terminate_all(ranks);
        throw std::runtime_error(ranks[r].label() + " " + status->describe() + "; its output:\n" +
                                 tail_of(logs[r]));
      }
      ++done;
    }
    if (done == ranks.size()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      runner::terminate_all(ranks);
      throw std::runtime_error(std::string(side_name(side)) + " ranks did not finish within " +
                               std::to_string(o.timeout_s) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<nlohmann::json> events;
  for (const auto& path : metrics) {
    auto more = runner::read_json_lines(path);
    events.insert(events.end(), more.begin(), more.end());
  }
  return runner::step_rate(events, o.world_size, o.warmup);
}

// Lab 02's model: labs/02-*/lab.toml's [trainer], from the labs folder
// `fabriclab run` would use.
Config lab02_config() {
  const runner::LabDefinition lab =
      runner::load_lab(runner::find_lab_file(runner::default_labs_dir(), "02"));
  auto setting = [&](const char* key, const std::string& fallback) {
    auto it = lab.workload.params.find(key);
    return it == lab.workload.params.end() ? fallback : it->second;
  };
  Config c{"lab 02 (" + lab.name + ")", setting("model", "mlp"),
           std::stoi(setting("width", "128")), std::stoi(setting("batch", "64")), 1.25};
  return c;
}

std::vector<Config> configs_of(const BenchTrainOptions& o) {
  if (o.preset == "issue") {
    return {lab02_config(), Config{">= 25 MB gradient", "mlp", 2560, 64, 1.0}};
  }
  Config c{"custom", o.model, o.width, o.batch, 0};
  if (parameter_count(o.model, o.width) * 4 >= kLargeGradientBytes) c.target = 1.0;
  return {c};
}

std::string join(const std::vector<double>& values) {
  std::string text;
  for (double v : values) text += (text.empty() ? "" : " ") + fmt::format("{:.1f}", v);
  return text;
}

void run_bench(const BenchTrainOptions& o) {
  if (o.warmup < 1 || o.warmup >= o.steps) {
    throw InputError("--warmup must be >= 1 and below --steps (" + std::to_string(o.steps) + ")");
  }
  if (!fs::exists(o.script)) {
    throw InputError("--ddp-script " + o.script + ": no such file (trainer/bench/ddp_baseline.py)");
  }
  const std::vector<Config> configs = configs_of(o);
  // Where a difference comes from: at large batches the step is matrix products.
  const std::string fabriclab_gemm = trainer::describe_gemm(trainer::parse_gemm(o.gemm));
  const std::string ddp_gemm = trainer::describe_gemm(trainer::Gemm::kTorch);
  spdlog::info("dense layers: fabriclab on {}; DDP on {}", fabriclab_gemm, ddp_gemm);
  TempDir dir("fabriclab-bench-train");
  struct Row {
    std::vector<double> fab, ddp;
  };
  std::vector<Row> rows(configs.size());
  int run = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    spdlog::info(
        "{}: {} width {} batch {} ({} params), {} ranks x {} thread(s), {} steps "
        "({} warmup), {} repeat(s)",
        c.label, c.model, c.width, c.batch, parameter_count(c.model, c.width), o.world_size,
        o.threads, o.steps, o.warmup, o.repeat);
    for (int r = 0; r < o.repeat; ++r) {
      // Alternate which side goes first so drift on a shared machine hits both.
      const Side order[2] = {r % 2 == 0 ? Side::kFabriclab : Side::kDdp,
                             r % 2 == 0 ? Side::kDdp : Side::kFabriclab};
      for (Side side : order) {
        const runner::StepRate rate = run_side(side, c, o, dir, run++);
        (side == Side::kFabriclab ? rows[i].fab : rows[i].ddp).push_back(rate.steps_per_s);
        spdlog::info("  repeat {}: {:9} {:8.1f} steps/s ({} steps in {:.2f} s)", r + 1,
                     side_name(side), rate.steps_per_s, rate.steps, rate.wall_s);
      }
    }
  }

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
    const Config& c = configs[i];
    const int64_t params = parameter_count(c.model, c.width);
    const double fab = runner::median(rows[i].fab), ddp = runner::median(rows[i].ddp);
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
                join(rows[i].fab).c_str(), join(rows[i].ddp).c_str());
  }
}

}  // namespace

void add_bench_train_command(CLI::App& app) {
  auto o = std::make_shared<BenchTrainOptions>();
  CLI::App* cmd = bench_parent(app)->add_subcommand(
      "train",
      "Steps/s of fabriclab's trainer against PyTorch DDP (python3-torch) on the same model, "
      "batch, ranks and threads, over loopback");
  auto* preset = cmd->add_option("--preset", o->preset,
                                 "'issue': lab 02's model (target >= 1.25x DDP) and an MLP with "
                                 ">= 25 MB of gradients (target >= 1.0x)")
                     ->check(CLI::IsMember({"issue"}));
  cmd->add_option("--model", o->model, "mlp or cnn")
      ->check(CLI::IsMember({"mlp", "cnn"}))
      ->excludes(preset)
      ->capture_default_str();
  cmd->add_option("--width", o->width, "Hidden width")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16))
      ->excludes(preset)
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "Samples per step per rank")
      ->check(CLI::Range(int64_t{1}, int64_t{8192}))
      ->excludes(preset)
      ->capture_default_str();
  cmd->add_option("--world-size", o->world_size, "Ranks per run")
      ->check(CLI::Range(2, 16))
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Intra-op threads per rank (both sides)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--steps", o->steps, "Steps per run")
      ->check(CLI::Range(int64_t{2}, int64_t{1000000}))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Steps excluded from the timing")->capture_default_str();
  cmd->add_option("--repeat", o->repeat, "Runs of each side, alternating")
      ->check(CLI::Range(1, 50))
      ->capture_default_str();
  cmd->add_option("--python", o->python, "Python with python3-torch")->capture_default_str();
  cmd->add_option("--ddp-script", o->script, "The DDP baseline")->capture_default_str();
  cmd->add_flag("--ddp-bucket-view", o->ddp_bucket_view,
                "Run DDP with gradient_as_bucket_view=True (as fabriclab; DDP's default copies "
                "gradients into and out of its buckets)");
  cmd->add_option("--gemm", o->gemm,
                  "fabriclab's --gemm: onednn, or torch for the same BLAS as DDP (the same math "
                  "on the same kernels: what is left is the frameworks' own overhead)")
      ->check(CLI::IsMember({"onednn", "torch"}))
      ->capture_default_str();
  cmd->add_option("--trainer", o->trainer, "fabriclab binary to benchmark (e.g. an older build)")
      ->check(CLI::ExistingFile)
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout_s, "Seconds one run of N ranks may take")
      ->check(CLI::Range(10, 86400))
      ->capture_default_str();
  cmd->callback([o] { run_bench(*o); });
}

}  // namespace fabriclab::cli
