// Reading iputils `ping` output, for the benchmarks and tests that measure
// an impaired link with the real client.
#pragma once

#include <string>
#include <vector>

namespace fabriclab {

// Per-packet round trips (ms), in order, from ping's "time=X ms" lines.
std::vector<double> ping_rtts_ms(const std::string& output);

}  // namespace fabriclab
