#include "runner/lab/lab_selection.h"

#include <filesystem>
#include <optional>
#include <regex>
#include <utility>

#include "common/input_error.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner {
namespace {

namespace fs = std::filesystem;

// "02-05" -> {2, 5}; a folder name such as "02-dropped-packet" is not a range.
std::optional<std::pair<int, int>> number_range(const std::string& which) {
  static const std::regex range("([0-9]{1,2})-([0-9]{1,2})");
  std::smatch m;
  if (!std::regex_match(which, m, range)) return std::nullopt;
  return std::make_pair(std::stoi(m[1].str()), std::stoi(m[2].str()));
}

int folder_number(const std::string& lab_file) {
  return std::stoi(fs::path(lab_file).parent_path().filename().string().substr(0, 2));
}

std::string folder_list(const std::vector<std::string>& files) {
  std::string out;
  for (const std::string& file : files)
    out += (out.empty() ? "" : ", ") + fs::path(file).parent_path().filename().string();
  return out.empty() ? "none" : out;
}

}  // namespace

bool selects_many_labs(const std::string& which) {
  return which == "all" || number_range(which).has_value();
}

std::vector<std::string> select_lab_files(const std::string& labs_dir, const std::string& which) {
  if (which == "all") {
    std::vector<std::string> files = list_lab_files(labs_dir);
    if (files.empty()) throw InputError("all: no NN-name/lab.toml in " + labs_dir);
    return files;
  }
  const auto range = number_range(which);
  if (!range) return {find_lab_file(labs_dir, which)};
  const std::vector<std::string> every = list_lab_files(labs_dir);
  if (range->first > range->second)
    throw InputError("lab range '" + which + "' runs backwards (expected FIRST-LAST with FIRST <= LAST, e.g. 02-05)");
  std::vector<std::string> files;
  for (const std::string& file : every) {
    const int number = folder_number(file);
    if (number >= range->first && number <= range->second) files.push_back(file);
  }
  if (files.empty())
    throw InputError("lab range '" + which + "' holds no lab in " + labs_dir +
                     " (expected numbers of labs that exist: " + folder_list(every) + ")");
  return files;
}

}  // namespace fabriclab::runner
