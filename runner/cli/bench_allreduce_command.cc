// `fabriclab bench allreduce` (nccl-tests' all_reduce_perf flags where they
// exist) and the hidden `fabriclab bench allreduce-rank` it launches in each
// namespace: their options; the benchmark is runner/bench/allreduce_bench.h,
// one rank runner/bench/allreduce_rank.h; with --hosts, host mode's front
// runner/cli/bench_allreduce_hosts.h.
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "runner/bench/allreduce_bench.h"
#include "runner/bench/allreduce_rank.h"
#include "runner/cli/bench_allreduce_hosts.h"
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

// The host-mode flags (--hosts and what needs it) and the namespace-only
// ones that host mode refuses, checked in the callback: CLI11's needs() and
// excludes() name no reason.
struct HostModeFlags {
  std::vector<CLI::Option*> need_hosts;     // --iface, --host-index, --port, --output, --capture
  std::vector<CLI::Option*> namespace_only;  // refused with --hosts, with why
  std::vector<std::string> why_namespace_only;
  CLI::Option* ranks = nullptr;
};

void check_host_mode_flags(const HostModeFlags& f, bool host_mode) {
  for (const CLI::Option* option : f.need_hosts) {
    if (option->count() > 0 && !host_mode)
      throw InputError(option->get_name() +
                       " is a host-mode option: expected --hosts A,B with it (doc/allreduce_bench.md)");
  }
  if (!host_mode) return;
  for (size_t i = 0; i < f.namespace_only.size(); ++i) {
    if (f.namespace_only[i]->count() > 0)
      throw InputError(f.namespace_only[i]->get_name() + " with --hosts: " +
                       f.why_namespace_only[i]);
  }
}

void add_host_mode_options(CLI::App* cmd, HostBenchFlags& h, HostModeFlags& f) {
  const char* group = "Host mode (doc/allreduce_bench.md)";
  cmd->add_option("--hosts", h.hosts,
                  "Host mode: the hosts' lab addresses, A,B[,...], the first leads; run the same "
                  "command on every host. The ranks run on the hosts (one each, or --ranks in "
                  "all), through `fabriclab run --hosts`; needed by --transport roce")
      ->group(group);
  f.need_hosts.push_back(
      cmd->add_option("--iface", h.iface,
                      "Host mode: this host's lab interface (--impair goes on it; RoCE's rxe "
                      "device too) [default: the one holding this host's address]")
          ->group(group));
  f.need_hosts.push_back(cmd->add_option("--host-index", h.host_index,
                                         "Host mode: this host's place in --hosts [default: found "
                                         "from its addresses]")
                             ->check(positive_number(true))
                             ->group(group));
  f.need_hosts.push_back(cmd->add_option("--port", h.port,
                                         "Host mode: the lead's control store port; the ranks' "
                                         "rendezvous on the next one")
                             ->check(CLI::Range(1, 65000))
                             ->capture_default_str()
                             ->group(group));
  f.need_hosts.push_back(cmd->add_option("--output", h.output,
                                         "Host mode: keep the run's recording below this folder "
                                         "(run.json, metrics.jsonl, rxe's counters) [default: "
                                         "not kept]")
                             ->group(group));
  f.need_hosts.push_back(cmd->add_flag("--capture", h.capture,
                                       "Host mode: a pcap of --iface (headers only) in the run "
                                       "directory, captures/<scenario>.pcap; with --output")
                             ->group(group));
}

}  // namespace

void add_bench_allreduce_command(CLI::App& app) {
  CLI::App* bench = bench_parent(app);
  auto o = std::make_shared<runner::bench::AllreduceBenchOptions>();
  auto h = std::make_shared<HostBenchFlags>();
  auto f = std::make_shared<HostModeFlags>();
  CLI::App* cmd = bench->add_subcommand(
      "allreduce",
      "nccl-tests' all_reduce_perf over Gloo between ranks in lab namespaces, against the line "
      "rate iperf3 measures on the same lab (needs root or user namespaces, iperf3); with "
      "--hosts, between ranks on real hosts (host mode; --transport roce needs it). Columns: "
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
  f->ranks = cmd->add_option("--ranks", o->ranks,
                             "Ranks, one namespace each (2: a veth pair; more: a bridge); with "
                             "--hosts, over every host [default there: one per host]")
                 ->capture_default_str();
  cmd->add_option("--channels", o->channels,
                  "Gloo contexts (TCP connections) per rank; each buffer is split among them")
      ->capture_default_str();
  auto* segment = cmd->add_option("--segment-bytes", o->segment_bytes,
                                  "Gloo's largest send per ring step (two in flight); 0: its "
                                  "default, 1M")
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
  auto* offload = cmd->add_flag("!--no-segmentation-offload", o->segmentation_offload,
                                "MTU-sized frames on the lab links (gso_max_segs 1), as a lab "
                                "with segmentation_offload = false");
  auto* iperf = cmd->add_option("--iperf-seconds", o->iperf_seconds,
                                "Length of the iperf3 line-rate run")
                    ->check(CLI::Range(1, 60))
                    ->capture_default_str();
  cmd->add_option("--transport", o->transport,
                  "tcp: Gloo's TCP transport; roce: its ibverbs transport on a SoftRoCE (rxe) "
                  "device, host mode only (--hosts: rxe cannot send from a namespace, "
                  "doc/roce.md)")
      ->check(CLI::IsMember({"tcp", "roce"}))
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "JSON instead of the table (nccl-tests' -J keys)");
  auto* baseline = cmd->add_option("--baseline", o->baseline,
                  "pytorch: also run torch.distributed.all_reduce (Gloo, in place; python3-torch) "
                  "in the same namespaces and sizes, and print its columns and ours/pt per size")
      ->check(CLI::IsMember({"pytorch"}));
  cmd->add_option("--python", o->python, "--baseline pytorch: a python with python3-torch")
      ->capture_default_str();
  cmd->add_option("--baseline-script", o->baseline_script,
                  "--baseline pytorch: the rank script (trainer/bench/gloo_allreduce_baseline.py)")
      ->group("");  // for tests and development
  auto* wrong = cmd->add_flag("--wrong-reduction", o->wrong_reduction,
                              "Reduce with max instead of sum: #wrong must then be > 0 (a "
                              "self-test)");
  cmd->add_option("--timeout", o->timeout_s, "Seconds all sizes may take")
      ->check(CLI::Range(10, 86400))
      ->capture_default_str();
  add_host_mode_options(cmd, *h, *f);
  f->namespace_only = {segment, offload, iperf, wrong, baseline};
  f->why_namespace_only = {
      "not a parameter of the lab's allreduce workload, which host mode runs (expected it "
      "without --hosts)",
      "host mode runs on the interface as it is (expected `ip link set dev IF gso_max_segs 1` "
      "on each host instead)",
      "host mode measures no line rate: expected it without --hosts",
      "a self-test of the namespace bench: expected it without --hosts",
      "the PyTorch baseline runs in the bench's namespaces: expected it without --hosts"};
  cmd->footer(
      "Host mode: fabriclab bench allreduce --hosts A,B --iface eth0 --transport roce -b 1M -e 16M\n"
      "           (the same command on both hosts; the lead prints every rank's table)");
  cmd->callback([o, h, f] {
    const bool host_mode = !h->hosts.empty();
    check_host_mode_flags(*f, host_mode);
    int status = 0;
    if (host_mode) {
      h->ranks_given = f->ranks->count() > 0;
      status = run_allreduce_bench_on_hosts(*o, *h);
    } else {
      status = runner::bench::run_allreduce_bench(*o);
    }
    if (status != 0) throw CommandExit{status};
  });
  add_rank_command(*bench);
}

}  // namespace fabriclab::cli
