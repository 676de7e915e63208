// CLI11's own parse errors name the offending word but not what was
// expected ("Could not convert: --steps = many", "The following argument
// was not expected: 03"); every bad input must also say what would have
// been right (tests/bad_inputs). This rewrites the ones that do not.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace fabriclab::cli {

// The message to print for `error`, raised while `app` parsed: CLI11's own
// where it already says what was expected ("Value 0 not in range 1 to
// 65536"), else one that does ("--steps: expected an integer, got 'many'").
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error);

}  // namespace fabriclab::cli
