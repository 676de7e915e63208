// The table `fabriclab bench allreduce` prints (runner/bench/allreduce_table.h):
// nccl-tests' all_reduce_perf columns and footer, nccl-tests' algbw/busbw,
// and the #wrong count of the data check (allreduce_check.h) -- 0 for a
// correct sum, > 0 for a wrong reduction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "common/input_error.h"
#include "runner/bench/allreduce_bench.h"
#include "runner/bench/allreduce_check.h"
#include "runner/bench/allreduce_table.h"

namespace fabriclab::runner::bench {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

AllreduceReport two_rows(int ranks) {
  AllreduceReport r;
  r.ranks = ranks;
  r.transport = "gloo tcp, 1 channel(s) per rank";
  r.line = {8.0, 6.0, "iperf3", ""};  // 8 Gbit/s = 1 GB/s; measured
  r.rows.push_back({1 << 20, 1 << 18, {1000.0, 0}, {2000.0, 0}, std::nullopt});
  r.rows.push_back({16 << 20, 4 << 20, {20000.0, 0}, {16777.216, 3}, std::nullopt});
  return r;
}

TEST(AllreduceTable, BandwidthsAsNcclTestsDefinesThem) {
  // 16 MiB in 16,777.216 us = 1.0 GB/s algbw; x 2(n-1)/n.
  EXPECT_DOUBLE_EQ(algbw_gb_per_s(16 << 20, 16777.216), 1.0);
  EXPECT_DOUBLE_EQ(busbw_gb_per_s(16 << 20, 16777.216, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_gb_per_s(16 << 20, 16777.216, 4), 1.5);
  EXPECT_DOUBLE_EQ(busbw_gb_per_s(16 << 20, 16777.216, 8), 1.75);
}

TEST(AllreduceTable, ColumnHeadersAreNcclTests) {
  const std::vector<std::string> lines = lines_of(format_allreduce_table(two_rows(2)));
  auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("size") != std::string::npos && l.find("redop") != std::string::npos;
  });
  ASSERT_NE(header, lines.end());
  // nccl-tests' writeResultHeader(): the same words in the same order, then ours.
  EXPECT_EQ(words_of(*header),
            (std::vector<std::string>{"#", "size", "count", "type", "redop", "root", "time",
                                      "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
                                      "#wrong", "oop", "ip"}));
  // nccl-tests' own format string (src/util.cu, writeResultHeader()).
  char expected[256];
  std::snprintf(expected, sizeof expected,
                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s", "size",
                "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
                "algbw", "busbw", "#wrong");
  EXPECT_EQ(header->rfind(expected, 0), 0u) << *header << "\n" << expected;
  EXPECT_NE((header - 1)->find("out-of-place"), std::string::npos);
  EXPECT_NE((header - 1)->find("in-place"), std::string::npos);
  EXPECT_EQ(words_of(*(header + 1)).at(1), "(B)");
}

TEST(AllreduceTable, RowsHaveNcclTestsFieldsAndWidths) {
  const std::string text = format_allreduce_table(two_rows(2));
  const std::vector<std::string> lines = lines_of(text);
  auto row = std::find_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.rfind("    16777216", 0) == 0; });
  ASSERT_NE(row, lines.end()) << text;
  // nccl-tests' "%12li  %12li  %8s  %6s  %6s", then per place "  %7s  %6s  %6s  %6g".
  char expected[256];
  std::snprintf(expected, sizeof expected, "%12li  %12li  %8s  %6s  %6i  %7s  %6s  %6s  %6g",
                16777216L, 4194304L, "float", "sum", -1, "20000.0", "0.84", "0.84", 0.0);
  EXPECT_EQ(row->rfind(expected, 0), 0u) << *row << "\n" << expected;
  const std::vector<std::string> w = words_of(*row);
  ASSERT_EQ(w.size(), 15u) << *row;
  EXPECT_EQ(w[5], "20000.0");  // time (us) in 7 characters: one decimal left
  EXPECT_EQ(w[6], "0.84");     // algbw GB/s
  EXPECT_EQ(w[7], "0.84");     // busbw = algbw for 2 ranks
  EXPECT_EQ(w[8], "0");        // #wrong
  EXPECT_EQ(w[10], "1.00");
  EXPECT_EQ(w[12], "3");
  EXPECT_EQ(w[13], "0.84");  // busbw / line rate (1 GB/s)
  EXPECT_EQ(w[14], "1.00");
  // The line rate is printed above the table, the footer below it.
  EXPECT_NE(text.find("# line rate: 8.000 Gbit/s = 1.000 GB/s"), std::string::npos);
  EXPECT_NE(text.find("# Out of bounds values : 3 FAILED"), std::string::npos);
  EXPECT_NE(text.find("# Avg bus bandwidth    : "), std::string::npos);
}

TEST(AllreduceTable, NotCheckedIsNA) {
  AllreduceReport r = two_rows(2);
  for (AllreduceRow& row : r.rows) row.out_of_place.wrong = row.in_place.wrong = -1;
  const std::string text = format_allreduce_table(r);
  EXPECT_NE(text.find("    N/A"), std::string::npos);
  EXPECT_NE(text.find("# Out of bounds values : 0 OK"), std::string::npos);
}

TEST(AllreduceTable, AverageAndJson) {
  const AllreduceReport r = two_rows(4);
  double sum = 0;
  for (const AllreduceRow& row : r.rows)
    sum += busbw_gb_per_s(row.size_bytes, row.out_of_place.time_us, 4) +
           busbw_gb_per_s(row.size_bytes, row.in_place.time_us, 4);
  EXPECT_DOUBLE_EQ(average_busbw(r), sum / 4);
  const nlohmann::json j = allreduce_report_json(r);
  EXPECT_EQ(j.at("results").size(), 2u);
  const nlohmann::json& row = j.at("results").at(1);
  EXPECT_EQ(row.at("size"), 16 << 20);
  EXPECT_EQ(row.at("redop"), "sum");
  EXPECT_DOUBLE_EQ(row.at("in_place").at("bus_bw").get<double>(), 1.5);
  EXPECT_EQ(row.at("in_place").at("nwrong"), 3);
  EXPECT_DOUBLE_EQ(row.at("in_place").at("bus_bw_over_line").get<double>(), 1.5);
  EXPECT_EQ(j.at("out_of_bounds"), 3);
  EXPECT_DOUBLE_EQ(j.at("line_rate").at("gbit_per_s").get<double>(), 8.0);
}

// --baseline pytorch: five more columns per row (PyTorch's time, algbw,
// busbw, #wrong, ours/pt = its time / our in-place time), the same in JSON,
// and its #wrong in a footer line of its own.
TEST(AllreduceTable, PytorchBaselineColumnsAndRatio) {
  AllreduceReport r = two_rows(2);
  r.pytorch = "PyTorch 1.13.1 torch.distributed.all_reduce (gloo, in place)";
  r.rows[0].pytorch = AllreducePlace{3000.0, 0};   // ours in place 2000 us: 1.5x
  r.rows[1].pytorch = AllreducePlace{8388.608, 2};  // ours 16777.216 us: 0.5x
  EXPECT_DOUBLE_EQ(ours_over_pytorch(r.rows[0]), 1.5);
  EXPECT_DOUBLE_EQ(ours_over_pytorch(r.rows[1]), 0.5);
  EXPECT_EQ(pytorch_wrong(r), 2);
  EXPECT_EQ(ours_over_pytorch(two_rows(2).rows[0]), 0.0) << "no baseline, no ratio";

  const std::string text = format_allreduce_table(r);
  const std::vector<std::string> lines = lines_of(text);
  auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("size") != std::string::npos && l.find("redop") != std::string::npos;
  });
  ASSERT_NE(header, lines.end()) << text;
  const std::vector<std::string> h = words_of(*header);
  ASSERT_EQ(h.size(), 21u) << *header;
  EXPECT_EQ(std::vector<std::string>(h.end() - 5, h.end()),
            (std::vector<std::string>{"time", "algbw", "busbw", "#wrong", "ours/pt"}));
  EXPECT_NE((header - 1)->find("pytorch gloo, in-place"), std::string::npos) << *(header - 1);
  auto row = std::find_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.rfind("    16777216", 0) == 0; });
  ASSERT_NE(row, lines.end()) << text;
  const std::vector<std::string> w = words_of(*row);
  ASSERT_EQ(w.size(), 20u) << *row;
  EXPECT_EQ(w[15], "8388.61");  // PyTorch's time (us)
  EXPECT_EQ(w[16], "2.00");     // its algbw: 16 MiB in 8.39 ms
  EXPECT_EQ(w[18], "2");        // its #wrong
  EXPECT_EQ(w[19], "0.50");     // ours/pt
  EXPECT_NE(text.find("# baseline: PyTorch 1.13.1"), std::string::npos) << text;
  EXPECT_NE(text.find("# PyTorch out of bounds : 2 FAILED"), std::string::npos) << text;

  const nlohmann::json j = allreduce_report_json(r);
  EXPECT_EQ(j.at("pytorch_out_of_bounds"), 2);
  const nlohmann::json& first = j.at("results").at(0);
  EXPECT_DOUBLE_EQ(first.at("pytorch").at("time").get<double>(), 3000.0);
  EXPECT_EQ(first.at("pytorch").at("nwrong"), 0);
  EXPECT_DOUBLE_EQ(first.at("ours_over_pytorch").get<double>(), 1.5);
  EXPECT_FALSE(allreduce_report_json(two_rows(2)).at("results").at(0).contains("pytorch"));
}

// Sums every rank's pattern with `reduce`, as an allreduce would.
std::vector<float> reduced(size_t count, int ranks, float (*reduce)(float, float)) {
  std::vector<float> result(count), input(count);
  fill_allreduce_input(result.data(), count, 0);
  for (int r = 1; r < ranks; ++r) {
    fill_allreduce_input(input.data(), count, r);
    for (size_t i = 0; i < count; ++i) result[i] = reduce(result[i], input[i]);
  }
  return result;
}

TEST(AllreduceCheck, ACorrectSumHasNoWrongElements) {
  for (int ranks : {2, 3, 4, 16}) {
    const auto sum = reduced(100000, ranks, [](float a, float b) { return a + b; });
    EXPECT_EQ(count_wrong_elements(sum.data(), sum.size(), ranks), 0) << ranks << " ranks";
  }
}

TEST(AllreduceCheck, AWrongReductionIsCounted) {
  const size_t n = 100000;
  // max instead of sum (what --wrong-reduction makes the ranks do): every element.
  const auto max = reduced(n, 4, [](float a, float b) { return std::max(a, b); });
  EXPECT_EQ(count_wrong_elements(max.data(), n, 4), static_cast<int64_t>(n));
  // One rank missing from the sum: every element.
  auto sum3 = reduced(n, 3, [](float a, float b) { return a + b; });
  EXPECT_EQ(count_wrong_elements(sum3.data(), n, 4), static_cast<int64_t>(n));
  // A segment of 1 MiB written one segment too far: all of it (251 is prime).
  auto sum = reduced(n, 2, [](float a, float b) { return a + b; });
  std::vector<float> shifted = reduced(3 * 262144, 2, [](float a, float b) { return a + b; });
  std::copy(shifted.begin(), shifted.begin() + 262144, shifted.begin() + 262144);
  EXPECT_EQ(count_wrong_elements(shifted.data(), shifted.size(), 2), 262144);
  // Two elements off.
  sum[7] += 1;
  sum[n - 1] = 0;
  EXPECT_EQ(count_wrong_elements(sum.data(), n, 2), 2);
}

TEST(AllreduceBenchOptions, SizesAsNcclTests) {
  EXPECT_EQ(allreduce_sizes(1 << 20, 8 << 20, 2),
            (std::vector<int64_t>{1 << 20, 2 << 20, 4 << 20, 8 << 20}));
  EXPECT_EQ(allreduce_sizes(6, 100, 4), (std::vector<int64_t>{4, 24, 96}));  // whole floats
  EXPECT_EQ(allreduce_sizes(1, 1, 2), (std::vector<int64_t>{4}));
}

TEST(AllreduceBenchOptions, LinkWords) {
  EXPECT_EQ(parse_link_words({"all"}, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse_link_words({"r2", "r0", "r2"}, 4), (std::vector<int>{0, 2}));
  try {
    parse_link_words({"r4"}, 4);
    FAIL() << "r4 accepted for 4 ranks";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--links: 'r4'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fabriclab::runner::bench
