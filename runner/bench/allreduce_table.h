// The table `fabriclab bench allreduce` prints: nccl-tests' all_reduce_perf
// layout (columns and footer as its src/util.cu writes them), with the line
// rate measured by iperf3 above it and busbw / line rate added per row. The
// definitions (time, algbw, busbw, #wrong, line rate) are written once, in
// doc/allreduce_bench.md; this file only computes and prints them.
//
// Units: sizes in bytes, times in microseconds, bandwidths in GB/s
// (10^9 bytes per second, as nccl-tests), the line rate also in Gbit/s.
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner::bench {

// One place (out-of-place or in-place) of one size, over all ranks.
struct AllreducePlace {
  double time_us = 0;  // mean over ranks of each rank's mean time per iteration
  int64_t wrong = -1;  // elements wrong, summed over ranks; -1 = not checked (-c 0)
};

struct AllreduceRow {
  int64_t size_bytes = 0;
  int64_t count = 0;  // fp32 elements
  AllreducePlace out_of_place;
  AllreducePlace in_place;
  // `--baseline pytorch`: torch.distributed.all_reduce (Gloo, in place) at
  // the same size, timed and checked the same way (pytorch_baseline.h).
  std::optional<AllreducePlace> pytorch;
};

// The line the busbw is set against: iperf3's TCP rate on the same lab.
struct LineRate {
  double gbit_per_s = 0;        // iperf3, one flow, rank 0 -> rank 1 (bits received / s)
  double bidir_gbit_per_s = 0;  // iperf3 --bidir, mean of the two directions (context only)
  std::string measured_how;     // e.g. "iperf3 -t 3, fl-ab12cd-r0 -> 10.77.0.2"
  // Why there is none ("" = measured): `bench allreduce --hosts` runs no
  // iperf3. The table then says so and its busbw/line columns are N/A.
  std::string unmeasured;
};

struct AllreduceReport {
  std::string run_id;  // its namespaces are fl-<run_id>-r0... (gone when the bench ends)
  int ranks = 2;
  std::string transport;   // e.g. "gloo tcp, 1 channel(s)"
  std::string impairment;  // "" for a clean link, else "rate 1gbit on r0, r1"
  // Where the ranks ran, for the second header line: "" = the namespaces
  // fl-<run_id>-r0...; host mode: e.g. "host mode, hosts 10.99.0.1, 10.99.0.2 on eth0".
  std::string where;
  // More header lines, each printed after "# " (host mode: the recording,
  // rxe's counters, whose ranks a follower's table holds).
  std::vector<std::string> notes;
  LineRate line;
  // "" without a baseline; else what ran it, e.g. "PyTorch 1.13.1
  // torch.distributed.all_reduce, gloo, in place" (every row then has `pytorch`).
  std::string pytorch;
  std::vector<AllreduceRow> rows;
};

// nccl-tests' definitions (doc/allreduce_bench.md): algbw = size / time,
// busbw = algbw x 2(n-1)/n, both in GB/s.
double algbw_gb_per_s(int64_t size_bytes, double time_us);
double busbw_gb_per_s(int64_t size_bytes, double time_us, int ranks);

// nccl-tests' "Avg bus bandwidth": the mean busbw over every row, both places.
double average_busbw(const AllreduceReport& report);
// Total #wrong over every row and place (nccl-tests' "Out of bounds values"
// counts rows with errors; this counts elements, its #wrong column's unit).
int64_t total_wrong(const AllreduceReport& report);
// The same over the PyTorch baseline's rows (0 without one).
int64_t pytorch_wrong(const AllreduceReport& report);

// How many times faster fabriclab's in-place allreduce is than PyTorch's at
// this row: PyTorch's time / fabriclab's in-place time (= the ratio of their
// busbw). 0 when the row has no baseline or a time is not positive.
double ours_over_pytorch(const AllreduceRow& row);

// The whole text: header lines (#), the line rate, the column headers, one
// line per row, the footer. With a baseline, each row also has PyTorch's
// time, algbw, busbw, #wrong and ours/pt (ours_over_pytorch).
std::string format_allreduce_table(const AllreduceReport& report);
// The same as JSON (nccl-tests' -J keys where it has them: size, count, type,
// redop, root, out_of_place/in_place {time, alg_bw, bus_bw, nwrong}), plus
// bus_bw_over_line and the line rate; with a baseline, per row `pytorch`
// {time, alg_bw, bus_bw, nwrong} and `ours_over_pytorch`.
nlohmann::json allreduce_report_json(const AllreduceReport& report);

}  // namespace fabriclab::runner::bench
