#include "runner/lab/sweep.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <stdexcept>

#include "common/input_error.h"
#include "runner/lab/link_plan.h"
#include "runner/lab/toml_file.h"
#include "runner/link/link_setting.h"

namespace fabriclab::runner {
namespace {

constexpr char kPlaceholder[] = "{}";

class SweepReader {
 public:
  SweepReader(const std::string& path, const toml::table& t) : path_(path), t_(t) {}

  [[noreturn]] void fail(const std::string& key, const std::string& expected) const {
    const toml::node* node = t_.get(key);
    const long line = static_cast<long>((node ? node->source() : t_.source()).begin.line);
    throw input_error_at(path_, line, "key '" + key + "' in [[sweep]]: " + expected);
  }

  std::string name() const {
    const auto name = t_["name"].value<std::string>();
    static const std::regex kName("[a-z0-9_]+");
    if (!name || !std::regex_match(*name, kName)) fail("name", "expected a string of [a-z0-9_]+");
    return *name;
  }

  static std::optional<double> drawn_number(const std::string& text) {
    static const std::regex kNumber(R"([0-9]+(\.[0-9]+)?)");
    if (!std::regex_match(text, kNumber)) return std::nullopt;
    return std::stod(text);
  }

  std::vector<double> values() const {
    const toml::array* array = t_["values"].as_array();
    if (!array || array->empty())
      fail("values", "expected a non-empty array of numbers, e.g. [0, 0.5, 1]");
    std::vector<double> out;
    for (const auto& item : *array) {
      // A drawn value ("{low_loss}", draw.h) arrives as the text of a number.
      const std::optional<double> drawn = item.is_string() ? drawn_number(item.as_string()->get())
                                                           : std::nullopt;
      if (!item.is_number() && !drawn)
        fail("values", item.is_string() ? "expected numbers; \"" + item.as_string()->get() +
                                              "\" is not one (a drawn value must be a number)"
                                        : std::string("expected numbers"));
      const double v = drawn ? *drawn : *toml_number(item);
      if (!(v >= 0) || !std::isfinite(v))  // nan, inf too
        fail("values", "expected finite numbers >= 0, got " + sweep_value_text(v));
      if (!out.empty() && v <= out.back())
        fail("values", "expected ascending, distinct values; " + sweep_value_text(v) + " follows " +
                           sweep_value_text(out.back()));
      out.push_back(v);
    }
    return out;
  }

  // The per-link settings the sweep sets: at least one a template with {}
  // for the value; the others are the same at every point (e.g. a sysctl
  // that holds for the whole sweep beside the swept impairment).
  std::vector<std::pair<std::string, std::string>> templates() const {
    std::vector<std::pair<std::string, std::string>> out;
    bool swept = false;
    for (const std::string& key : link_setting_keys(SettingScope::kScenario)) {
      if (!t_.get(key)) continue;
      const auto text = t_[key].value<std::string>();
      if (!text) fail(key, "expected a string");
      swept = swept || text->find(kPlaceholder) != std::string::npos;
      out.emplace_back(key, *text);
    }
    if (out.empty()) {
      std::string keys;
      for (const std::string& k : link_setting_keys(SettingScope::kScenario)) keys += (keys.empty() ? "" : ", ") + k;
      fail("name", "sets nothing: give a per-link setting with {} for the value (" + keys + ")");
    }
    if (!swept)
      fail(out.front().first,
           "expected the swept value's place marked {} in one per-link setting (e.g. \"loss {}%\")");
    return out;
  }

  // Each value put into each template, parsed as that setting parses it:
  // each point's settings, in the values' order.
  std::vector<std::map<std::string, SettingValue>> settings(
      const std::vector<std::pair<std::string, std::string>>& templates,
      const std::vector<double>& values) const {
    std::vector<std::map<std::string, SettingValue>> out(values.size());
    for (const auto& [key, text] : templates) {
      for (size_t i = 0; i < values.size(); ++i) {
        const std::string filled = fill(text, values[i]);
        try {
          out[i][key] = find_link_setting(key)->parse(filled);
        } catch (const std::invalid_argument& e) {
          fail(key, "with " + sweep_value_text(values[i]) + ": \"" + filled + "\": " + e.what());
        }
      }
    }
    return out;
  }

  void check_links(int ranks) const {
    const toml::node* node = t_.get("links");
    if (!node) return;
    const toml::array* array = node->as_array();
    if (!array || array->empty())
      fail("links", "expected an array like [\"r1\"] or [\"seed:lossy_rank\"]");
    for (const auto& item : *array) {
      if (!item.is_string()) fail("links", "expected strings like \"all\" or \"r1\"");
      try {
        validate_link_word(item.as_string()->get(), ranks);
      } catch (const std::invalid_argument& e) {
        fail("links", e.what());
      }
    }
  }

  double baseline(const std::vector<double>& values) const {
    if (!t_.get("baseline")) return values.front();
    const auto v = toml_number(*t_.get("baseline"));
    if (!v || std::find(values.begin(), values.end(), *v) == values.end())
      fail("baseline", "expected one of the sweep's values");
    return *v;
  }

  // A number key, checked here: the generated scenario has no lines of its own.
  void check_number(const std::string& key, double min, double max) const {
    if (!t_.get(key)) return;
    const auto v = toml_number(*t_.get(key));
    if (!v || !(*v >= min && *v <= max))  // nan too
      fail(key, fmt::format("expected a number in [{}, {}]", min, max));
  }

  static std::string fill(std::string text, double value) {
    for (size_t at; (at = text.find(kPlaceholder)) != std::string::npos;)
      text.replace(at, 2, sweep_value_text(value));
    return text;
  }

 private:
  const std::string& path_;
  const toml::table& t_;
};

const std::set<std::string> kSweepKeys = {"name",      "values",   "unit",
                                          "condition", "links",    "deadline_s",
                                          "stall_s",   "baseline", "flow_probe_s",
                                          "workload"};

}  // namespace

std::string sweep_value_text(double value) { return fmt::format("{}", value); }

std::string sweep_scenario_name(const std::string& sweep, double value) {
  std::string text = sweep_value_text(value);
  std::replace(text.begin(), text.end(), '.', 'p');
  return sweep + "-" + text;
}

std::vector<SweepPoint> expand_sweeps(const std::string& path, const toml::table& root, int ranks) {
  std::vector<SweepPoint> points;
  const toml::node* node = root.get("sweep");
  if (!node) return points;
  const toml::array* sweeps = node->as_array();
  if (!sweeps || !sweeps->is_array_of_tables())
    throw input_error_at(path, static_cast<long>(node->source().begin.line),
                         "key 'sweep': expected [[sweep]] tables");
  for (const auto& item : *sweeps) {
    const toml::table& t = *item.as_table();
    for (const auto& [key, value] : t) {
      const std::string k(key.str());
      if (!kSweepKeys.count(k) && !find_link_setting(k, SettingScope::kScenario)) {
        std::string known;
        for (const auto& s : kSweepKeys) known += s + ", ";
        for (const auto& s : link_setting_keys(SettingScope::kScenario)) known += s + " ";
        throw input_error_at(path, static_cast<long>(key.source().begin.line),
                             "unknown key '" + k + "' in [[sweep]] (known: " + known + ")");
      }
    }
    const SweepReader r(path, t);
    const std::string name = r.name();
    const std::vector<double> values = r.values();
    const auto templates = r.templates();
    std::vector<std::map<std::string, SettingValue>> settings = r.settings(templates, values);
    r.check_links(ranks);
    r.check_number("deadline_s", 1, 86400);
    r.check_number("stall_s", 1, 86400);
    r.check_number("flow_probe_s", 0, 600);
    if (t.get("flow_probe_s") && !t["flow_probe_s"].is_integer())
      r.fail("flow_probe_s", "expected an integer (seconds)");
    const std::string unit = t["unit"].value_or(std::string());
    const std::string condition = t["condition"].value_or(std::string());
    const std::string baseline = sweep_scenario_name(name, r.baseline(values));
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      SweepPoint point;
      point.sweep = name;
      point.value = v;
      point.link_settings = std::move(settings[i]);
      toml::table& s = point.scenario;
      s.insert("name", sweep_scenario_name(name, v));
      s.insert("condition",
               condition.empty() ? sweep_value_text(v) + unit : SweepReader::fill(condition, v));
      // `workload`: every point runs it (a scenario's own workload, checked
      // there); the baseline point too, so the slowdowns compare one job.
      for (const char* key : {"links", "deadline_s", "stall_s", "flow_probe_s", "workload"})
        if (const toml::node* copy = t.get(key))
          copy->visit([&](const auto& n) { s.insert(key, n); });
      s.insert("baseline", baseline);
      points.push_back(std::move(point));
    }
  }
  return points;
}

}  // namespace fabriclab::runner
