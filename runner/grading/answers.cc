#include "runner/grading/answers.h"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>

#include "common/input_error.h"
#include "runner/lab/toml_file.h"

namespace fabriclab::runner::grading {

namespace {

std::string option_keys(const Exercise& ex) {
  std::string out;
  for (const auto& o : ex.options) out += (out.empty() ? "" : ", ") + o.key;
  return out;
}

Answer read_answer(const std::string& path, const Exercise& ex, const toml::node& node) {
  Answer a;
  auto fail = [&](const std::string& expected) -> InputError {
    return input_error_at(path, line_of(node), "answer '" + ex.id + "': expected " + expected);
  };
  if (const toml::array* array = node.as_array()) {
    if (ex.kind != Kind::kOrdering) {
      if (array->empty()) return a;  // a blank left as []
      throw fail(ex.kind == Kind::kNumber || ex.kind == Kind::kPrediction ? "a number"
                                                                          : "a string");
    }
    for (const toml::node& item : *array) {
      if (!item.is_string()) throw fail("an array of scenario names");
      a.list.push_back(**item.as_string());
    }
    a.given = !a.list.empty();
    return a;
  }
  if (node.is_string() && (**node.as_string()).empty()) return a;  // not answered yet
  switch (ex.kind) {
    case Kind::kNumber:
      if (node.is_number()) {
        a.number = *toml_number(node);
        if (!std::isfinite(a.number)) throw fail("a finite number, not " + std::to_string(a.number));
      } else if (node.is_string() && **node.as_string() == "none") {
        a.none = true;  // "there is no such value", e.g. the slowdown of a stalled scenario
      } else {
        const std::string text = node.is_string() ? **node.as_string() : "";
        std::istringstream in(text);
        if (!(in >> a.number) || !(in >> std::ws).eof()) {
          throw fail("a number" + std::string(ex.unit.empty() ? "" : " (in " + ex.unit + ")") +
                     " or \"none\"");
        }
      }
      break;
    case Kind::kChoice:
      if (!node.is_string()) throw fail("one of: " + option_keys(ex));
      a.text = **node.as_string();
      if (std::none_of(ex.options.begin(), ex.options.end(),
                       [&](const auto& o) { return o.key == a.text; })) {
        throw fail("one of: " + option_keys(ex) + " (got '" + a.text + "')");
      }
      break;
    case Kind::kRank:
      if (node.is_integer() && **node.as_integer() >= 0) {
        a.text = "r" + std::to_string(**node.as_integer());
      } else if (node.is_string() && std::regex_match(**node.as_string(), std::regex("r?[0-9]+"))) {
        a.text = **node.as_string();
        if (a.text[0] != 'r') a.text = "r" + a.text;
      } else {
        throw fail("a rank id like \"r1\" (or the integer 1)");
      }
      break;
    case Kind::kOrdering:
      throw fail("an array of scenario names");
    case Kind::kProperty:
      throw fail("no answer (a property is checked on your recording; remove this key)");
    case Kind::kPrediction: {
      // A prediction is a number: "none" predicts nothing.
      const std::string text = node.is_string() ? **node.as_string() : "";
      std::istringstream in(text);
      if (node.is_number()) {
        a.number = *toml_number(node);
      } else if (!(in >> a.number) || !(in >> std::ws).eof()) {
        throw fail("a number" + std::string(ex.unit.empty() ? "" : " (in " + ex.unit + ")") +
                   ", your prediction");
      }
      if (!std::isfinite(a.number)) throw fail("a finite number, not " + std::to_string(a.number));
      break;
    }
  }
  a.given = true;
  return a;
}

// A TOML basic string for an option key or scenario name: their characters
// ([a-z0-9_+-]) need no escaping.
std::string quoted(const std::string& text) { return "\"" + text + "\""; }

void comment(std::ostringstream& out, const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) out << "# " << line << "\n";
}

}  // namespace

Answers load_answers(const std::string& path, const LabDefinition& lab) {
  if (!std::filesystem::exists(path)) {
    throw InputError(path + ": no answers file (write one with `fabriclab grade " + lab.id +
                     " --init`, or pass --answers FILE)");
  }
  const toml::table root = parse_toml_file(path);
  Answers answers;
  for (const Exercise& ex : lab.exercises) answers[ex.id] = Answer{};
  for (const auto& [key, node] : root) {
    const std::string id(key.str());
    auto ex = std::find_if(lab.exercises.begin(), lab.exercises.end(),
                           [&](const Exercise& e) { return e.id == id; });
    if (ex == lab.exercises.end()) {
      std::string ids;
      for (const Exercise& e : lab.exercises) ids += (ids.empty() ? "" : ", ") + e.id;
      throw input_error_at(path, line_of(node),
                           "unknown exercise '" + id + "' (lab " + lab.id + " has: " + ids + ")");
    }
    answers[id] = read_answer(path, *ex, node);
  }
  return answers;
}

std::string answers_template(const LabDefinition& lab, const std::string& recording_dir) {
  std::ostringstream out;
  out << "# Answers for lab " << lab.id << ", graded by `fabriclab grade " << lab.id << "`.\n"
      << "# Recording: "
      << (recording_dir.empty() ? "none yet: write your predictions, then `fabriclab run " +
                                      lab.id + "` records them"
                                : recording_dir)
      << "\n"
      << "# Fill in each value; \"\" (or []) counts as not answered.\n";
  for (const Exercise& ex : lab.exercises) {
    out << "\n# [" << ex.id << "] " << kind_name(ex.kind) << ", " << ex.points
        << (ex.points == 1 ? " point" : " points") << "\n";
    comment(out, ex.prompt);
    switch (ex.kind) {
      case Kind::kNumber:
        out << "# A number" << (ex.unit.empty() ? "" : " in " + ex.unit)
            << (*ex.from == Source::kRecording ? " (\"none\" if your run has no such value)" : "")
            << ".\n";
        break;
      case Kind::kChoice:
        out << "# One of:\n";
        for (const auto& o : ex.options) out << "#   " << quoted(o.key) << "  " << o.text << "\n";
        break;
      case Kind::kRank:
        out << "# A rank id, e.g. \"r1\".\n";
        break;
      case Kind::kOrdering:
        out << "# Scenario names in order, e.g. ["
            << (lab.scenarios.empty() ? "" : quoted(lab.scenarios.front().name)) << ", ...].\n";
        break;
      case Kind::kProperty:
        out << "# Checked on your recording: nothing to write here.\n";
        continue;
      case Kind::kPrediction:
        out << "# A number" << (ex.unit.empty() ? "" : " in " + ex.unit)
            << ", your prediction. Write it BEFORE `fabriclab run " << lab.id
            << "`: the run records it\n# before scenario " << ex.before
            << " starts, and only that recorded value is graded.\n";
        break;
    }
    out << ex.id << " = " << (ex.kind == Kind::kOrdering ? "[]" : "\"\"") << "\n";
  }
  return out.str();
}

std::string default_answers_path(const std::string& recording_dir, const std::string& runs_dir,
                                 const std::string& lab_id) {
  const std::string beside = (std::filesystem::path(recording_dir) / "answers.toml").string();
  if (std::filesystem::exists(beside)) return beside;
  const std::string per_lab = lab_answers_path(runs_dir, lab_id);
  return std::filesystem::exists(per_lab) ? per_lab : beside;
}

std::string lab_answers_path(const std::string& runs_dir, const std::string& lab_id) {
  return (std::filesystem::path(runs_dir) / (lab_id + "-answers.toml")).string();
}

}  // namespace fabriclab::runner::grading
