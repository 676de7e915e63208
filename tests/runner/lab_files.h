// Test labs and their recordings: a lab file written for the test (lab 92,
// two ranks, the scenarios the test wants) and run.json read back. Shared by
// the namespace-mode and host-mode end-to-end tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

namespace fabriclab::runner::testing {

// A lab file in a folder of its own; `scenarios` is TOML appended verbatim.
inline std::string write_lab(const std::string& labs_dir, const std::string& trainer,
                             const std::string& scenarios) {
  const std::string folder = labs_dir + "/92-test";
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/lab.toml")
      << "[lab]\nid = \"92\"\ntitle = \"test\"\nsummary = \"test\"\n"
      << "[trainer]\n"
      << trainer << "\n[topology]\nranks = 2\n"
      << scenarios;
  return folder;
}

inline std::string scenario(const std::string& name, const std::string& impair, int deadline_s,
                            int stall_s) {
  std::string s = "[[scenario]]\nname = \"" + name + "\"\ncondition = \"" + name + "\"\n";
  if (!impair.empty()) s += "impair = \"" + impair + "\"\nlinks = [\"all\"]\n";
  return s + "deadline_s = " + std::to_string(deadline_s) +
         "\nstall_s = " + std::to_string(stall_s) + "\n";
}

// The run.json of the (first) run directory under `output_dir`, or null.
inline nlohmann::json read_run_json(const std::string& output_dir) {
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(output_dir, ignored)) {
    std::ifstream in(entry.path() / "run.json");
    if (in) return nlohmann::json::parse(in);
  }
  return nullptr;
}

inline const nlohmann::json& scenario_in(const nlohmann::json& run, const std::string& name) {
  for (const auto& s : run["scenarios"])
    if (s["name"] == name) return s;
  static const nlohmann::json none;
  ADD_FAILURE() << "no scenario " << name << " in run.json";
  return none;
}

// Waits until a rank of a run under `output_dir` (below `subdir`, e.g.
// "ranks/latency") has written a step event.
inline bool wait_for_training(const std::string& output_dir, std::chrono::seconds limit,
                              const std::string& subdir = "") {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    std::error_code ignored;
    for (auto it = std::filesystem::recursive_directory_iterator(output_dir, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
      const std::filesystem::path& path = it->path();
      if (path.extension() != ".jsonl" || path.string().find(subdir) == std::string::npos) continue;
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("\"event\":\"step\"") != std::string::npos) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

}  // namespace fabriclab::runner::testing
