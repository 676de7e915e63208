#include "runner/lab/link_plan.h"

#include <algorithm>
#include <regex>

#include "runner/lab/lab_definition.h"
#include "runner/lab/seed_pick.h"

namespace fabriclab::runner {
namespace {

const std::regex kRankWord("r([0-9]+)");
const std::regex kSeedWord("seed:([a-z0-9_]+)");

}  // namespace

void validate_link_word(const std::string& word, int ranks) {
  std::smatch m;
  if (word == "all" || std::regex_match(word, m, kSeedWord)) return;
  if (std::regex_match(word, m, kRankWord) && std::stoi(m[1]) < ranks) return;
  throw std::invalid_argument("'" + word +
                              "' is not a link of this lab: expected \"all\", r0..r" +
                              std::to_string(ranks - 1) +
                              " or \"seed:LABEL\" (LABEL [a-z0-9_]+)");
}

std::vector<int> resolve_link_words(const std::vector<std::string>& words, uint64_t seed,
                                    int ranks, std::map<std::string, int>* picks) {
  std::vector<int> result;
  for (const std::string& word : words) {
    std::smatch m;
    if (word == "all") {
      for (int i = 0; i < ranks; ++i) result.push_back(i);
    } else if (std::regex_match(word, m, kSeedWord)) {
      const int rank = static_cast<int>(seed_pick(seed, m[1], static_cast<uint64_t>(ranks)));
      if (picks) (*picks)[m[1]] = rank;
      result.push_back(rank);
    } else if (std::regex_match(word, m, kRankWord)) {
      result.push_back(std::stoi(m[1]));
    }
  }
  std::sort(result.begin(), result.end());
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}

LinkPlan plan_links(const ScenarioDefinition& s, uint64_t seed, int ranks) {
  LinkPlan plan;
  // Per rank's link, key -> value; later layers overwrite.
  std::vector<std::map<std::string, SettingValue>> per_link(static_cast<size_t>(ranks));
  const auto layer = [&](const std::vector<int>& link_ranks,
                         const std::map<std::string, SettingValue>& settings) {
    for (int rank : link_ranks) {
      if (rank < 0 || rank >= ranks) continue;
      for (const auto& [key, value] : settings) per_link[static_cast<size_t>(rank)][key] = value;
    }
  };
  // The scenario's own links: link_ranks (its fixed words, resolved by
  // load_lab) and its seed: words, which only the run's seed resolves.
  std::vector<std::string> seed_words;
  for (const std::string& word : s.links)
    if (word.rfind("seed:", 0) == 0) seed_words.push_back(word);
  std::vector<int> own = resolve_link_words(seed_words, seed, ranks, &plan.picks);
  own.insert(own.end(), s.link_ranks.begin(), s.link_ranks.end());
  if (!s.link_settings.empty()) layer(own, s.link_settings);
  for (const LinkOverride& o : s.overrides)
    layer(resolve_link_words(o.links, seed, ranks, &plan.picks), o.link_settings);

  std::map<std::string, std::vector<LinkAssignment>> by_key;
  for (int rank = 0; rank < ranks; ++rank) {
    for (const auto& [key, value] : per_link[static_cast<size_t>(rank)]) {
      std::vector<LinkAssignment>& same_key = by_key[key];
      auto it = std::find_if(same_key.begin(), same_key.end(),
                             [&value = value](const LinkAssignment& a) { return a.value == value; });
      if (it == same_key.end()) {
        same_key.push_back({key, value, {}});
        it = same_key.end() - 1;
      }
      it->ranks.push_back(rank);
    }
  }
  for (auto& [key, assignments] : by_key)
    for (LinkAssignment& a : assignments) plan.assignments.push_back(std::move(a));
  return plan;
}

}  // namespace fabriclab::runner
