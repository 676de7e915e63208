// `[[draw]]`: a lab parameter the run's seed draws per student, so that two
// students' answer keys differ (labs/SCHEMA.md, "Per-student conditions").
//
//   [[draw]]
//   name = "added_latency"                       # [a-z][a-z0-9_]*, unique
//   choices = ["100ms", "75ms", "125ms", "150ms"]  # strings or numbers, not both
//
// Any string of the lab file outside [[draw]] may say `{added_latency}`; the
// loader writes the drawn choice in before it reads anything else, so a
// drawn impairment is parsed, checked and run exactly as a written one. The
// run draws choice seed_pick(seed, name, len(choices)) (seed_pick.h) and
// records what it drew in run.json `conditions`; the grader loads the lab
// with the recorded conditions (none recorded: every draw's first choice,
// so the first choice is the lab's default).
//
// Errors are InputError "path:line: ..." (exit 2).
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fabriclab::runner {

struct DrawChoice {
  std::string text;              // as substituted: "75ms", "0.2"
  bool written_as_number = false;
  // The leading number ("75ms" -> 75, 0.2 -> 0.2), for `conditions.NAME`
  // paths; nullopt for a word ("reno").
  std::optional<double> number;
  std::string unit;              // what follows the number: "ms", ""
};

struct Draw {
  std::string name;
  std::vector<DrawChoice> choices;
  long line = 0;  // the [[draw]] table's

  // The choice whose text is `text`, or nullopt.
  std::optional<size_t> index_of(const std::string& text) const;
};

// name -> the drawn choice's text.
using Conditions = std::map<std::string, std::string>;

// Every [[draw]] of `root` (the lab file at `path`), checked: a name, a
// non-empty list of distinct choices of one type, numbers of one unit.
std::vector<Draw> read_draws(const std::string& path, const toml::table& root);

// What `seed` draws: choice seed_pick(seed, name, len(choices)) of each.
Conditions draw_conditions(const std::vector<Draw>& draws, uint64_t seed);

// `given` completed with every draw's first choice; InputError (naming
// `where`) for a name the lab does not draw or a value it does not offer.
Conditions complete_conditions(const std::vector<Draw>& draws, const Conditions& given,
                               const std::string& where);

// Writes the conditions into every string of `root` outside [[draw]]:
// "{name}" -> the choice's text. A {word} that names no draw is an error at
// its line ("{}" alone, a sweep's placeholder, is left alone).
void fill_conditions(const std::string& path, toml::table& root, const std::vector<Draw>& draws,
                     const Conditions& conditions);

// "added latency 75 ms, low loss 0.2" (a name's '_' as spaces, a number
// and its unit apart); "" without draws.
std::string conditions_text(const std::vector<Draw>& draws, const Conditions& conditions);
// The same from a recording's run.json `conditions` alone (names in
// alphabetical order): what a replay's summary says.
std::string recorded_conditions_text(const nlohmann::json& value);

// run.json `conditions`: {"added_latency": "75ms"}, a number choice as a
// number. And back: a recording's conditions (absent or null: none).
nlohmann::json conditions_json(const std::vector<Draw>& draws, const Conditions& conditions);
Conditions conditions_from_json(const nlohmann::json& value);

}  // namespace fabriclab::runner
