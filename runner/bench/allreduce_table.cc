#include "runner/bench/allreduce_table.h"

#include <fmt/format.h>

namespace fabriclab::runner::bench {
namespace {

// nccl-tests' getFloatStr(): two decimals if they fit the width, then fewer,
// then exponent notation, so a column never widens.
std::string fit(double value, int width) {
  for (const char* spec : {"{:{}.2f}", "{:{}.1f}", "{:{}.0f}"}) {
    std::string s = fmt::format(fmt::runtime(spec), value, width);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return fmt::format(width >= 7 ? "{:{}.1e}" : "{:{}.0e}", value, width);
}

double line_gb_per_s(const LineRate& line) { return line.gbit_per_s / 8.0; }

std::string place_columns(const AllreduceRow& row, const AllreducePlace& place, int ranks) {
  const std::string wrong =
      place.wrong < 0 ? "   N/A" : fmt::format("{:6g}", static_cast<double>(place.wrong));
  return fmt::format("  {:>7}  {:>6}  {:>6}  {}", fit(place.time_us, 7),
                     fit(algbw_gb_per_s(row.size_bytes, place.time_us), 6),
                     fit(busbw_gb_per_s(row.size_bytes, place.time_us, ranks), 6), wrong);
}

bool line_measured(const LineRate& line) { return line.unmeasured.empty(); }

std::string over_line_column(const AllreduceReport& r, double ratio) {
  return line_measured(r.line) ? fit(ratio, 6) : "   N/A";
}

double over_line(const AllreduceReport& r, const AllreduceRow& row, const AllreducePlace& place) {
  const double line = line_gb_per_s(r.line);
  return line > 0 ? busbw_gb_per_s(row.size_bytes, place.time_us, r.ranks) / line : 0;
}

nlohmann::json place_json(const AllreduceReport& r, const AllreduceRow& row,
                          const AllreducePlace& place) {
  return {{"time", place.time_us},
          {"alg_bw", algbw_gb_per_s(row.size_bytes, place.time_us)},
          {"bus_bw", busbw_gb_per_s(row.size_bytes, place.time_us, r.ranks)},
          {"nwrong", place.wrong < 0 ? nlohmann::json(nullptr) : nlohmann::json(place.wrong)},
          {"bus_bw_over_line", line_measured(r.line) ? nlohmann::json(over_line(r, row, place))
                                                     : nlohmann::json(nullptr)}};
}

}  // namespace

double algbw_gb_per_s(int64_t size_bytes, double time_us) {
  return time_us > 0 ? static_cast<double>(size_bytes) / 1e3 / time_us : 0;
}

double busbw_gb_per_s(int64_t size_bytes, double time_us, int ranks) {
  return algbw_gb_per_s(size_bytes, time_us) * 2.0 * (ranks - 1) / ranks;
}

double average_busbw(const AllreduceReport& report) {
  double sum = 0;
  int n = 0;
  for (const AllreduceRow& row : report.rows) {
    for (const AllreducePlace* p : {&row.out_of_place, &row.in_place}) {
      sum += busbw_gb_per_s(row.size_bytes, p->time_us, report.ranks);
      ++n;
    }
  }
  return n ? sum / n : 0;
}

int64_t total_wrong(const AllreduceReport& report) {
  int64_t wrong = 0;
  for (const AllreduceRow& row : report.rows)
    for (const AllreducePlace* p : {&row.out_of_place, &row.in_place})
      wrong += std::max<int64_t>(p->wrong, 0);
  return wrong;
}

int64_t pytorch_wrong(const AllreduceReport& report) {
  int64_t wrong = 0;
  for (const AllreduceRow& row : report.rows)
    if (row.pytorch) wrong += std::max<int64_t>(row.pytorch->wrong, 0);
  return wrong;
}

double ours_over_pytorch(const AllreduceRow& row) {
  if (!row.pytorch || row.pytorch->time_us <= 0 || row.in_place.time_us <= 0) return 0;
  return row.pytorch->time_us / row.in_place.time_us;
}

std::string format_allreduce_table(const AllreduceReport& r) {
  std::string out;
  out += fmt::format("# fabriclab bench allreduce: {} ranks, {}{}\n", r.ranks, r.transport,
                     r.impairment.empty() ? ", clean link" : ", impaired: " + r.impairment);
  if (r.where.empty())
    out += fmt::format("# lab: run {} (namespaces fl-{}-r0...)\n", r.run_id, r.run_id);
  else
    out += fmt::format("# lab: run {} ({})\n", r.run_id, r.where);
  for (const std::string& note : r.notes) out += "# " + note + "\n";
  if (line_measured(r.line)) {
    out += fmt::format("# line rate: {:.3f} Gbit/s = {:.3f} GB/s ({})\n", r.line.gbit_per_s,
                       line_gb_per_s(r.line), r.line.measured_how);
    out += fmt::format("#   both ways at once (iperf3 --bidir): {:.3f} Gbit/s each way\n",
                       r.line.bidir_gbit_per_s);
  } else {
    out += fmt::format("# line rate: not measured ({})\n", r.line.unmeasured);
  }
  if (!r.pytorch.empty())
    out += fmt::format(
        "# baseline: {} in the same namespaces, sizes and iterations; ours/pt = its time / "
        "fabriclab's in-place time\n",
        r.pytorch);
  out += "#\n";
  const bool baseline = !r.pytorch.empty();
  // The column headers exactly as nccl-tests' writeResultHeader() lays them
  // out, then this benchmark's own two columns.
  out += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                "
      "       in-place           busbw/line{}\n",
      "", "", "", "", "",
      baseline ? "             pytorch gloo, in-place" : "");
  out += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  "
      "{:>6}  {:>6}  {:>6}{}\n",
      "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
      "busbw", "#wrong", "oop", "ip",
      baseline ? fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}", "time", "algbw", "busbw",
                             "#wrong", "ours/pt")
               : "");
  out += fmt::format(
      "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  "
      "{:>6}  {:>6}  {:>6}{}\n",
      "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
      "", "", "",
      baseline ? fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}", "(us)", "(GB/s)", "(GB/s)",
                             "", "(x)")
               : "");
  for (const AllreduceRow& row : r.rows) {
    out += fmt::format("{:12}  {:12}  {:>8}  {:>6}  {:6}", row.size_bytes, row.count, "float",
                       "sum", -1);
    out += place_columns(row, row.out_of_place, r.ranks);
    out += place_columns(row, row.in_place, r.ranks);
    out += fmt::format("  {:>6}  {:>6}", over_line_column(r, over_line(r, row, row.out_of_place)),
                       over_line_column(r, over_line(r, row, row.in_place)));
    if (baseline && row.pytorch)
      out += place_columns(row, *row.pytorch, r.ranks) +
             fmt::format("  {:>7}", fit(ours_over_pytorch(row), 7));
    out += "\n";
  }
  const int64_t wrong = total_wrong(r);
  out += fmt::format("# {:<20} : {} {}\n", "Out of bounds values", wrong, wrong ? "FAILED" : "OK");
  if (baseline) {
    const int64_t pt_wrong = pytorch_wrong(r);
    out += fmt::format("# {:<20} : {} {}\n", "PyTorch out of bounds", pt_wrong,
                       pt_wrong ? "FAILED" : "OK");
  }
  out += fmt::format("# {:<20} : {:g} \n", "Avg bus bandwidth", average_busbw(r));
  out += "#\n";
  return out;
}

nlohmann::json allreduce_report_json(const AllreduceReport& r) {
  nlohmann::json results = nlohmann::json::array();
  for (const AllreduceRow& row : r.rows) {
    nlohmann::json result = {{"size", row.size_bytes},
                             {"count", row.count},
                             {"type", "float"},
                             {"redop", "sum"},
                             {"root", -1},
                             {"out_of_place", place_json(r, row, row.out_of_place)},
                             {"in_place", place_json(r, row, row.in_place)}};
    if (row.pytorch) {
      result["pytorch"] = place_json(r, row, *row.pytorch);
      result["ours_over_pytorch"] = ours_over_pytorch(row);
    }
    results.push_back(std::move(result));
  }
  nlohmann::json report = {{"run_id", r.run_id},
                           {"ranks", r.ranks},
                           {"transport", r.transport},
                           {"impairment", r.impairment},
                           {"line_rate",
                            {{"gbit_per_s", r.line.gbit_per_s},
                             {"bidir_gbit_per_s", r.line.bidir_gbit_per_s},
                             {"measured_how", r.line.measured_how}}},
                           {"results", results},
                           {"out_of_bounds", total_wrong(r)},
                           {"avg_bus_bw", average_busbw(r)}};
  if (!line_measured(r.line)) report["line_rate"] = {{"not_measured", r.line.unmeasured}};
  if (!r.where.empty()) report["where"] = r.where;
  if (!r.notes.empty()) report["notes"] = r.notes;
  if (!r.pytorch.empty()) {
    report["pytorch"] = r.pytorch;
    report["pytorch_out_of_bounds"] = pytorch_wrong(r);
  }
  return report;
}

}  // namespace fabriclab::runner::bench
