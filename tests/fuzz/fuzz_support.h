// Shared by the fuzz targets (tests/fuzz/README.md): the input as text, a
// scratch folder for parsers that read a path, and the labs to grade against.
//
// Exceptions: a target catches fabriclab::InputError only -- the documented
// answer to bad input. Anything else escaping a parser (std::out_of_range,
// nlohmann::json::type_error, ...) reaches libFuzzer as an uncaught exception
// (abort) and counts as a crash: a parser must turn damage into InputError.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "common/build_paths.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A folder of this process's own under $TMPDIR (or /tmp), removed at exit.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path d = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                              ("fabriclab-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return d;
  }();
  return dir;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Every lab of the source tree by id ("02" -> its LabDefinition), loaded once.
inline const std::map<std::string, runner::LabDefinition>& labs() {
  static const std::map<std::string, runner::LabDefinition> all = [] {
    std::map<std::string, runner::LabDefinition> out;
    for (const std::string& path : runner::list_lab_files(std::string(build_paths::source_dir()) + "/labs")) {
      runner::LabDefinition lab = runner::load_lab(path, false);
      out.emplace(lab.id, std::move(lab));
    }
    return out;
  }();
  return all;
}

// The lab `text` names in its first line ("... lab 02 ..."), else lab 02.
inline const runner::LabDefinition& lab_named_in(const std::string& text) {
  static const std::regex kLab("lab ([0-9][0-9])");
  std::smatch m;
  const std::string first_line = text.substr(0, text.find('\n'));
  if (std::regex_search(first_line, m, kLab)) {
    auto it = labs().find(m[1].str());
    if (it != labs().end()) return it->second;
  }
  return labs().at("02");
}

}  // namespace fabriclab::fuzz
