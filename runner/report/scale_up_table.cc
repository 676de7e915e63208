#include "runner/report/scale_up_table.h"

#include <spdlog/fmt/fmt.h>

#include "common/sync_time.h"
#include "runner/report/wire_bytes_table.h"

namespace fabriclab::runner::report {
namespace {

struct Model {
  const char* name;
  double params;
};
// The curriculum's models.
constexpr Model kModels[] = {{"7B", 7e9}, {"70B", 70e9}, {"175B", 175e9}, {"405B", 405e9}};
constexpr double kLinkGbps[] = {100, 400, 800};
constexpr int kNics[] = {1, 8};
// A step's budget, from the curriculum: a sync must fit in 2-5 s.
constexpr double kTightBudgetS = 2;
constexpr double kLooseBudgetS = 5;

std::string seconds_cell(double seconds) {
  const char* mark = seconds > kLooseBudgetS ? "**" : seconds > kTightBudgetS ? "* " : "  ";
  return fmt::format(seconds < 10 ? "{:.2f}{}" : "{:.1f}{}", seconds, mark);
}

}  // namespace

const ScenarioSummary* scale_up_basis(const std::vector<ScenarioSummary>& summaries) {
  const ScenarioSummary* basis = nullptr;
  for (const ScenarioSummary& s : summaries) {
    const WireBytes& w = s.wire;
    if (!w.wire_bytes_per_param || !w.world_size || !w.params) continue;
    if (!basis || *w.world_size > *basis->wire.world_size ||
        (*w.world_size == *basis->wire.world_size && *w.params > *basis->wire.params)) {
      basis = &s;
    }
  }
  return basis;
}

std::string format_scale_up_table(const std::vector<ScenarioSummary>& summaries) {
  const ScenarioSummary* basis = scale_up_basis(summaries);
  if (!basis) return "";
  const WireBytes& w = basis->wire;
  const double per_param = *w.wire_bytes_per_param;
  const double n = *w.world_size;

  std::string out = fmt::format(
      "Scaled up from your run: scenario {} sent {:.2f} bytes per fp32 parameter per step\n"
      "(4 bytes x 2(N-1)/N = {:.2f} at N = {:.0f}, x {:.3f} for the protocol's overhead).\n\n",
      basis->name, per_param, 4 * 2 * (n - 1) / n, n, 1 + w.wire_overhead.value_or(0));
  out += fmt::format("{:<6} {:<5} {:>9} {:>10}", "model", "dtype", "gradient", "sent/rank");
  for (int nics : kNics)
    for (double gbps : kLinkGbps) out += fmt::format(" {:>9}", fmt::format("{}x{:.0f}G", nics, gbps));
  out += "\n" + std::string(6 + 1 + 5 + 1 + 9 + 1 + 10 + 6 * 10, '-') + "\n";
  for (const Model& model : kModels) {
    for (const char* dtype : {"fp32", "bf16"}) {
      const double ratio = bytes_per_value_ratio(dtype);
      out += fmt::format("{:<6} {:<5} {:>9} {:>10}", model.name, dtype,
                         format_bytes(model.params * 4 * ratio),
                         format_bytes(model.params * per_param * ratio));
      for (int nics : kNics) {
        for (double gbps : kLinkGbps) {
          out += fmt::format(" {:>9}",
                             seconds_cell(sync_seconds(model.params, per_param, dtype, gbps, nics)));
        }
      }
      out += "\n";
    }
  }
  out += fmt::format(
      "\nSeconds per sync: sent/rank over NICs x Gb/s.  * over {:.0f} s, ** over {:.0f} s: the\n"
      "sync alone outlasts the {:.0f}-{:.0f} s a training step may take -- the inversion.\n"
      "The curriculum counts the gradient once (175B fp32: 700 GB / 50 GB/s = 14 s over one\n"
      "400G NIC); a ring of N ranks sends 2(N-1)/N of it from every rank, plus headers.\n",
      kTightBudgetS, kLooseBudgetS, kTightBudgetS, kLooseBudgetS);
  return out;
}

}  // namespace fabriclab::runner::report
