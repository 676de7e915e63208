// Which setting goes on which link in one scenario, once the run's seed is
// known (labs/SCHEMA.md, "Per-link settings": `links`, `seed:LABEL` and
// `[[scenario.override]]`).
//
// A link word is "all", "rN" (the link carrying rank N's traffic) or
// "seed:LABEL": the one link of rank seed_pick(seed, LABEL, ranks)
// (seed_pick.h) -- the same rank a `from = "seed"` exercise with value LABEL
// expects, so every student has their own slow link and the grader knows
// which. Per link, the scenario's own settings apply to its `links` (the
// fixed words as load_lab() resolved them into `link_ranks`, its seed: words
// here); then
// each override, in order, sets its keys on its links, replacing what was
// there (later ones win). Links that end with the same value for a key are
// applied together.
//
//   impair = "rate 400mbit", links = ["all"]
//   [[scenario.override]] links = ["seed:slow_rank"], impair = "rate 100mbit"
//   seed 7, 4 ranks, seed_pick(7, "slow_rank", 4) = 2  ->
//     impair "rate 400mbit" on r0 r1 r3; impair "rate 100mbit" on r2
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "runner/link/setting_value.h"

namespace fabriclab::runner {

struct ScenarioDefinition;

// Checks one link word against a lab of `ranks` ranks; throws
// std::invalid_argument saying what is expected.
void validate_link_word(const std::string& word, int ranks);

// The ranks `words` name (sorted, unique); `picks` gets LABEL -> rank for
// every seed word.
std::vector<int> resolve_link_words(const std::vector<std::string>& words, uint64_t seed,
                                    int ranks, std::map<std::string, int>* picks = nullptr);

// One setting on some links.
struct LinkAssignment {
  std::string key;     // "impair", "sysctl" (runner/link/link_setting.h)
  SettingValue value;  // as load_lab() parsed it
  std::vector<int> ranks;
};

struct LinkPlan {
  // By key, then by value's first rank: deterministic, so run.json and the
  // order settings are applied in do not depend on map order.
  std::vector<LinkAssignment> assignments;
  std::map<std::string, int> picks;  // seed label -> the rank it chose
};

LinkPlan plan_links(const ScenarioDefinition& scenario, uint64_t seed, int ranks);

}  // namespace fabriclab::runner
