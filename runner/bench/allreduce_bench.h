// The engine of `fabriclab bench allreduce`: nccl-tests' all_reduce_perf for
// fabriclab -- the allreduce alone, over Gloo's TCP transport, between ranks
// in the lab namespaces, with the line rate of the same lab measured by
// iperf3 printed above the table (allreduce_table.h; every column is defined
// in doc/allreduce_bench.md).
//
// What it does, in order: enters a user namespace when not root
// (runner/topology/user_namespace.h); builds a lab of `ranks` namespaces
// (runner/topology: a veth pair for 2 ranks, a bridge for more); applies
// `impair` (tc-netem words, `rate` included) on `links` through the chosen
// impairment backend, where the runner would put it for a lab; measures
// iperf3 TCP from rank 0 to rank 1 for `iperf_seconds`; launches one
// `fabriclab bench allreduce-rank` per namespace (allreduce_rank.h), waits
// for all; with `baseline` "pytorch", then launches one rank of PyTorch's own
// Gloo allreduce per namespace (pytorch_baseline.h) at the same sizes; and
// prints the table (or JSON).
//
// A benchmark, not a test: nothing fails for a low figure; the exit status
// is 1 only when #wrong > 0 (as nccl-tests exits non-zero on errors; the
// baseline's #wrong counts too).
// Errors: InputError for bad options, and for --baseline pytorch without a
// python that imports torch.distributed with Gloo (checked before the lab is
// built); std::runtime_error when a rank fails
// (with the end of its output), when the ranks overrun `timeout_s`, or when
// iperf3 gives no result. Everything it creates -- namespaces, the
// impairment, the rank and iperf3 processes, a temporary folder -- is
// removed on every exit path; the ledger covers a SIGKILL (`fabriclab
// cleanup`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::runner::bench {

struct AllreduceBenchOptions {
  int64_t min_bytes = 1 << 20;   // -b, --minbytes
  int64_t max_bytes = 64 << 20;  // -e, --maxbytes
  int64_t step_factor = 2;       // -f, --stepfactor
  int iters = 20;                // -n, --iters
  int warmup = 5;                // -w, --warmup_iters
  int check = 1;                 // -c, --check: 0 = no #wrong
  int ranks = 2;
  // Gloo contexts per rank (allreduce_rank.h). Two by default: while one
  // ring waits for a reduction or a descheduled rank, the other keeps the
  // link busy (4 ranks, rate 1gbit, a loaded 2-core machine: busbw/line
  // 0.61-0.86 with one, 0.79-0.93 with two; README, Benchmarks).
  int channels = 2;
  int64_t segment_bytes = 0;                 // Gloo's segment size; 0 = its default (1 MiB)
  std::string algorithm = "ring";            // common/allreduce_algorithms.h
  std::string impair;                        // tc-netem words; "" = clean
  std::vector<std::string> links = {"all"};  // "all" or "r0", "r1", ...
  std::string backend = "auto";              // netem | userspace | auto
  bool segmentation_offload = true;
  int iperf_seconds = 3;
  // "roce" only with --hosts (runner/cli/bench_allreduce_hosts.h): here the
  // ranks live in network namespaces, and rxe cannot send from one on
  // Debian's 6.1 (doc/roce.md, section 2).
  std::string transport = "tcp";
  bool json = false;
  // "" = none; "pytorch": torch.distributed.all_reduce (Gloo) in the same
  // namespaces after fabriclab's ranks, its columns and ours/pt in the table.
  std::string baseline;
  std::string python = "/usr/bin/python3";  // Debian's, where python3-torch lives
  std::string baseline_script;              // "" = trainer/bench/gloo_allreduce_baseline.py
  bool wrong_reduction = false;  // the ranks reduce with max instead of sum (tests)
  int timeout_s = 600;
  std::string program = "/proc/self/exe";  // the fabriclab whose allreduce-rank runs
};

// nccl-tests' sizes: from min, multiplied by the factor while <= max, each
// rounded down to whole fp32 elements (at least one).
std::vector<int64_t> allreduce_sizes(int64_t min_bytes, int64_t max_bytes, int64_t step_factor);

// The checks the namespace bench and the host-mode one (--hosts) share:
// sizes, iterations, transport word, channels, algorithm, segment bytes and
// the --impair words. InputError naming the flag.
void check_allreduce_options(const AllreduceBenchOptions& options);

// "all" / "rN" words -> sorted rank numbers; InputError naming --links.
std::vector<int> parse_link_words(const std::vector<std::string>& words, int ranks);

// Runs the benchmark, prints its table (or JSON) to stdout and returns the
// process exit status: 0, or 1 when #wrong > 0.
int run_allreduce_bench(const AllreduceBenchOptions& options);

}  // namespace fabriclab::runner::bench
