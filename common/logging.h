// Human-readable progress goes to stderr through spdlog; machine-readable
// output (metrics, JSON) goes to files or stdout, never mixed with logs.
#pragma once

#include <string>

namespace fabriclab {

// Installs a stderr logger named `name` as spdlog's default. `verbosity`:
// 0 = info, 1 = debug, 2+ = trace; negative = warnings only. Safe to call again.
void init_logging(const std::string& name, int verbosity);

}  // namespace fabriclab
