// `fabriclab bench allreduce` (nccl-tests' all_reduce_perf flags where they
// exist) and the hidden `fabriclab bench allreduce-rank` it launches in each
// namespace: their options; the benchmark is runner/bench/allreduce_bench.h,
// one rank runner/bench/allreduce_rank.h.
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>

#include "runner/bench/allreduce_bench.h"
#include "runner/bench/allreduce_rank.h"
#include "runner/cli/bench_parent.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {
namespace {

void add_rank_command(CLI::App& bench) {
  auto o = std::make_shared<runner::bench::AllreduceRankOptions>();
  auto rv = std::make_shared<trainer::Rendezvous>();
  auto timeout_s = std::make_shared<int>(600);
  CLI::App* cmd = bench.add_subcommand(
      "allreduce-rank", "One rank of `bench allreduce` (what it launches in each namespace)");
  cmd->group("");  // hidden: an internal interface, not a user's command
  cmd->add_option("--sizes", o->sizes_bytes, "Sizes in bytes, comma-separated")
      ->delimiter(',')
      ->required();
  cmd->add_option("--iters", o->iters)->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", o->warmup)->check(CLI::Range(0, 100000));
  cmd->add_option("--check", o->check);
  cmd->add_option("--channels", o->channels)->check(CLI::Range(1, 16));
  cmd->add_flag("--wrong-reduction", o->wrong_reduction);
  cmd->add_option("--algorithm", o->algorithm);
  cmd->add_option("--segment-bytes", o->segment_bytes);
  cmd->add_option("--transport", o->transport, "tcp, or roce: Gloo's ibverbs transport")
      ->check(CLI::IsMember({"tcp", "roce"}));
  cmd->add_option("--rdma-device", o->rdma_device, "roce: the RDMA device (host mode's rxe)")
      ->envname("FABRICLAB_RDMA_DEVICE");
  cmd->add_option("--results", o->results_path, "JSON Lines, one per size");
  cmd->add_option("--metrics", o->metrics_path,
                  "Workload events (doc/metrics.md), what a lab's allreduce ranks write");
  cmd->add_option("--timeout", *timeout_s, "Seconds the rendezvous or one collective may take");
  cmd->add_option("--master-addr", rv->master_addr)->envname("MASTER_ADDR");
  cmd->add_option("--master-port", rv->master_port)->envname("MASTER_PORT");
  cmd->add_option("--rank", rv->rank)->envname("RANK");
  cmd->add_option("--world-size", rv->world_size)->envname("WORLD_SIZE");
  cmd->add_option("--local-rank", rv->local_rank)->envname("LOCAL_RANK");
  cmd->add_option("--bind-addr", rv->bind_addr)->envname("FABRICLAB_BIND_ADDR");
  cmd->callback([o, rv, timeout_s] {
    rv->timeout = std::chrono::seconds(*timeout_s);
    runner::bench::run_allreduce_rank(*rv, *o);
  });
}

}  // namespace

void add_bench_allreduce_command(CLI::App& app) {
  CLI::App* bench = bench_parent(app);
  auto o = std::make_shared<runner::bench::AllreduceBenchOptions>();
  CLI::App* cmd = bench->add_subcommand(
      "allreduce",
      "nccl-tests' all_reduce_perf over Gloo between ranks in lab namespaces, against the line "
      "rate iperf3 measures on the same lab (needs root or user namespaces, iperf3). Columns: "
      "doc/allreduce_bench.md");
  const auto size = CLI::AsSizeValue(false);  // 1K = 1024, as nccl-tests
  cmd->add_option("-b,--minbytes", o->min_bytes, "Smallest size (bytes; K, M, G suffixes)")
      ->transform(size)
      ->capture_default_str();
  cmd->add_option("-e,--maxbytes", o->max_bytes, "Largest size (at most 1G)")
      ->transform(size)
      ->capture_default_str();
  cmd->add_option("-f,--stepfactor", o->step_factor, "Multiply the size by this between rows")
      ->capture_default_str();
  cmd->add_option("-n,--iters", o->iters, "Timed iterations per size and place")
      ->capture_default_str();
  cmd->add_option("-w,--warmup_iters", o->warmup, "Untimed iterations before them")
      ->capture_default_str();
  cmd->add_option("-c,--check", o->check, "1: check every result (#wrong); 0: don't")
      ->check(CLI::IsMember({0, 1}))
      ->capture_default_str();
  cmd->add_option("--ranks", o->ranks, "Ranks, one namespace each (2: a veth pair; more: a bridge)")
      ->capture_default_str();
  cmd->add_option("--channels", o->channels,
                  "Gloo contexts (TCP connections) per rank; each buffer is split among them")
      ->capture_default_str();
  cmd->add_option("--segment-bytes", o->segment_bytes,
                  "Gloo's largest send per ring step (two in flight); 0: its default, 1M")
      ->transform(size)
      ->capture_default_str();
  cmd->add_option("--algorithm", o->algorithm,
                  "Gloo's allreduce algorithm: ring (gloo::allreduce), ring_chunked, "
                  "halving_doubling or bcube (common/allreduce_algorithms.h)")
      ->capture_default_str();
  cmd->add_option("--impair", o->impair,
                  "Impairment in tc-netem words on --links, e.g. 'rate 1gbit' or 'delay 1ms'");
  cmd->add_option("--links", o->links, "Whose traffic --impair holds: all, or r0 r1 ...")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--backend", o->backend, "Impairment backend: netem, userspace or auto")
      ->check(CLI::IsMember({"netem", "userspace", "auto"}))
      ->capture_default_str();
  cmd->add_flag("!--no-segmentation-offload", o->segmentation_offload,
                "MTU-sized frames on the lab links (gso_max_segs 1), as a lab with "
                "segmentation_offload = false");
  cmd->add_option("--iperf-seconds", o->iperf_seconds, "Length of the iperf3 line-rate run")
      ->check(CLI::Range(1, 60))
      ->capture_default_str();
  cmd->add_option("--transport", o->transport,
                  "tcp: Gloo's TCP transport; roce: its ibverbs transport (host mode only, "
                  "doc/roce.md: refused here)")
      ->check(CLI::IsMember({"tcp", "roce"}))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "JSON instead of the table (nccl-tests' -J keys)");
  cmd->add_option("--baseline", o->baseline,
                  "pytorch: also run torch.distributed.all_reduce (Gloo, in place; python3-torch) "
                  "in the same namespaces and sizes, and print its columns and ours/pt per size")
      ->check(CLI::IsMember({"pytorch"}));
  cmd->add_option("--python", o->python, "--baseline pytorch: a python with python3-torch")
      ->capture_default_str();
  cmd->add_option("--baseline-script", o->baseline_script,
                  "--baseline pytorch: the rank script (trainer/bench/gloo_allreduce_baseline.py)")
      ->group("");  // for tests and development
  cmd->add_flag("--wrong-reduction", o->wrong_reduction,
                "Reduce with max instead of sum: #wrong must then be > 0 (a self-test)");
  cmd->add_option("--timeout", o->timeout_s, "Seconds all sizes may take")
      ->check(CLI::Range(10, 86400))
      ->capture_default_str();
  cmd->callback([o] {
    const int status = runner::bench::run_allreduce_bench(*o);
    if (status != 0) throw CommandExit{status};
  });
  add_rank_command(*bench);
}

}  // namespace fabriclab::cli
