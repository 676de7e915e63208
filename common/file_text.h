// A whole file as text, for the many small files the runner reads back
// (iperf3's JSON, gnuplot's output, /proc files). Best effort by design:
// callers that must tell "missing" from "empty" use the optional form; the
// run directory's readers, which owe the user a file:line, have their own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fabriclab {

// The file's bytes, or nullopt when it cannot be opened.
std::optional<std::string> try_read_file_text(const std::filesystem::path& path);

// The file's bytes, or "" when it cannot be opened.
std::string read_file_text(const std::filesystem::path& path);

}  // namespace fabriclab
