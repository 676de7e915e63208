// Reads a TOML file with toml++; a syntax error becomes InputError
// "path:line: what toml++ says" (exit 2), the form every lab and answers
// file error takes.
#pragma once

#include <toml++/toml.h>

#include <filesystem>
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
                         std::string(e.description()));
  }
}

}  // namespace fabriclab::runner
