#include "tests/runner/grading/second_recording.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <vector>

#include "runner/lab/seed_pick.h"

namespace fabriclab::runner::grading::testing {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What a run measured about a scenario, as opposed to what the lab asked of
// it (its spec): these move with `takes`.
const char* const kMeasured[] = {"status",       "message",       "started_unix_s",
                                 "ended_unix_s", "steps_planned", "steps_completed",
                                 "ranks",        "result",        "rdma"};

bool has_number(const json& result, const char* key) {
  return result.contains(key) && result.at(key).is_number();
}

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return json::parse(in);
}

void move_measurements(json& run, const std::map<std::string, std::string>& takes) {
  std::map<std::string, json> before;
  for (const json& s : run.at("scenarios")) before[s.at("name").get<std::string>()] = s;
  std::set<std::string> sources;
  for (const auto& [to, from] : takes) {
    if (!before.count(to) || !before.count(from))
      throw std::runtime_error("takes names a scenario the run lacks: " + to + " <- " + from);
    sources.insert(from);
  }
  std::set<std::string> targets;
  for (const auto& entry : takes) targets.insert(entry.first);
  if (sources != targets) throw std::runtime_error("takes is not a permutation");
  for (json& s : run.at("scenarios")) {
    const auto found = takes.find(s.at("name").get<std::string>());
    if (found == takes.end()) continue;
    const json& source = before.at(found->second);
    for (const char* key : kMeasured) {
      if (source.contains(key))
        s[key] = source[key];
      else
        s.erase(key);
    }
  }
}

// FORMAT.md's `slowdown` (and `busbw_ratio`): against `baseline` (clean
// when run.json has no such key; none when it is null); null unless both
// completed.
void recompute_ratios(json& run) {
  std::map<std::string, const json*> by_name;
  for (const json& s : run.at("scenarios")) by_name[s.at("name").get<std::string>()] = &s;
  const auto completed = [](const json& s) { return s.value("status", "") == "completed"; };
  std::map<std::string, json> slowdown, busbw_ratio;
  for (const json& s : run.at("scenarios")) {
    const std::string name = s.at("name").get<std::string>();
    const json& r = s.at("result");
    const json* base = nullptr;
    if (!s.contains("baseline"))
      base = by_name.count("clean") ? by_name.at("clean") : nullptr;
    else if (s.at("baseline").is_string() && by_name.count(s.at("baseline").get<std::string>()))
      base = by_name.at(s.at("baseline").get<std::string>());
    const bool both = base && completed(s) && completed(*base);
    const json& br = both ? base->at("result") : r;
    slowdown[name] = both && has_number(r, "wall_s") && has_number(br, "wall_s")
                         ? json(r.at("wall_s").get<double>() / br.at("wall_s").get<double>())
                         : json(nullptr);
    if (r.contains("busbw_ratio")) {
      const bool same_size = both && has_number(r, "largest_size") &&
                             has_number(br, "largest_size") &&
                             r.at("largest_size") == br.at("largest_size");
      busbw_ratio[name] =
          same_size && has_number(r, "busbw_gb_per_s") && has_number(br, "busbw_gb_per_s")
              ? json(r.at("busbw_gb_per_s").get<double>() / br.at("busbw_gb_per_s").get<double>())
              : json(nullptr);
    }
  }
  for (json& s : run.at("scenarios")) {
    const std::string name = s.at("name").get<std::string>();
    json& r = s.at("result");
    if (r.contains("slowdown")) r["slowdown"] = slowdown.at(name);
    if (busbw_ratio.count(name)) r["busbw_ratio"] = busbw_ratio.at(name);
  }
}

// The next seed under which every `seed:` label draws another rank than
// now; link_picks then name those ranks.
void reseed(json& run) {
  const uint64_t seed = run.at("seed").get<uint64_t>();
  const uint64_t ranks = run.at("ranks").get<uint64_t>();
  std::set<std::string> labels;
  for (const json& s : run.at("scenarios")) {
    if (!s.contains("link_picks")) continue;
    for (const auto& pick : s.at("link_picks").items()) labels.insert(pick.key());
  }
  uint64_t next = seed + 1;
  const auto all_differ = [&](uint64_t candidate) {
    for (const std::string& label : labels) {
      if (seed_pick(candidate, label, ranks) == seed_pick(seed, label, ranks)) return false;
    }
    return true;
  };
  while (ranks > 1 && !all_differ(next)) ++next;
  run["seed"] = next;
  for (json& s : run.at("scenarios")) {
    if (!s.contains("link_picks")) continue;
    for (auto& pick : s.at("link_picks").items())
      pick.value() = "r" + std::to_string(seed_pick(next, pick.key(), ranks));
  }
}

void shift_accuracy(json& holder, double shift) {
  if (holder.contains("accuracy") && holder.at("accuracy").is_number())
    holder["accuracy"] = holder.at("accuracy").get<double>() + shift;
}

}  // namespace

void write_second_recording(const std::string& reference_dir, const std::string& out_dir,
                            const RunChange& change) {
  fs::copy(reference_dir, out_dir, fs::copy_options::recursive);
  // The reference's answers are graded explicitly; the copy carries none.
  fs::remove(fs::path(out_dir) / "answers.toml");

  json run = read_json(fs::path(out_dir) / "run.json");
  move_measurements(run, change.takes);
  recompute_ratios(run);
  reseed(run);
  if (change.accuracy_shift != 0) {
    for (json& s : run.at("scenarios")) shift_accuracy(s.at("result"), change.accuracy_shift);
  }
  std::ofstream(fs::path(out_dir) / "run.json") << run.dump(2) << "\n";

  // metrics.jsonl: each event goes under the name now holding its scenario.
  std::map<std::string, std::string> renamed;  // measured as -> now named
  for (const auto& [to, from] : change.takes) renamed[from] = to;
  const fs::path metrics = fs::path(out_dir) / "metrics.jsonl";
  std::ifstream in(metrics);
  std::vector<json> events;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    json e = json::parse(line);
    const auto found = renamed.find(e.value("scenario", ""));
    if (found != renamed.end()) e["scenario"] = found->second;
    const std::string type = e.value("event", "");
    if (change.accuracy_shift != 0 && (type == "eval" || type == "final"))
      shift_accuracy(e, change.accuracy_shift);
    events.push_back(std::move(e));
  }
  in.close();
  std::ofstream out(metrics);
  for (const json& e : events) out << e.dump() << "\n";
}

}  // namespace fabriclab::runner::grading::testing
