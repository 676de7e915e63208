#include "runner/lab/lesson.h"

#include <set>

#include "common/input_error.h"
#include "runner/lab/toml_file.h"

namespace fabriclab::runner {

namespace {

LessonCheck read_one(const std::string& path, const toml::table& table,
                     const ScenarioNames& scenarios) {
  const auto fail = [&](const toml::node& node, const std::string& message) {
    return input_error_at(path, line_of(node), "lesson: " + message);
  };
  static const std::set<std::string> kKeys = {"check", "claim", "quick"};
  for (const auto& [key, node] : table) {
    if (!kKeys.count(std::string(key.str())))
      throw fail(node, "unknown key '" + std::string(key.str()) + "' (expected check, claim, quick)");
  }
  LessonCheck lesson;
  lesson.line = line_of(table);
  for (const char* key : {"check", "claim"}) {
    const toml::node* node = table.get(key);
    if (!node) throw fail(table, std::string("missing key '") + key + "' (expected a string)");
    if (!node->is_string() || node->as_string()->get().empty())
      throw fail(*node, std::string("key '") + key + "': expected a non-empty string");
    (std::string(key) == "check" ? lesson.check : lesson.claim) = node->as_string()->get();
  }
  if (check_parts(lesson.check).size() > 1)
    throw fail(*table.get("check"),
               "'and' joins checks in exercises only: write one [[lesson]] per check");
  try {
    validate_check(lesson.check, scenarios);
  } catch (const std::invalid_argument& e) {
    throw fail(*table.get("check"), e.what());
  }
  if (lesson.check == "otherwise")
    throw fail(*table.get("check"), "'otherwise' belongs to choice options (expected a property)");
  if (const toml::node* quick = table.get("quick")) {
    if (!quick->is_boolean()) throw fail(*quick, "key 'quick': expected true or false");
    lesson.at_quick_scale = quick->as_boolean()->get();
  }
  return lesson;
}

}  // namespace

std::vector<LessonCheck> read_lesson(const std::string& path, const toml::table& root,
                                     const ScenarioNames& scenarios) {
  std::vector<LessonCheck> lesson;
  const toml::node* tables = root.get("lesson");
  if (!tables) return lesson;
  if (!tables->is_array_of_tables())
    throw input_error_at(path, line_of(*tables), "'lesson': expected [[lesson]] tables");
  for (const toml::node& node : *tables->as_array())
    lesson.push_back(read_one(path, *node.as_table(), scenarios));
  return lesson;
}

}  // namespace fabriclab::runner
