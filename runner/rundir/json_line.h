// Where a member of a JSON document is, as a line number for messages:
// nlohmann::json keeps no positions, so run.json's errors would all say
// line 1. `text` must be valid JSON (it was parsed already).
//
//   json_line_of(text, {"scenarios", "2", "status"})  // line of that key
//
// Path elements are object keys (as written, without escapes) or array
// indices in decimal. Returns the line (1-based) of the deepest element of
// the path that exists, so a missing key points at the object that lacks it.
// Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace fabriclab::runner::rundir {

long json_line_of(const std::string& text, const std::vector<std::string>& path);

}  // namespace fabriclab::runner::rundir
