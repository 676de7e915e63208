// runner/README.md read as data: its tables are the map, and the tests hold
// the tree to them (architecture_test.cc: the arrows; map_test.cc: the
// plug-ins), so the map a newcomer reads cannot drift from the code.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/build_paths.h"

namespace fabriclab::runner::testing {

inline std::filesystem::path runner_dir() {
  return std::filesystem::path(build_paths::source_dir()) / "runner";
}

// The folders of runner/ as they are on disk.
inline std::set<std::string> runner_folders() {
  std::set<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(runner_dir()))
    if (entry.is_directory()) folders.insert(entry.path().filename().string());
  return folders;
}

// The cells of each body row of the first table under the heading `## title`.
inline std::vector<std::vector<std::string>> readme_table(const std::string& title) {
  std::ifstream in(runner_dir() / "README.md");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  bool under = false, in_table = false;
  int row_number = 0;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      if (under && in_table) break;
      under = line == "## " + title;
      continue;
    }
    if (!under) continue;
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (++row_number <= 2) continue;  // the header and its |---| line
    std::vector<std::string> cells;
    std::stringstream cells_text(line.substr(1));
    std::string cell;
    while (std::getline(cells_text, cell, '|')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// The `code spans` of a cell, in order.
inline std::vector<std::string> code_spans(const std::string& cell) {
  static const std::regex kSpan("`([^`]+)`");
  std::vector<std::string> spans;
  for (std::sregex_iterator it(cell.begin(), cell.end(), kSpan), end; it != end; ++it)
    spans.push_back((*it)[1].str());
  return spans;
}

// "Which way the arrows point": folder -> the runner folders it may include.
// A row's first cell names folders (`cli/`); its second names what they may
// depend on in words, of which the runner folders' names count, or
// "everything below" (every folder of the rows after it).
inline std::map<std::string, std::set<std::string>> dependency_rules() {
  const std::set<std::string> folders = runner_folders();
  const auto rows = readme_table("Which way the arrows point");
  std::map<std::string, std::set<std::string>> rules;
  static const std::regex kWord("[A-Za-z_]+");
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() < 2) continue;
    std::set<std::string> deps;
    const std::string& text = rows[i][1];
    if (text.find("everything below") != std::string::npos) {
      for (size_t j = i + 1; j < rows.size(); ++j)
        for (std::string name : code_spans(rows[j][0])) deps.insert(name.substr(0, name.find('/')));
    } else {
      for (std::sregex_iterator it(text.begin(), text.end(), kWord), end; it != end; ++it)
        if (folders.count(it->str())) deps.insert(it->str());
    }
    // A folder may always include itself: its own name in the words (as in
    // "what host mode does" on host/'s row) is prose, not an arrow.
    for (const std::string& name : code_spans(rows[i][0])) {
      const std::string folder = name.substr(0, name.find('/'));
      rules[folder] = deps;
      rules[folder].erase(folder);
    }
  }
  return rules;
}

}  // namespace fabriclab::runner::testing
