// The dependency rules of runner/README.md ("Which way the arrows point",
// read by runner_map.h), checked on the source: every `#include "runner/<folder>/..."` in
// runner/<folder>/ must be one the rules allow, and nothing in runner/
// includes a backend's folder of netem/. A walk of a lab file through the
// code then never returns to a room it left. And a setting owns its whole
// life: no lab.toml setting key is spelled outside runner/link/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "common/build_paths.h"
#include "runner/link/link_setting.h"
#include "tests/runner/runner_map.h"

namespace fabriclab::runner {
namespace {

namespace fs = std::filesystem;

// folder -> the runner folders its files may include (besides its own),
// read from runner/README.md's table: the map is the rule.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> rules = testing::dependency_rules();
  return rules;
}

// The one file allowed into a backend's folder: `fabriclab netem` is the
// kernel backend's own tc-like tool (it prints the netlink messages it would
// send, shows qdiscs as the kernel reports them), as `tc` is iproute2's.
bool may_include_backend(const std::string& runner_file) {
  return runner_file == "runner/cli/netem_command.cc";
}

std::vector<std::string> violations() {
  const fs::path runner = fs::path(fabriclab::build_paths::source_dir()) / "runner";
  static const std::regex kInclude(R"(^\s*#\s*include\s*"((runner|netem)/([a-z_]+)/[^"]+)\")");
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(runner)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    const std::string folder = fs::relative(entry.path(), runner).begin()->string();
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      std::smatch m;
      if (!std::regex_search(line, m, kInclude)) continue;
      const std::string where = fs::relative(entry.path(), runner.parent_path()).string() + ":" +
                                std::to_string(n) + ": includes " + m[1].str();
      if (m[2] == "netem") {
        const std::string file = fs::relative(entry.path(), runner.parent_path()).string();
        if ((m[3] == "netlink" || m[3] == "userspace") && !may_include_backend(file))
          out.push_back(where + " (a backend's folder)");
        continue;
      }
      if (m[3] == folder) continue;
      const auto rule = allowed().find(folder);
      if (rule == allowed().end()) {
        out.push_back(where + " (folder runner/" + folder + "/ has no rule: add it here and to runner/README.md)");
      } else if (!rule->second.count(m[3])) {
        out.push_back(where + " (runner/" + folder + "/ may not depend on runner/" + m[3].str() + "/)");
      }
    }
  }
  return out;
}

TEST(Architecture, RunnerFoldersIncludeOnlyWhatTheMapAllows) {
  for (const std::string& v : violations()) ADD_FAILURE() << v;
}

// The rules themselves point one way: no folder can reach itself through
// them, so a lab's walk through the runner never comes back to a room.
TEST(Architecture, TheRulesHaveNoCycle) {
  std::map<std::string, int> state;  // 0 unvisited, 1 on the path, 2 done
  std::function<void(const std::string&, std::string)> visit = [&](const std::string& folder,
                                                                   std::string path) {
    path += (path.empty() ? "" : " -> ") + folder;
    if (state[folder] == 1) {
      ADD_FAILURE() << "cycle: " << path;
      return;
    }
    if (state[folder] == 2) return;
    state[folder] = 1;
    const auto rule = allowed().find(folder);
    if (rule != allowed().end())
      for (const std::string& next : rule->second) visit(next, path);
    state[folder] = 2;
  };
  for (const auto& [folder, deps] : allowed()) visit(folder, "");
}

TEST(Architecture, TheRuleTableMatchesTheFolders) {
  const fs::path runner = fs::path(fabriclab::build_paths::source_dir()) / "runner";
  for (const auto& entry : fs::directory_iterator(runner)) {
    if (entry.is_directory()) {
      EXPECT_TRUE(allowed().count(entry.path().filename().string()))
          << "runner/" << entry.path().filename().string() << "/ has no dependency rule";
    }
  }
}

// True when runner/<folder>/ may include runner/link/, directly or through
// the folders it may include.
bool reaches_link(const std::string& folder, std::set<std::string> seen = {}) {
  if (folder == "link") return true;
  if (!seen.insert(folder).second) return false;
  const auto rule = allowed().find(folder);
  if (rule == allowed().end()) return false;
  for (const std::string& next : rule->second)
    if (reaches_link(next, seen)) return true;
  return false;
}

// Words that are a setting's key but mean something else where they stand.
bool names_something_else(const std::string& file, const std::string& key) {
  static const std::set<std::pair<std::string, std::string>> kOtherMeanings = {
      // `fabriclab bench impair` and `bench queue`: subcommands, named after
      // what they measure.
      {"runner/cli/bench_impair_command.cc", "impair"},
      {"runner/cli/bench_queue_command.cc", "queue"},
  };
  return kOtherMeanings.count({file, key}) > 0;
}

// Every "key" literal of a per-link setting, outside comments, in a runner
// folder that could act on it. Folders that cannot reach runner/link/
// (report/'s `queue` and `uplinks` tables, rundir/'s run.json fields) use
// the same words for other things.
std::vector<std::string> spelled_setting_keys() {
  std::set<std::string> keys;
  for (SettingScope scope : {SettingScope::kScenario, SettingScope::kFabric})
    for (const std::string& key : link_setting_keys(scope)) keys.insert(key);
  const fs::path runner = fs::path(fabriclab::build_paths::source_dir()) / "runner";
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(runner)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cc") continue;
    const std::string folder = fs::relative(entry.path(), runner).begin()->string();
    if (folder == "link" || !reaches_link(folder)) continue;
    const std::string file = fs::relative(entry.path(), runner.parent_path()).string();
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string code = line.substr(0, line.find("//"));
      for (const std::string& key : keys)
        if (code.find('"' + key + '"') != std::string::npos && !names_something_else(file, key))
          out.push_back(file + ":" + std::to_string(n) + ": spells the setting key \"" + key +
                        "\" (ask its kind in runner/link/ instead: link_setting.h)");
    }
  }
  return out;
}

TEST(Architecture, SettingKeysAreSpelledOnlyInRunnerLink) {
  for (const std::string& v : spelled_setting_keys()) ADD_FAILURE() << v;
}

}  // namespace
}  // namespace fabriclab::runner
