// Reads a TOML file with toml++; a syntax error becomes InputError
// "path:line: not valid TOML: what toml++ says" (exit 2), the form every lab and answers
// file error takes.
#pragma once

#include <toml++/toml.h>

#include <filesystem>
#include <optional>
#include <string>

#include "common/input_error.h"

namespace fabriclab::runner {

inline toml::table parse_toml_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw InputError(path + ": is a directory (expected a TOML file)");
  try {
    return toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw input_error_at(path, static_cast<long>(e.source().begin.line),
                         "not valid TOML: " + std::string(e.description()));
  }
}

// The line a TOML node starts on: what an error about it names.
inline long line_of(const toml::node& node) { return static_cast<long>(node.source().begin.line); }

// A TOML number as a double: a float as it is, an integer converted (the
// nearest double). toml++'s own value<double>() refuses an integer that has
// no exact double (2^53 + 1), which would leave a caller's .value() to throw
// std::bad_optional_access. nullopt for anything that is not a number.
inline std::optional<double> toml_number(const toml::node& node) {
  if (const auto* integer = node.as_integer()) return static_cast<double>(integer->get());
  if (const auto* floating = node.as_floating_point()) return floating->get();
  return std::nullopt;
}

}  // namespace fabriclab::runner
