#include "tests/runner/grading/derived_answers.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "runner/grading/consistency.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading::testing {

namespace {

std::string toml_string(const std::string& s) { return "\"" + s + "\""; }

std::string toml_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + toml_string(items[i]);
  return out + "]";
}

std::string number(double value) {
  std::ostringstream out;
  out << std::setprecision(17) << value;
  return out.str();
}

// One answer line per exercise: right (from the recording) or wrong.
std::string answer_line(const Exercise& ex, const Value& expected, bool right, long ranks) {
  switch (ex.kind) {
    case Kind::kNumber:
      if (expected.type == Value::Type::kNull) return ex.id + " = " + (right ? "\"none\"" : "1.5");
      // Wrong: far outside any tolerance, also an absolute one around 0.
      return ex.id + " = " + number(right ? expected.number : expected.number * 3 + 1e6 + 7);
    case Kind::kChoice: {
      const std::vector<std::string> ok = expected.type == Value::Type::kList
                                              ? expected.list
                                              : std::vector<std::string>{expected.text};
      if (right) return ex.id + " = " + toml_string(ok.front());
      for (const auto& o : ex.options) {
        if (std::find(ok.begin(), ok.end(), o.key) == ok.end())
          return ex.id + " = " + toml_string(o.key);
      }
      return "";
    }
    case Kind::kRank: {
      if (right) return ex.id + " = " + toml_string(expected.text);
      const long rank = std::stol(expected.text.substr(1));
      return ranks > 1 ? ex.id + " = " + toml_string("r" + std::to_string((rank + 1) % ranks)) : "";
    }
    case Kind::kOrdering: {
      std::vector<std::string> list = expected.list;
      if (!right) std::reverse(list.begin(), list.end());
      return ex.id + " = " + toml_list(list);
    }
    case Kind::kProperty:
    case Kind::kPrediction:  // graded on what the run recorded, not on this file
      return "";
  }
  return "";
}

}  // namespace

DerivedAnswers derive_answers(const std::string& lab_toml, const std::string& recording_dir) {
  const GradedRun rec = load_graded_run(recording_dir);
  // The lab as the run drew it (run.json `conditions`), as the grader loads it.
  const LabDefinition lab = lab_for_run(load_lab(lab_toml), rec);
  DerivedAnswers answers;
  for (const Problem& p : check_consistency(lab, rec)) answers.problems.push_back(p.message);
  for (const Exercise& ex : lab.exercises) {
    if (ex.kind == Kind::kProperty || ex.kind == Kind::kPrediction) continue;
    const Value expected = derive(ex, lab, rec);
    answers.right += answer_line(ex, expected, true, rec.ranks) + "\n";
    const std::string line = answer_line(ex, expected, false, rec.ranks);
    answers.wrong += line + "\n";
    answers.wrong_count += line.empty() ? 0 : 1;
  }
  return answers;
}

}  // namespace fabriclab::runner::grading::testing
