#include "runner/lab/exercise_reader.h"

#include <toml++/toml.h>
#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "common/input_error.h"
#include "runner/lab/toml_file.h"
#include "runner/lab/answer_vocabulary.h"

namespace fabriclab::runner {

namespace {

// Reads one exercise table; every problem becomes "path:line: exercise 'id': ...".
class ExerciseReader {
 public:
  ExerciseReader(const std::string& path, const toml::table& table, const ScenarioNames& scenarios)
      : path_(path), table_(table), scenarios_(scenarios) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& message) const {
    const long line = node ? line_of(*node) : line_of(table_);
    throw input_error_at(path_, line, "exercise '" + id_ + "': " + message);
  }

  std::string text(const char* key, bool required) const {
    const toml::node* node = table_.get(key);
    if (!node) {
      if (required) fail(nullptr, std::string("missing key '") + key + "'");
      return "";
    }
    if (!node->is_string()) fail(node, std::string("key '") + key + "': expected a string");
    return **node->as_string();
  }

  std::vector<std::string> texts(const char* key) const {
    std::vector<std::string> out;
    const toml::node* node = table_.get(key);
    if (!node) return out;
    if (!node->is_array())
      fail(node, std::string("key '") + key + "': expected an array of strings");
    for (const toml::node& item : *node->as_array()) {
      if (!item.is_string())
        fail(&item, std::string("key '") + key + "': expected an array of strings");
      out.push_back(**item.as_string());
    }
    return out;
  }

  Exercise read() {
    static const std::set<std::string> kKeys = {"id",   "prompt",    "points",  "hints",
                                                "kind", "from",      "value",   "answer",
                                                "unit", "tolerance", "options", "check",
                                                "before", "explain", "depends_on_run"};
    Exercise ex;
    ex.line = line_of(table_);
    id_ = text("id", true);
    if (!std::regex_match(id_, std::regex("[a-z0-9_-]+")))
      fail(table_.get("id"), "id: expected [a-z0-9_-]+");
    ex.id = id_;
    for (const auto& [key, node] : table_) {
      if (!kKeys.count(std::string(key.str())))
        fail(&node, "unknown key '" + std::string(key.str()) + "'");
    }
    ex.prompt = text("prompt", true);
    if (const toml::node* points = table_.get("points")) {
      if (!points->is_integer() || **points->as_integer() < 0)
        fail(points, "points: expected an integer >= 0");
      ex.points = static_cast<int>(**points->as_integer());
    }
    ex.hints = texts("hints");
    if (ex.hints.empty())
      fail(nullptr, "missing key 'hints' (at least one hint for a wrong answer)");
    read_kind(ex);
    if (ex.kind == Kind::kProperty) {
      if (table_.get("from"))
        fail(table_.get("from"), "a property is checked on the recording; drop 'from'");
      if (table_.get("depends_on_run"))
        fail(table_.get("depends_on_run"), "depends_on_run: a property has no answer; drop the key");
      ex.check = text("check", true);
      try {
        validate_check(ex.check, scenarios_);
      } catch (const std::invalid_argument& e) {
        fail(table_.get("check"), e.what());
      }
      return ex;
    }
    if (ex.kind == Kind::kPrediction) {
      read_prediction(ex);
    } else {
      for (const char* key : {"before", "explain"}) {
        if (table_.get(key))
          fail(table_.get(key), std::string("'") + key + "' applies to kind prediction only");
      }
      read_from(ex);
    }
    read_depends_on_run(ex);
    ex.value = text("value", false);
    read_answer(ex);
    if (ex.kind == Kind::kNumber || ex.kind == Kind::kPrediction) {
      ex.unit = text("unit", false);
      read_tolerance(ex);
      if (ex.kind == Kind::kPrediction && !table_.get("tolerance"))
        fail(nullptr,
             "missing key 'tolerance' (how close to the measured value earns all the points: "
             "\"N%\" or an absolute number)");
    } else {
      for (const char* key : {"unit", "tolerance"}) {
        if (table_.get(key))
          fail(table_.get(key),
               std::string("'") + key + "' applies to kinds number and prediction only");
      }
    }
    if (ex.kind == Kind::kChoice) read_options(ex);
    try {
      validate_derivation(ex, scenarios_);
    } catch (const std::invalid_argument& e) {
      fail(table_.get("value"), e.what());
    }
    return ex;
  }

 private:
  void read_kind(Exercise& ex) const {
    const std::string kind = text("kind", true);
    if (kind == "number")
      ex.kind = Kind::kNumber;
    else if (kind == "choice")
      ex.kind = Kind::kChoice;
    else if (kind == "rank")
      ex.kind = Kind::kRank;
    else if (kind == "ordering")
      ex.kind = Kind::kOrdering;
    else if (kind == "property")
      ex.kind = Kind::kProperty;
    else if (kind == "prediction")
      ex.kind = Kind::kPrediction;
    else
      fail(table_.get("kind"), "kind '" + kind +
                                   "': expected number, choice, rank, ordering, property or "
                                   "prediction");
  }

  // A prediction is compared with the student's own recording: no `from`;
  // `before` names the scenario it must be recorded before; `explain` is one
  // sentence, or { over = "..", under = ".." } by the direction of the miss.
  void read_prediction(Exercise& ex) const {
    if (table_.get("from"))
      fail(table_.get("from"),
           "a prediction is compared with your recording; drop 'from' (it is always "
           "\"recording\")");
    ex.from = Source::kRecording;
    ex.before = text("before", true);
    if (std::find(scenarios_.begin(), scenarios_.end(), ex.before) == scenarios_.end()) {
      std::string names;
      for (const std::string& s : scenarios_) names += (names.empty() ? "" : ", ") + s;
      fail(table_.get("before"),
           "before '" + ex.before + "': expected one of the lab's scenarios (" + names + ")");
    }
    const toml::node* explain = table_.get("explain");
    if (!explain) return;
    if (explain->is_string()) {
      ex.explain_over = ex.explain_under = **explain->as_string();
    } else if (const toml::table* sides = explain->as_table()) {
      for (const auto& [key, node] : *sides) {
        const std::string side(key.str());
        if ((side != "over" && side != "under") || !node.is_string())
          fail(&node, "explain: expected { over = \"..\", under = \"..\" } (strings)");
        (side == "over" ? ex.explain_over : ex.explain_under) = **node.as_string();
      }
    } else {
      fail(explain,
           "explain: expected a string, or { over = \"..\", under = \"..\" } (what a "
           "prediction above / below the measured value did not account for)");
    }
  }

  void read_from(Exercise& ex) const {
    const std::string from = text("from", true);
    if (from == "recording")
      ex.from = Source::kRecording;
    else if (from == "lab")
      ex.from = Source::kLab;
    else if (from == "seed")
      ex.from = Source::kSeed;
    else
      fail(table_.get("from"), "from '" + from + "': expected recording, lab or seed");
  }

  void read_depends_on_run(Exercise& ex) const {
    const toml::node* node = table_.get("depends_on_run");
    if (!node) return;
    if (!node->is_boolean()) fail(node, "depends_on_run: expected true or false");
    if (*ex.from == Source::kLab)
      fail(node, "depends_on_run: from = \"lab\" never depends on the run; drop the key");
    ex.depends_on_run = node->as_boolean()->get();
  }

  void read_answer(Exercise& ex) const {
    const toml::node* node = table_.get("answer");
    if (!node) return;
    if (*ex.from != Source::kLab || ex.kind == Kind::kNumber) {
      fail(node,
           "'answer' is a literal the lab states: only with from = \"lab\" and kind choice, rank "
           "or ordering");
    }
    if (ex.kind == Kind::kOrdering)
      ex.answer_order = texts("answer");
    else
      ex.answer = text("answer", true);
  }

  void read_tolerance(Exercise& ex) const {
    const toml::node* node = table_.get("tolerance");
    if (!node) return;
    if (node->is_number()) {
      ex.tolerance.absolute = *toml_number(*node);
      if (!(ex.tolerance.absolute >= 0)) fail(node, "tolerance: expected >= 0");  // nan too
      return;
    }
    std::smatch m;
    const std::string text = node->is_string() ? **node->as_string() : "";
    if (!std::regex_match(text, m, std::regex(R"(([0-9]+(\.[0-9]+)?)%)"))) {
      fail(node,
           "tolerance: expected an absolute number (same unit as the answer) or a string \"N%\"");
    }
    ex.tolerance.relative_percent = std::stod(m[1]);
  }

  void read_options(Exercise& ex) const {
    const toml::node* node = table_.get("options");
    if (!node || !node->is_array() || node->as_array()->empty()) {
      fail(node, "a choice needs options = [{ key = \"..\", text = \"..\", when = \"..\" }, ...]");
    }
    std::set<std::string> keys;
    for (const toml::node& item : *node->as_array()) {
      const toml::table* t = item.as_table();
      if (!t) fail(&item, "options: expected tables { key, text, when }");
      ChoiceOption option;
      option.key = t->get("key") && t->get("key")->is_string() ? **t->get("key")->as_string() : "";
      option.text =
          t->get("text") && t->get("text")->is_string() ? **t->get("text")->as_string() : "";
      option.when =
          t->get("when") && t->get("when")->is_string() ? **t->get("when")->as_string() : "";
      if (!std::regex_match(option.key, std::regex("[a-z0-9_+-]+")) || option.text.empty()) {
        fail(&item, "an option needs key (a word [a-z0-9_+-]+) and text");
      }
      if (!keys.insert(option.key).second)
        fail(&item, "option key '" + option.key + "' appears twice");
      if (!option.when.empty()) {
        if (*ex.from != Source::kRecording)
          fail(&item, "'when' applies to choices from the recording");
        try {
          validate_check(option.when, scenarios_);
        } catch (const std::invalid_argument& e) {
          fail(&item, e.what());
        }
      }
      ex.options.push_back(option);
    }
    if (*ex.from == Source::kLab && !keys.count(ex.answer)) {
      fail(table_.get("answer"), "answer '" + ex.answer + "' is not one of the options");
    }
    if (*ex.from == Source::kRecording) {
      bool any_when = false;
      for (const auto& o : ex.options) any_when = any_when || !o.when.empty();
      if (!any_when)
        fail(node, "a choice from the recording needs 'when' on the options that can be right");
    }
  }

  std::string path_;
  const toml::table& table_;
  const ScenarioNames& scenarios_;
  std::string id_ = "?";
};

}  // namespace

std::vector<Exercise> read_exercises(const std::string& path, const toml::table& root,
                                     const ScenarioNames& scenarios) {
  std::vector<Exercise> exercises;
  const toml::node* tables = root.get("exercise");
  if (!tables) return exercises;
  if (!tables->is_array_of_tables())
    throw input_error_at(path, line_of(*tables), "'exercise': expected [[exercise]] tables");
  std::set<std::string> ids;
  for (const toml::node& node : *tables->as_array()) {
    Exercise ex = ExerciseReader(path, *node.as_table(), scenarios).read();
    if (!ids.insert(ex.id).second)
      throw input_error_at(path, ex.line, "exercise id '" + ex.id + "' appears twice");
    exercises.push_back(std::move(ex));
  }
  return exercises;
}

}  // namespace fabriclab::runner
