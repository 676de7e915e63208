#include "runner/lab/lab_definition.h"

#include <spdlog/fmt/fmt.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>

#include "common/build_paths.h"
#include "common/input_error.h"
#include "runner/lab/exercise_reader.h"
#include "runner/lab/link_plan.h"
#include "runner/lab/sweep.h"
#include "runner/lab/toml_file.h"
#include "runner/link/impair_setting.h"
#include "runner/link/link_setting.h"
#include "runner/report/chart_kind.h"
#include "runner/report/table_kind.h"
#include "runner/topology/fabric.h"
#include "runner/lab/link_fault_spec.h"

namespace fabriclab::runner {
namespace fs = std::filesystem;

namespace {

// The keys of a [[scenario]] besides its per-link settings (link_setting.h).
const std::set<std::string> kScenarioKeys = {"name",    "condition", "links",    "deadline_s",
                                             "stall_s", "deadline",  "stall",
                                             "workload",  "baseline", "ranks",
                                             "override", "flow_probe_s", "neighbours",
                                             "placement", "link_fault"};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

class LabReader {
 public:
  explicit LabReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& key,
                         const std::string& expected) const {
    const long line = node ? static_cast<long>(node->source().begin.line) : 1;
    throw input_error_at(path_, line, "key '" + key + "': " + expected);
  }

  void reject_unknown(const toml::table& table, const std::set<std::string>& known,
                      const std::string& where) const {
    for (const auto& [key, node] : table) {
      if (!known.count(std::string(key.str()))) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw input_error_at(path_, static_cast<long>(key.source().begin.line),
                             "unknown key '" + std::string(key.str()) + "' in " + where +
                                 " (known: " + list + ")");
      }
    }
  }

  std::string string_at(const toml::table& t, const std::string& key, bool required,
                        const std::string& fallback = "") const {
    const toml::node* node = t.get(key);
    if (!node) {
      if (required) fail(&t, key, "missing (a string)");
      return fallback;
    }
    if (!node->is_string()) fail(node, key, "expected a string");
    return node->as_string()->get();
  }

  double number_at(const toml::table& t, const std::string& key, double fallback, double min,
                   double max) const {
    const toml::node* node = t.get(key);
    if (!node) return fallback;
    if (!node->is_number()) fail(node, key, "expected a number");
    const double value = *toml_number(*node);
    if (!(value >= min && value <= max)) {  // NaN too
      fail(node, key, fmt::format("expected a number in [{:g}, {:g}], got {:g}", min, max, value));
    }
    return value;
  }

  int64_t integer_at(const toml::table& t, const std::string& key, int64_t fallback, int64_t min,
                     int64_t max) const {
    const toml::node* node = t.get(key);
    if (!node) return fallback;
    if (!node->is_integer()) fail(node, key, "expected an integer");
    const int64_t value = node->as_integer()->get();
    if (value < min || value > max) {
      fail(node, key,
           "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
               "], got " + std::to_string(value));
    }
    return value;
  }

  // An array of registry names (charts, tables), each checked by `known`.
  template <typename Known>
  std::vector<std::string> names_at(const toml::node* node, const std::string& key,
                                    const std::string& what, const std::vector<std::string>& all,
                                    Known known) const {
    const toml::array* array = node->as_array();
    if (!array) fail(node, key, "expected an array of " + what + " names");
    std::vector<std::string> names;
    for (const auto& item : *array) {
      if (!item.is_string() || !known(item.as_string()->get())) {
        std::string list;
        for (const auto& n : all) list += (list.empty() ? "" : ", ") + n;
        fail(&item, key, "expected " + what + " names (" + list + ")");
      }
      names.push_back(item.as_string()->get());
    }
    return names;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A command line (ParamKind::kArgv): a non-empty array of non-empty
// strings, kept as its JSON text.
std::string argv_param(const LabReader& r, const std::string& key, const toml::node& node) {
  const toml::array* array = node.as_array();
  const char* expected = "expected a command line: a non-empty array of strings, e.g. [\"python3\", \"train.py\"]";
  if (!array || array->empty()) r.fail(&node, key, expected);
  nlohmann::json argv = nlohmann::json::array();
  for (const auto& item : *array) {
    if (!item.is_string() || item.as_string()->get().empty()) r.fail(&item, key, expected);
    argv.push_back(item.as_string()->get());
  }
  return argv.dump();
}

// One workload parameter, checked against the kind's type, as text.
std::string param_value(const LabReader& r, const Workload& workload, const std::string& key,
                        const toml::node& node) {
  const auto kind = workload.params().find(key);
  if (kind == workload.params().end()) {
    std::vector<std::string> known;
    for (const auto& [k, v] : workload.params()) known.push_back(k);
    r.fail(&node, key,
           "not a parameter of workload '" + std::string(workload.name()) + "' (known: " +
               join(known) + ")");
  }
  if (kind->second == ParamKind::kArgv) return argv_param(r, key, node);
  if (kind->second == ParamKind::kString) {
    if (!node.is_string()) r.fail(&node, key, "expected a string");
    return node.as_string()->get();
  }
  if (kind->second == ParamKind::kRank && node.is_string()) {
    static const std::regex kSeedWord("seed:[a-z0-9_]+");
    const std::string word = node.as_string()->get();
    if (!std::regex_match(word, kSeedWord))
      r.fail(&node, key, "expected a rank number or \"seed:LABEL\" (LABEL: [a-z0-9_]+), got \"" + word + "\"");
    return word;
  }
  if (kind->second == ParamKind::kInteger || kind->second == ParamKind::kRank) {
    if (!node.is_integer() || node.as_integer()->get() < 0) {
      r.fail(&node, key, "expected a non-negative integer");
    }
    return std::to_string(node.as_integer()->get());
  }
  if (!node.is_number() || !std::isfinite(*toml_number(node)))
    r.fail(&node, key, "expected a finite number");
  return std::to_string(*toml_number(node));
}

// A workload check's message starts with the parameter it is about: the
// key of that name in the first of `tables` that has it, else `fallback`.
const toml::node* param_named_in(const std::string& message,
                                 std::initializer_list<const toml::table*> tables,
                                 const toml::node* fallback, std::string& key) {
  for (const toml::table* table : tables) {
    if (!table) continue;
    for (const auto& [name, node] : *table) {
      if (message.rfind(std::string(name.str()) + " ", 0) == 0) {
        key = std::string(name.str());
        return &node;
      }
    }
  }
  return fallback;
}

// [workload] (kind + the kind's parameters), or the older [trainer] (the
// parameters of kind "train").
WorkloadDefinition read_workload(const LabReader& r, const toml::table& root) {
  WorkloadDefinition w;
  const toml::table* workload = root["workload"].as_table();
  const toml::table* trainer = root["trainer"].as_table();
  if (workload && trainer) {
    r.fail(root.get("trainer"), "trainer",
           "[trainer] is the older name of [workload] with kind = \"train\": give one of them");
  }
  const toml::table* table = workload ? workload : trainer;
  if (workload) w.kind = r.string_at(*workload, "kind", false, w.kind);
  const Workload* kind = nullptr;
  try {
    kind = &find_workload(w.kind);
  } catch (const std::invalid_argument& e) {
    r.fail(workload->get("kind"), "kind", e.what());
  }
  if (!table) return w;
  for (const auto& [key, node] : *table) {
    const std::string k(key.str());
    if (workload && k == "kind") continue;
    w.params[k] = param_value(r, *kind, k, node);
  }
  return w;
}

// `links`: "all", "rN" or "seed:LABEL" words (link_plan.h); the ranks of
// the words that do not need the run's seed.
std::vector<int> resolve_links(const LabReader& r, const toml::node* node,
                               std::vector<std::string>& words, int ranks) {
  if (!node) {
    words = {"all"};
  } else {
    const toml::array* array = node->as_array();
    if (!array || array->empty())
      r.fail(node, "links", "expected an array like [\"all\"], [\"r1\"] or [\"seed:slow_rank\"]");
    for (const auto& item : *array) {
      if (!item.is_string()) r.fail(&item, "links", "expected strings like \"all\" or \"r1\"");
      words.push_back(item.as_string()->get());
      try {
        validate_link_word(words.back(), ranks);
      } catch (const std::invalid_argument& e) {
        r.fail(&item, "links", e.what());
      }
    }
  }
  std::vector<std::string> fixed;
  for (const std::string& word : words)
    if (word.rfind("seed:", 0) != 0) fixed.push_back(word);
  return resolve_link_words(fixed, 0, ranks);
}

// One key of per-link settings (link_setting.h) in `t`, parsed by its kind,
// once; null when absent.
std::optional<SettingValue> link_setting_value(const LabReader& r, const toml::table& t,
                                               const std::string& key) {
  const std::string text = r.string_at(t, key, false);
  if (text.empty()) return std::nullopt;
  try {
    return find_link_setting(key)->parse(text);
  } catch (const std::invalid_argument& e) {
    r.fail(t.get(key), key, e.what());
  }
}

// The fabric-scope settings of [topology], each checked, and checked
// against the fabric it is for.
std::map<std::string, SettingValue> read_fabric_settings(const LabReader& r,
                                                         const toml::table& topology,
                                                         const FabricGraph& graph) {
  std::map<std::string, SettingValue> settings;
  for (const std::string& key : link_setting_keys(SettingScope::kFabric)) {
    const std::string text = r.string_at(topology, key, false);
    if (text.empty()) continue;
    try {
      const LinkSettingKind& kind = *find_link_setting(key);
      // The fabric first: a setting on links it does not have is wrong whatever its words.
      kind.check_fabric(graph);
      settings[key] = kind.parse(text);
    } catch (const std::invalid_argument& e) {
      r.fail(topology.get(key), key, e.what());
    }
  }
  return settings;
}

// A scenario's settings must go with the fabric's (a rate on the hosts'
// links and a scenario's impairment would meet on one device).
void check_against_fabric(const LabReader& r, const toml::table& t, const ScenarioDefinition& s,
                          const FabricDefinition& fabric) {
  for (const auto& [key, value] : s.every_link_setting()) {
    for (const auto& [fabric_key, fabric_value] : fabric.link_settings) {
      const std::string conflict =
          find_link_setting(fabric_key)->conflict_with(*find_link_setting(key));
      if (!conflict.empty()) r.fail(t.get(key) ? t.get(key) : t.get("override"), key, conflict);
    }
  }
}

// `[[scenario.override]]` tables: `links` and at least one per-link setting.
std::vector<LinkOverride> read_overrides(const LabReader& r, const toml::table& t, int ranks) {
  std::vector<LinkOverride> out;
  const toml::node* node = t.get("override");
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array || array->empty() || !array->is_array_of_tables())
    r.fail(node, "override", "expected [[scenario.override]] tables");
  std::set<std::string> known = {"links"};
  for (const std::string& key : link_setting_keys(SettingScope::kScenario)) known.insert(key);
  for (const auto& item : *array) {
    const toml::table& o = *item.as_table();
    r.reject_unknown(o, known, "[[scenario.override]]");
    LinkOverride override;
    if (!o.get("links")) r.fail(&o, "links", "missing: an override names the links it sets");
    resolve_links(r, o.get("links"), override.links, ranks);
    for (const std::string& key : link_setting_keys(SettingScope::kScenario)) {
      if (auto value = link_setting_value(r, o, key)) override.link_settings[key] = *value;
    }
    if (override.link_settings.empty())
      r.fail(&o, "override", "sets nothing: give a per-link setting (" +
                                 join(link_setting_keys(SettingScope::kScenario)) + ")");
    out.push_back(std::move(override));
  }
  return out;
}

// With --quick, a number both [quick] and the scenario set takes the smaller
// of the two: a quick run never runs a scenario larger than [quick] says
// (lab 11's 16 MiB scenarios stay at [quick]'s 1 MiB), nor larger than the
// scenario itself (lab 02's 4-step scenarios stay at 4 steps).
std::string quick_capped(const Workload& kind, const std::string& key, const std::string& value,
                         const toml::table* quick, const WorkloadDefinition& lab_workload) {
  if (!quick || !quick->contains(key)) return value;
  const ParamKind type = kind.params().at(key);
  if (type != ParamKind::kInteger && type != ParamKind::kNumber) return value;
  const std::string quick_value = lab_workload.param(key);
  return std::stod(quick_value) < std::stod(value) ? quick_value : value;
}

// `workload = { ... }`: the lab's workload with these parameters changed.
void read_scenario_workload(const LabReader& r, const toml::table& t, const LabDefinition& lab,
                            const toml::table* quick, ScenarioDefinition& s) {
  s.workload = lab.workload;
  const toml::node* node = t.get("workload");
  if (!node) return;
  const toml::table* overrides = node->as_table();
  if (!overrides || overrides->empty()) {
    r.fail(node, "workload", "expected an inline table of workload parameters, e.g. { batch = 1024 }");
  }
  const Workload& kind = find_workload(lab.workload.kind);
  for (const auto& [key, value] : *overrides) {
    const std::string k(key.str());
    s.workload_overrides[k] =
        quick_capped(kind, k, param_value(r, kind, k, value), quick, lab.workload);
    s.workload.params[k] = s.workload_overrides[k];
  }
  try {
    kind.check(s.workload);
  } catch (const std::invalid_argument& e) {
    std::string key = "workload";
    r.fail(param_named_in(e.what(), {overrides}, node, key), key, e.what());
  }
}

// `neighbours = ["noisy r3->r0", ...]`: flows between ranks of the lab
// network (any of them, not only the job's), names unique.
std::vector<NeighbourFlowSpec> read_neighbours(const LabReader& r, const toml::table& t, int ranks) {
  std::vector<NeighbourFlowSpec> flows;
  const toml::node* node = t.get("neighbours");
  if (!node) return flows;
  const toml::array* array = node->as_array();
  if (!array || array->empty())
    r.fail(node, "neighbours", "expected an array of flows like [\"noisy r3->r0\"]");
  for (const toml::node& item : *array) {
    if (!item.is_string()) r.fail(&item, "neighbours", "expected strings like \"noisy r3->r0\"");
    NeighbourFlowSpec flow;
    try {
      flow = parse_neighbour_flow(std::string(**item.as_string()));
    } catch (const InputError& e) {
      r.fail(&item, "neighbours", e.what());
    }
    if (flow.from >= ranks || flow.to >= ranks)
      r.fail(&item, "neighbours",
             "the lab network has ranks r0 to r" + std::to_string(ranks - 1));
    for (const NeighbourFlowSpec& other : flows)
      if (other.name == flow.name) r.fail(&item, "neighbours", "a second flow named " + flow.name);
    flows.push_back(flow);
  }
  return flows;
}

// `placement = ["r0", "r0", "r1", "r1"]`: a host of the lab network per job
// rank, by name; [] when absent.
std::vector<int> read_placement(const LabReader& r, const toml::table& t, int hosts) {
  const toml::node* node = t.get("placement");
  if (!node) return {};
  const toml::array* array = node->as_array();
  const std::string expected = "expected an array of host names, one per rank, like [\"r0\", \"r0\", \"r1\"]";
  if (!array || array->empty()) r.fail(node, "placement", expected);
  if (array->size() > static_cast<size_t>(kMaxRanks))
    r.fail(node, "placement", "at most " + std::to_string(kMaxRanks) + " ranks");
  static const std::regex kHost("r([0-9]+)");
  std::vector<int> placement;
  for (const auto& item : *array) {
    std::smatch m;
    const std::string name = item.is_string() ? item.as_string()->get() : "";
    if (!std::regex_match(name, m, kHost)) r.fail(&item, "placement", expected);
    const int host = m[1].length() <= 2 ? std::stoi(m[1].str()) : hosts;
    if (host >= hosts)
      r.fail(&item, "placement",
             "the lab network has hosts r0 to r" + std::to_string(hosts - 1) + " ([topology] ranks)");
    placement.push_back(host);
  }
  return placement;
}

// `deadline = "6x clean"` (relative_limit.h); none when the key is absent.
RelativeLimit relative_limit_at(const LabReader& r, const toml::table& t, const std::string& key) {
  const std::string text = r.string_at(t, key, false);
  if (text.empty() && !t.get(key)) return {};
  std::string why;
  const std::optional<RelativeLimit> limit = parse_relative_limit(text, &why);
  if (!limit) r.fail(t.get(key), key, why);
  return *limit;
}

// The fabric's uplinks by name ("tor0-spine0"): its links between two routers.
std::vector<std::string> uplink_names(const FabricDefinition& fabric) {
  const FabricGraph graph = draw_fabric(fabric.kind, fabric.ranks);
  const auto routed = [&](const std::string& name) {
    for (const FabricNode& sw : graph.switches)
      if (sw.name == name) return sw.routed;
    return false;
  };
  std::vector<std::string> names;
  for (const FabricLink& link : graph.links)
    if (routed(link.a) && routed(link.b)) names.push_back(link.name);
  return names;
}

// `links` naming fabric uplinks (`links = ["tor0-spine0"]`): a link_fault's
// only (read_link_fault() checks it has one). Empty when `links` names ranks;
// a word shaped like a link name that is none of the fabric's is refused
// here, naming the ones it has.
std::vector<std::string> read_uplink_words(const LabReader& r, const toml::table& t,
                                           const std::vector<std::string>& uplinks) {
  std::vector<std::string> named;
  const toml::array* array = t.get("links") ? t.get("links")->as_array() : nullptr;
  if (!array) return named;
  std::string known;
  for (const std::string& u : uplinks) known += (known.empty() ? "" : ", ") + u;
  bool ranks_too = false;
  for (const auto& item : *array) {
    if (!item.is_string()) return {};  // resolve_links() says what is wrong
    const std::string word = item.as_string()->get();
    if (std::find(uplinks.begin(), uplinks.end(), word) != uplinks.end()) {
      named.push_back(word);
    } else if (word.find('-') != std::string::npos) {
      r.fail(&item, "links",
             "'" + word + "' is not a link of this fabric: " +
                 (uplinks.empty() ? std::string("it has no uplinks (kind \"leaf_spine\" has)")
                                  : "its uplinks are " + known) +
                 "; a rank's link is \"rN\"");
    } else {
      ranks_too = true;
    }
  }
  if (!named.empty() && ranks_too)
    r.fail(t.get("links"), "links", "name either uplinks (" + known + ") or ranks' links, not both");
  return named;
}

ScenarioDefinition read_scenario(const LabReader& r, const toml::table& t, int ranks,
                                 const toml::table* quick, const std::vector<std::string>& uplinks) {
  std::set<std::string> known = kScenarioKeys;
  for (const std::string& key : link_setting_keys(SettingScope::kScenario)) known.insert(key);
  r.reject_unknown(t, known, "[[scenario]]");
  ScenarioDefinition s;
  s.name = r.string_at(t, "name", true);
  static const std::regex kName("[a-z0-9_-]+");
  if (!std::regex_match(s.name, kName)) r.fail(t.get("name"), "name", "expected [a-z0-9_-]+");
  s.condition = r.string_at(t, "condition", false, s.name);
  for (const std::string& key : link_setting_keys(SettingScope::kScenario)) {
    if (auto value = link_setting_value(r, t, key)) s.link_settings[key] = *value;
  }
  // A scenario may run its job on the first N ranks of the lab network, or
  // place its ranks on hosts by name (links then name hosts: every one may carry traffic).
  s.placement = read_placement(r, t, ranks);
  if (!s.placement.empty() && t.get("ranks"))
    r.fail(t.get("ranks"), "ranks", "give either ranks or placement (its length is the job's ranks)");
  s.ranks = s.placement.empty() ? static_cast<int>(r.integer_at(t, "ranks", ranks, 1, ranks))
                                : static_cast<int>(s.placement.size());
  const int link_hosts = s.placement.empty() ? s.ranks : ranks;
  s.fault_uplinks = read_uplink_words(r, t, uplinks);
  if (s.fault_uplinks.empty())
    s.link_ranks = resolve_links(r, t.get("links"), s.links, link_hosts);
  else
    s.links = s.fault_uplinks;  // no rank's link: resolve_link_words() passes them by
  s.overrides = read_overrides(r, t, link_hosts);
  if (s.ranks < ranks && s.placement.empty()) {
    // The grader draws a `from = "seed"` rank over the lab's ranks.
    std::vector<std::string> words = s.links;
    for (const LinkOverride& o : s.overrides) words.insert(words.end(), o.links.begin(), o.links.end());
    for (const std::string& word : words) {
      if (word.rfind("seed:", 0) == 0)
        r.fail(t.get("ranks"), "ranks",
               "a scenario with a seed: link runs on every rank of the lab (the grader draws "
               "the rank over all " + std::to_string(ranks) + ")");
    }
  }
  s.neighbours = read_neighbours(r, t, ranks);
  s.flow_probe_s = static_cast<int>(r.integer_at(t, "flow_probe_s", 0, 0, 600));
  s.deadline_s = r.number_at(t, "deadline_s", s.deadline_s, 1, 86400);
  s.stall_s = r.number_at(t, "stall_s", s.stall_s, 1, 86400);
  s.deadline = relative_limit_at(r, t, "deadline");
  s.stall = relative_limit_at(r, t, "stall");
  if (quick) {
    s.deadline_s = r.number_at(*quick, "deadline_s", s.deadline_s, 1, 86400);
    s.stall_s = r.number_at(*quick, "stall_s", s.stall_s, 1, 86400);
    // A shorter probe where there is one; none where there was none.
    if (s.flow_probe_s > 0)
      s.flow_probe_s = static_cast<int>(r.integer_at(*quick, "flow_probe_s", s.flow_probe_s, 1, 600));
  }
  return s;
}

// The same job: the same workload parameters, leaving out those that say
// how fast the cluster is rather than what it runs (a slow worker is the
// same job on a worse machine, as a slow link is the same job on a worse
// network), and how its collectives use the fabric (`channels`: the same
// gradients over more connections, as NCCL_IB_QPS_PER_CONNECTION is set on
// the cluster, not in the model).
bool same_job(const WorkloadDefinition& a, const WorkloadDefinition& b) {
  static const std::set<std::string> kMachine = {"compute_slowdown", "slow_rank",
                                                  "step_compute_ms", "channels"};
  auto job = [&](const WorkloadDefinition& w) {
    std::map<std::string, std::string> params;
    for (const auto& [key, value] : w.params)
      if (!kMachine.count(key)) params[key] = value;
    return params;
  };
  return a.kind == b.kind && job(a) == job(b);
}

// A relative limit multiplies the time of a scenario that has run before it.
void check_relative_limits(const LabReader& r, const std::vector<const toml::table*>& tables,
                           const LabDefinition& lab) {
  for (size_t i = 0; i < lab.scenarios.size(); ++i) {
    const ScenarioDefinition& s = lab.scenarios[i];
    for (const auto& [key, limit] : {std::pair{"deadline", &s.deadline}, {"stall", &s.stall}}) {
      if (!limit->set()) continue;
      std::vector<std::string> earlier;
      for (size_t j = 0; j < i; ++j) earlier.push_back(lab.scenarios[j].name);
      if (std::find(earlier.begin(), earlier.end(), limit->scenario) == earlier.end())
        r.fail(tables[i]->get(key), key,
               "expected a scenario that runs before this one (" +
                   (earlier.empty() ? std::string("none does") : join(earlier)) + "), got '" +
                   limit->scenario + "'");
    }
  }
}

// A slowdown compares one job under two networks, so a baseline must run
// the same workload as the scenario it measures.
void resolve_baselines(const LabReader& r, const std::vector<const toml::table*>& tables,
                       LabDefinition& lab) {
  const auto find = [&](const std::string& name) -> const ScenarioDefinition* {
    for (const ScenarioDefinition& s : lab.scenarios)
      if (s.name == name) return &s;
    return nullptr;
  };
  // Without a clean scenario there is no yardstick unless a scenario names one.
  const ScenarioDefinition* usual = find("clean");
  for (size_t i = 0; i < lab.scenarios.size(); ++i) {
    ScenarioDefinition& s = lab.scenarios[i];
    const toml::table& t = *tables[i];
    if (s.baseline.empty()) {
      if (usual && same_job(usual->workload, s.workload) && usual->ranks == s.ranks)
        s.baseline = usual->name;
      continue;
    }
    const ScenarioDefinition* base = find(s.baseline);
    if (!base) {
      r.fail(t.get("baseline"), "baseline",
             "no scenario '" + s.baseline + "' in this lab (" + join(lab.scenario_names()) + ")");
    }
    if (!same_job(base->workload, s.workload)) {
      r.fail(t.get("baseline"), "baseline",
             "scenario '" + s.baseline + "' runs another workload; a baseline must run the same one");
    }
    if (base->ranks != s.ranks) {
      r.fail(t.get("baseline"), "baseline",
             "scenario '" + s.baseline + "' runs on " + std::to_string(base->ranks) +
                 " ranks, this one on " + std::to_string(s.ranks) + "; a baseline must run the same job");
    }
  }
}

bool is_lab_folder(const fs::path& dir) {
  static const std::regex kFolder("[0-9][0-9]-[a-z0-9-]+");
  return std::regex_match(dir.filename().string(), kFolder) && fs::exists(dir / "lab.toml");
}

// The top level names only known tables, and those that must be tables are.
void check_top_level(const LabReader& r, const toml::table& root) {
  r.reject_unknown(root,
                   {"lab", "workload", "trainer", "topology", "report", "quick", "scenario",
                    "exercise", "sweep", "lesson", "draw"},
                   "the top level");
  for (const char* table : {"lab", "workload", "trainer", "topology", "report", "quick"}) {
    if (const toml::node* node = root.get(table); node && !node->is_table())
      r.fail(node, table, std::string("expected a table [") + table + "]");
  }
}

// Where the lab is (path, folder) and [lab]: its id, which must be the
// folder's number, title and summary.
LabDefinition read_identity(const LabReader& r, const toml::table& root) {
  const std::string& lab_toml = r.path();
  LabDefinition lab;
  lab.path = lab_toml;
  lab.dir = fs::path(lab_toml).parent_path().string();
  lab.name = fs::path(lab_toml).parent_path().filename().string();

  const toml::table* meta = root["lab"].as_table();
  if (!meta) throw input_error_at(lab_toml, 1, "missing table [lab]");
  r.reject_unknown(*meta, {"id", "title", "summary"}, "[lab]");
  lab.id = r.string_at(*meta, "id", true);
  lab.title = r.string_at(*meta, "title", true);
  lab.summary = r.string_at(*meta, "summary", false);
  if (lab.name.rfind(lab.id + "-", 0) != 0) {
    r.fail(meta->get("id"), "id", "expected \"" + lab.name.substr(0, 2) + "\" (the folder's number)");
  }
  return lab;
}

// [topology]: the fabric kind, drawn for its ranks (so a kind that cannot
// hold them is refused here), and its fabric-scope settings.
void read_topology(const LabReader& r, const toml::table& topology, FabricDefinition& fabric) {
  std::set<std::string> known = {"ranks", "kind", "segmentation_offload"};
  for (const std::string& key : link_setting_keys(SettingScope::kFabric)) known.insert(key);
  r.reject_unknown(topology, known, "[topology]");
  if (const toml::node* offload = topology.get("segmentation_offload")) {
    if (!offload->is_boolean()) r.fail(offload, "segmentation_offload", "expected true or false");
    fabric.segmentation_offload = offload->as_boolean()->get();
  }
  fabric.ranks = static_cast<int>(r.integer_at(topology, "ranks", 2, 1, kMaxRanks));
  fabric.kind = r.string_at(topology, "kind", false, fabric.kind);
  FabricGraph graph;
  try {
    graph = draw_fabric(fabric.kind, fabric.ranks);
  } catch (const std::invalid_argument& e) {
    r.fail(topology.get("kind") ? topology.get("kind") : topology.get("ranks"), "kind", e.what());
  }
  fabric.link_settings = read_fabric_settings(r, topology, graph);
}

// [report]: the charts (the defaults when not given) and tables, by name.
void read_report(const LabReader& r, const toml::table& root, LabDefinition& lab) {
  lab.charts = report::default_charts();
  const toml::table* report = root["report"].as_table();
  if (!report) return;
  r.reject_unknown(*report, {"charts", "tables"}, "[report]");
  if (const toml::node* charts = report->get("charts")) {
    lab.charts = r.names_at(charts, "charts", "chart", report::chart_names(),
                            [](const std::string& n) { return report::find_chart(n) != nullptr; });
  }
  if (const toml::node* tables = report->get("tables")) {
    lab.tables = r.names_at(tables, "tables", "table", report::table_names(),
                            [](const std::string& n) { return report::find_table(n) != nullptr; });
  }
}

// [quick] (with --quick): its workload parameters replace the lab's; the
// scenarios' own keys in it (deadline_s, ...) are read with each scenario.
void apply_quick(const LabReader& r, const toml::table& quick, const Workload& workload,
                 WorkloadDefinition& lab_workload) {
  for (const auto& [key, node] : quick) {
    const std::string k(key.str());
    if (workload.params().count(k)) {
      lab_workload.params[k] = param_value(r, workload, k, node);
    } else if (k != "deadline_s" && k != "stall_s" && k != "flow_probe_s") {
      throw input_error_at(
          r.path(), static_cast<long>(key.source().begin.line),
          "unknown key '" + k +
              "' in [quick] (a workload parameter, deadline_s, stall_s or flow_probe_s)");
    }
  }
}

// The workload kind's own check of its parameters, its error pointed at the
// parameter it names, wherever that was set ([quick], [workload], [trainer]).
void check_workload(const LabReader& r, const toml::table& root, const toml::table* quick,
                    const Workload& workload, const WorkloadDefinition& lab_workload) {
  try {
    workload.check(lab_workload);
  } catch (const std::invalid_argument& e) {
    std::string key = "workload";
    const toml::node* table = root.get("workload") ? root.get("workload") : root.get("trainer");
    r.fail(
        param_named_in(e.what(), {quick, root["workload"].as_table(), root["trainer"].as_table()},
                       table, key),
        key, e.what());
  }
}

// Every scenario's table: the written [[scenario]]s, then each sweep's
// points (sweep.h) as more. `tables` points into `points` for those.
struct ScenarioTables {
  std::vector<SweepPoint> points;
  std::vector<const toml::table*> tables;
  size_t written = 0;  // tables[0, written) are written, the rest points

  // The sweep point behind tables[i], null for a written scenario.
  const SweepPoint* point(size_t i) const { return i >= written ? &points[i - written] : nullptr; }

  // A move keeps the points where they are; a copy would leave `tables`
  // pointing into the original.
  ScenarioTables() = default;
  ScenarioTables(ScenarioTables&&) = default;
  ScenarioTables(const ScenarioTables&) = delete;
  ScenarioTables& operator=(const ScenarioTables&) = delete;
};

ScenarioTables scenario_tables(const LabReader& r, const toml::table& root, int ranks) {
  ScenarioTables out;
  if (const toml::node* written = root.get("scenario")) {
    const toml::array* array = written->as_array();
    if (!array) r.fail(written, "scenario", "expected [[scenario]] tables");
    for (const auto& node : *array) {
      if (!node.as_table()) r.fail(&node, "scenario", "expected [[scenario]] tables");
      out.tables.push_back(node.as_table());
    }
  }
  out.written = out.tables.size();
  out.points = expand_sweeps(r.path(), root, ranks);
  for (const SweepPoint& point : out.points) out.tables.push_back(&point.scenario);
  if (out.tables.empty()) {
    throw input_error_at(r.path(), 1, "expected at least one [[scenario]] or [[sweep]]");
  }
  return out;
}

// `link_fault = "down 2s at step 6"` (link_fault_spec.h) on the scenario's
// `links`: the far end of each link goes down, so the fabric needs a switch
// between the ranks (a pair's far end is the other rank's own device, whose
// routes would go with it), and the links must be named.
// `link_fault = "impair 'loss 5%' for 3s at step 6"`: the words are `impair`'s,
// and the scenario's own impairment (restored after) must be whole on its
// links: no [[scenario.override]] that sets `impair` on some of them.
// `links = ["tor0-spine0"]` (a fabric uplink): a `down` with its detection
// time only, and no per-link setting beside it.
std::optional<LinkFaultSpec> read_link_fault(const LabReader& r, const toml::table& t,
                                             const ScenarioDefinition& s,
                                             const FabricDefinition& fabric) {
  const toml::node* node = t.get("link_fault");
  if (!node && !s.fault_uplinks.empty())
    r.fail(t.get("links"), "links",
           "an uplink in `links` is for a link_fault (\"down 10s at step 8 detect 300ms\"): "
           "per-link settings go on ranks' links");
  if (!node) return std::nullopt;
  if (!node->is_string()) r.fail(node, "link_fault", "expected a string like \"down 2s at step 6\"");
  LinkFaultSpec fault;
  try {
    fault = parse_link_fault(std::string(**node->as_string()));
  } catch (const std::invalid_argument& e) {
    r.fail(node, "link_fault", e.what());
  }
  if (!s.fault_uplinks.empty()) {
    // An uplink: the routers route around it once they detect it, wherever the ranks are.
    if (fault.kind != LinkFaultKind::kDown)
      r.fail(node, "link_fault",
             "an uplink (links = [\"tor0-spine0\"]) takes a `down` fault with its detection "
             "time (\"down 10s at step 8 detect 300ms\"): an impairment change goes on ranks' "
             "links");
    if (fault.detect_s <= 0)
      r.fail(node, "link_fault",
             "an uplink's fault needs its detection time: \"... detect DURATION\" (e.g. \"down "
             "10s at step 8 detect 300ms\"), after which the routers withdraw its routes");
    if (!s.every_link_setting().empty())
      r.fail(node, "link_fault", "an uplink's fault takes no per-link setting in its scenario");
    return fault;
  }
  if (fault.detect_s > 0)
    r.fail(node, "link_fault",
           "detect is for an uplink (links = [\"tor0-spine0\"]): a rank's host has one link and "
           "no route around it to move to");
  if (fault.kind == LinkFaultKind::kImpair) {
    try {
      impair_setting().validate(fault.impair);
    } catch (const std::invalid_argument& e) {
      r.fail(node, "link_fault", "impair '" + fault.impair + "': " + e.what());
    }
    for (const LinkOverride& o : s.overrides)
      if (o.link_settings.count(impair_setting().key()))
        r.fail(node, "link_fault",
               "an impairment change restores the scenario's own impairment, which a "
               "[[scenario.override]] setting `impair` on some links splits: drop one of them");
  }
  if (fault.kind == LinkFaultKind::kDown && draw_fabric(fabric.kind, fabric.ranks).switches.empty())
    r.fail(node, "link_fault",
           "a link fault needs a switch between the ranks ([topology] kind \"switch\" or "
           "\"leaf_spine\"): this fabric has none");
  if (!t.get("links"))
    r.fail(node, "link_fault", "name the links that fail with `links` (\"r1\", \"seed:LABEL\")");
  if (!s.placement.empty())
    r.fail(node, "link_fault", "a link fault goes with ranks on their own hosts: no placement");
  return fault;
}

// Each table as a scenario of `lab`: names unique, link settings only where
// there are links, and only on links the fabric has.
void read_scenarios(const LabReader& r, const toml::table& root, const ScenarioTables& tables,
                    const toml::table* quick, LabDefinition& lab) {
  std::set<std::string> names;
  const std::vector<std::string> uplinks = uplink_names(lab.fabric);
  for (size_t i = 0; i < tables.tables.size(); ++i) {
    const toml::table* t = tables.tables[i];
    const SweepPoint* point = tables.point(i);
    ScenarioDefinition s = read_scenario(r, *t, lab.ranks, quick, uplinks);
    read_scenario_workload(r, *t, lab, quick, s);
    s.baseline = r.string_at(*t, "baseline", false);
    if (point) {  // its table has no settings: the sweep parsed them (sweep.h)
      s.link_settings = point->link_settings;
      s.sweep = point->sweep;
      s.sweep_value = point->value;
    }
    if (!names.insert(s.name).second) {
      // A point's table has no lines: name its sweep's.
      const toml::node* at = point ? root.get("sweep") : t->get("name");
      r.fail(at, "name", "scenario '" + s.name + "' defined twice");
    }
    if (!s.every_link_setting().empty() && lab.ranks == 1) {
      const std::string key = s.every_link_setting().front().first;
      r.fail(t->get(key) ? t->get(key) : t->get("override"), key, "a 1-rank lab has no link to set");
    }
    check_against_fabric(r, *t, s, lab.fabric);
    s.link_fault = read_link_fault(r, *t, s, lab.fabric);
    lab.scenarios.push_back(std::move(s));
  }
}

// `conditions.NAME` in an exercise's or the lesson's paths: NAME must be a
// draw whose every choice is a number (draw.h).
void check_condition_paths(const std::string& path, const LabDefinition& lab) {
  static const std::regex kCondition(R"(conditions\.([a-z0-9_]+))");
  const auto check = [&](const std::string& text, long line) {
    for (std::sregex_iterator it(text.begin(), text.end(), kCondition), end; it != end; ++it) {
      const std::string name = (*it)[1];
      bool numbers = false;
      for (const Draw& d : lab.draws) {
        if (d.name != name) continue;
        numbers = true;
        for (const DrawChoice& c : d.choices) numbers = numbers && c.number.has_value();
      }
      if (!numbers)
        throw input_error_at(path, line,
                             "'conditions." + name + "' in '" + text +
                                 "': expected a [[draw]] of that name whose choices are numbers");
    }
  };
  for (const Exercise& e : lab.exercises) {
    check(e.value, e.line);
    check(e.check, e.line);
    for (const ChoiceOption& o : e.options) check(o.when, e.line);
  }
  for (const LessonCheck& l : lab.lesson) check(l.check, l.line);
}

LabDefinition load_lab_with(const std::string& lab_toml, bool quick, const Conditions& given,
                            bool check_every_choice) {
  LabReader r(lab_toml);
  toml::table root = parse_toml_file(lab_toml);
  const std::vector<Draw> draws = read_draws(lab_toml, root);
  const Conditions conditions = complete_conditions(draws, given, lab_toml);
  fill_conditions(lab_toml, root, draws, conditions);
  // A damaged [quick] is a damaged lab, with --quick or without.
  if (!quick && root["quick"]) load_lab_with(lab_toml, true, conditions, false);
  check_top_level(r, root);

  LabDefinition lab = read_identity(r, root);
  if (const toml::table* topology = root["topology"].as_table())
    read_topology(r, *topology, lab.fabric);
  lab.ranks = lab.fabric.ranks;
  lab.workload = read_workload(r, root);
  const Workload& workload = find_workload(lab.workload.kind);
  read_report(r, root, lab);

  const toml::table* quick_table = quick ? root["quick"].as_table() : nullptr;
  if (quick_table) apply_quick(r, *quick_table, workload, lab.workload);
  check_workload(r, root, quick_table, workload, lab.workload);

  const ScenarioTables tables = scenario_tables(r, root, lab.ranks);
  read_scenarios(r, root, tables, quick_table, lab);
  resolve_baselines(r, tables.tables, lab);
  check_relative_limits(r, tables.tables, lab);
  lab.exercises = read_exercises(lab_toml, root, lab.scenario_names());
  lab.lesson = read_lesson(lab_toml, root, lab.scenario_names());
  lab.draws = draws;
  lab.conditions = conditions;
  check_condition_paths(lab_toml, lab);
  if (!check_every_choice) return lab;
  for (const Draw& d : draws) {
    for (const DrawChoice& c : d.choices) {
      if (c.text == conditions.at(d.name)) continue;
      Conditions other = conditions;
      other[d.name] = c.text;
      try {
        load_lab_with(lab_toml, quick, other, false);
      } catch (const InputError& e) {
        // Which choice, on the message's first line (a setting's error may
        // go on with a caret under the offending word).
        std::string message = e.what();
        const std::string which = " (when the seed draws " + d.name + " = \"" + c.text +
                                  "\", the [[draw]] at line " + std::to_string(d.line) + ")";
        message.insert(std::min(message.find('\n'), message.size()), which);
        throw InputError(message);
      }
    }
  }
  return lab;
}

}  // namespace

LabDefinition load_lab(const std::string& lab_toml, bool quick, const Conditions& conditions) {
  return load_lab_with(lab_toml, quick, conditions, true);
}

std::optional<double> LabDefinition::condition_number(const std::string& name) const {
  const auto it = conditions.find(name);
  if (it == conditions.end()) return std::nullopt;
  for (const Draw& d : draws)
    if (d.name == name) return d.choices[d.index_of(it->second).value_or(0)].number;
  return std::nullopt;
}

std::string ScenarioDefinition::impair() const {
  const auto it = link_settings.find(impair_setting().key());
  return it == link_settings.end() ? "" : it->second.text();
}

std::string FabricDefinition::link_setting(const std::string& key) const {
  const auto it = link_settings.find(key);
  return it == link_settings.end() ? "" : it->second.text();
}

std::vector<std::pair<std::string, SettingValue>> ScenarioDefinition::every_link_setting() const {
  std::vector<std::pair<std::string, SettingValue>> out(link_settings.begin(), link_settings.end());
  for (const LinkOverride& o : overrides)
    for (const auto& setting : o.link_settings) out.push_back(setting);
  return out;
}

std::vector<std::string> LabDefinition::scenario_names() const {
  std::vector<std::string> names;
  for (const ScenarioDefinition& s : scenarios) names.push_back(s.name);
  return names;
}

int64_t lab_model_params(const LabDefinition& lab) {
  return find_workload(lab.workload.kind).model_params(lab.workload);
}

std::string default_labs_dir() {
  if (const char* env = std::getenv("FABRICLAB_LABS")) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate :
         {exe.parent_path().parent_path() / "labs", exe.parent_path().parent_path() / "share/fabriclab/labs"}) {
      if (fs::is_directory(candidate)) return candidate.string();
    }
  }
  return std::string(fabriclab::build_paths::source_dir()) + "/labs";
}

std::vector<std::string> list_lab_files(const std::string& labs_dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(labs_dir, ec)) {
    if (entry.is_directory() && is_lab_folder(entry.path())) {
      files.push_back((entry.path() / "lab.toml").string());
    }
  }
  if (ec) throw InputError("labs folder " + labs_dir + ": " + ec.message() + " (set FABRICLAB_LABS or --labs)");
  std::sort(files.begin(), files.end());
  return files;
}

std::string find_lab_file(const std::string& labs_dir, const std::string& which) {
  std::string number = which;
  if (number.size() == 1 && std::isdigit(static_cast<unsigned char>(number[0]))) number = "0" + number;
  std::string known;
  for (const std::string& file : list_lab_files(labs_dir)) {
    const std::string folder = fs::path(file).parent_path().filename().string();
    if (folder == which || folder.rfind(number + "-", 0) == 0) return file;
    known += (known.empty() ? "" : ", ") + folder;
  }
  throw InputError("no lab '" + which + "' in " + labs_dir + " (labs: " +
                   (known.empty() ? "none" : known) + ")");
}

}  // namespace fabriclab::runner
