// Delay distribution tables (normal, pareto, paretonormal), read the way tc
// reads them: from NAME.dist files that iproute2 installs, at run time.
//
// Search order: $TC_LIB_DIR (tc's own override), then the directories
// distributions install them to: /usr/lib/x86_64-linux-gnu/tc (Debian,
// multiarch), /usr/lib/tc, /usr/lib64/tc, /usr/share/tc.
//
// Errors: std::runtime_error naming the file looked for and the remedy
// (install iproute2). Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netem/spec.h"

namespace fabriclab::netem::netlink {

// The table for `d` (kNormal, kPareto, kParetoNormal). kNone/kUniform: empty.
std::vector<int16_t> load_distribution(Distribution d);

// The file load_distribution() reads for `name` ("normal"), or "" if none.
std::string find_distribution_file(const std::string& name);

}  // namespace fabriclab::netem::netlink
