// `fabriclab train`: one rank of data-parallel training. The runner launches
// one per namespace with torchrun's environment; a student can run it alone.
#include <chrono>
#include <cstdlib>
#include <memory>

#include "common/input_error.h"
#include "common/launcher_env.h"
#include "runner/cli/commands.h"
#include "trainer/trainer.h"

namespace fabriclab::cli {
namespace {

// Slurm (and any launcher common/launcher_env.h knows) fills what neither a
// flag nor torchrun's variables gave; the launcher's name goes in the
// metrics' start event.
void apply_launcher_env(const CLI::App& cmd, trainer::Rendezvous& rv) {
  LauncherEnv env;
  try {
    env = read_launcher_env([](const char* name) { return std::getenv(name); });
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  rv.launcher = env.launcher;
  const auto unset = [&](const char* flag) { return cmd.get_option(flag)->count() == 0; };
  if (env.rank && unset("--rank")) rv.rank = *env.rank;
  if (env.world_size && unset("--world-size")) rv.world_size = *env.world_size;
  if (env.local_rank && unset("--local-rank")) rv.local_rank = *env.local_rank;
  if (env.master_addr && unset("--master-addr")) rv.master_addr = *env.master_addr;
  if (env.master_port && unset("--master-port")) rv.master_port = *env.master_port;
  rv.agent_store_attempt = env.agent_store_attempt;
  // As in PyTorch, GLOO_SOCKET_IFNAME picks Gloo's interface(s); fabriclab's
  // own flags (and the FABRICLAB_ variables its runner sets) still win.
  if (env.gloo_socket_ifname && unset("--iface") && unset("--bind-addr")) {
    rv.iface = *env.gloo_socket_ifname;
    rv.iface_from = "GLOO_SOCKET_IFNAME";
  }
}

// "--bucket-cap-mb 64" -> bytes; CLI11 prefixes the flag to the message.
std::string mib_to_bytes(const std::string& mib) {
  constexpr long long kMaxMib = 1 << 20;  // 1 TiB: far above any model's gradient
  size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(mib, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != mib.size() || value < 1 || value > kMaxMib)
    throw CLI::ValidationError("expected a whole number of MiB from 1 to " +
                               std::to_string(kMaxMib) + ", got '" + mib + "'");
  return std::to_string(value << 20);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto options = std::make_shared<trainer::TrainOptions>();
  auto model = std::make_shared<std::string>("mlp");
  auto gemm = std::make_shared<std::string>("onednn");
  auto timeout_s = std::make_shared<double>(60);

  CLI::App* cmd = app.add_subcommand("train", "Run one rank of data-parallel training");
  cmd->footer(
      "Rendezvous comes from the flags, else the launcher's environment: torchrun's or a\n"
      "PyTorchJob's (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK), or srun's\n"
      "(SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID; MASTER_ADDR or the first host of\n"
      "SLURM_JOB_NODELIST). Under torchrun's static rendezvous (TORCHELASTIC_USE_AGENT_STORE=True)\n"
      "its agent hosts the store and every rank joins it. GLOO_SOCKET_IFNAME (comma-separated)\n"
      "picks Gloo's interfaces when --iface and --bind-addr are not given.\n"
      "WORLD_SIZE=1 needs no network.\n"
      "Metrics format: doc/metrics.md.\n"
      "Example: fabriclab train --model mlp --width 128 --epochs 1 --metrics m.jsonl");

  cmd->add_option("--model", *model, "Model: mlp or cnn")->check(CLI::IsMember({"mlp", "cnn"}))
      ->capture_default_str();
  cmd->add_option("--width", options->width, "Hidden width (sets the parameter count)")
      ->capture_default_str();
  auto* steps = cmd->add_option("--steps", options->steps, "Steps to train (per rank)");
  cmd->add_option("--epochs", options->epochs, "Epochs to train, when --steps is not given")
      ->excludes(steps)
      ->capture_default_str();
  cmd->add_option("--batch", options->batch, "Samples per step per rank")->capture_default_str();
  cmd->add_option("--lr", options->lr, "SGD learning rate")->capture_default_str();
  cmd->add_option("--momentum", options->momentum, "SGD momentum")->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed for init and shuffling")->capture_default_str();
  cmd->add_option("--threads", options->threads, "Intra-op threads")->capture_default_str();
  cmd->add_option("--gemm", *gemm,
                  "Matrix products of the dense layers: onednn (AVX-512 where the CPU has it) or "
                  "torch (libtorch's BLAS, as PyTorch does)")
      ->check(CLI::IsMember({"onednn", "torch"}))
      ->capture_default_str();
  cmd->add_option("--eval-every", options->eval_every,
                  "Evaluate every N steps (0: only at the end)")
      ->capture_default_str();
  cmd->add_option("--eval-at", options->eval_at,
                  "Also evaluate after these steps, comma-separated (0: the untrained model)")
      ->delimiter(',');
  cmd->add_option("--log-every", options->log_every, "Progress line every N steps")
      ->capture_default_str();
  cmd->add_option("--data", options->data_dir,
                  "Folder of MNIST-format IDX files (.gz or plain), or 'synthetic' "
                  "[default: /usr/share/datasets/fashion-mnist]");
  cmd->add_option("--metrics", options->metrics_path, "Append JSON Lines metrics here ('-' = stdout)");
  cmd->add_option("--timeout", *timeout_s, "Seconds a rendezvous or collective may take")
      ->capture_default_str();
  cmd->add_option("--bucket-cap-mb", options->bucket_bytes, "Gradient bucket cap in MiB")
      ->transform(mib_to_bytes);
  cmd->add_option("--first-bucket-mb", options->first_bucket_bytes, "First bucket cap in MiB")
      ->transform(mib_to_bytes);
  cmd->add_option("--channels", options->channels,
                  "Gloo contexts, each with its own TCP connection to every peer; every bucket "
                  "is allreduced in this many slices at once (NCCL's channels)")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();

  cmd->add_option("--compute-slowdown", options->compute_slowdown,
                  "A slow worker: take this many times as long to compute each step (sleeps "
                  "after the forward pass; see --slow-rank)")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--step-compute-ms", options->step_compute_ms,
                  "An accelerator's compute time per step: each step's forward and backward "
                  "take at least this long (the rest slept after the forward pass; 0 = as fast "
                  "as this CPU computes)")
      ->check(CLI::Range(0.0, 600000.0))
      ->capture_default_str();
  cmd->add_option("--slow-rank", options->slow_rank,
                  "The rank that --compute-slowdown slows (-1: every rank)")
      ->capture_default_str();

  cmd->add_flag("!--no-accounting", options->accounting,
                "Step events without cpu_ms, queued_ms and tx/rx bytes: skips the per-step "
                "reads of /proc (what `bench train --accounting-cost` times)");
  cmd->add_option("--wire-device", options->wire_device,
                  "Read tx/rx bytes from this device's counters, even a loopback one")
      ->group("");  // bench train --accounting-cost: the read a lab rank makes, on loopback

  trainer::Rendezvous& rv = options->rendezvous;
  cmd->add_option("--master-addr", rv.master_addr, "Rendezvous host")->envname("MASTER_ADDR");
  cmd->add_option("--master-port", rv.master_port, "Rendezvous port")
      ->envname("MASTER_PORT")
      ->capture_default_str();
  cmd->add_option("--rank", rv.rank, "This rank")->envname("RANK")->capture_default_str();
  cmd->add_option("--world-size", rv.world_size, "Number of ranks")
      ->envname("WORLD_SIZE")
      ->capture_default_str();
  cmd->add_option("--local-rank", rv.local_rank, "Rank on this host")->envname("LOCAL_RANK");
  cmd->add_option("--bind-addr", rv.bind_addr, "Address Gloo binds to (the lab network)")
      ->envname("FABRICLAB_BIND_ADDR");
  cmd->add_option("--iface", rv.iface,
                  "Interface(s) Gloo binds to, comma-separated (instead of --bind-addr)")
      ->envname("FABRICLAB_IFACE");

  cmd->callback([cmd, options, model, gemm, timeout_s] {
    apply_launcher_env(*cmd, options->rendezvous);
    options->model = trainer::parse_model_kind(*model);
    options->gemm = trainer::parse_gemm(*gemm);
    options->rendezvous.timeout =
        std::chrono::milliseconds(static_cast<int64_t>(*timeout_s * 1000));
    if (*timeout_s <= 0) throw InputError("--timeout must be positive");
    trainer::run_training(*options);
  });
}

}  // namespace fabriclab::cli
