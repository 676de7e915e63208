// Run ids: short random names that make every object of a run unique on the
// machine (namespace "fl-<id>-r0", ledger "<id>.json"), so concurrent runs
// and leftovers of killed runs never collide.
#pragma once

#include <string>

namespace fabriclab::runner {

// 6 lowercase hex digits from std::random_device, e.g. "3fa2c1".
std::string make_run_id();

// True if `id` is 1-8 characters of [a-z0-9] (keeps derived names short
// enough for every kernel limit).
bool is_valid_run_id(const std::string& id);

}  // namespace fabriclab::runner
