#include "runner/cli/bench_parent.h"

namespace fabriclab::cli {

CLI::App* bench_parent(CLI::App& app) {
  auto found = app.get_subcommands([](CLI::App* sub) { return sub->get_name() == "bench"; });
  if (!found.empty()) return found.front();
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks (they print figures; not tests)");
  bench->require_subcommand(1);
  return bench;
}

}  // namespace fabriclab::cli
