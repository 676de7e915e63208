// No exercise answerable from its README (issue 34). For every lab in labs/
// and every exercise with an answer, the expected answer is derived from
// the lab's reference recording (recordings/NN-*/) with the grader's own
// vocabulary (value_source.h), and
//  (a) an exercise that says it reads the run (from = "recording" or "seed")
//      must get another answer on a second recording of the lab -- the
//      reference with scenarios' measurements swapped and another seed
//      (second_recording_cases.h) -- far enough that the first answer fails
//      there; one that cannot move must say so in lab.toml
//      (`depends_on_run = false`) and be listed in kDeclaredRunIndependent;
//  (b) no expected answer is written in the lab's README.md: a number as a
//      table would show it (3 significant digits, a fraction also as a
//      percentage, a small count with its unit: "3 switches", "no bytes"),
//      the right option's text of a choice or its key heading a bold
//      answer ("**case-b: a slow worker.**"), an ordering's names in order.
// (b) is a floor, not a proof: it catches a README that quotes the answer,
// not one that paraphrases it. Seeded ranks are left to (a): the README
// cannot know a student's seed; predictions to (b) only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "common/build_paths.h"
#include "runner/grading/graded_run.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/second_recording.h"
#include "tests/runner/grading/second_recording_cases.h"
#include "tests/runner/test_support.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;
using testing::LabCase;
using testing::Moved;

// Exercises whose lab.toml says `depends_on_run = false` ("lab/exercise"):
// reviewed here, so that declaring one is a visible decision.
const std::set<std::string> kDeclaredRunIndependent = {};

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The 1-based line of `needle` in `text` where it stands as a token of its
// own (a number not inside a longer number), or 0.
int line_of_token(const std::string& text, const std::string& needle) {
  const auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    const size_t end = at + needle.size();
    const bool starts_number = digit(needle.front());
    const bool ends_number = digit(needle.back());
    if (starts_number && at > 0 && (digit(text[at - 1]) || text[at - 1] == '.' || text[at - 1] == ','))
      continue;
    if (ends_number && end < text.size() &&
        (digit(text[end]) ||
         ((text[end] == '.' || text[end] == ',') && end + 1 < text.size() && digit(text[end + 1]))))
      continue;
    if (std::isalpha(static_cast<unsigned char>(needle.front())) && at > 0 &&
        std::isalnum(static_cast<unsigned char>(text[at - 1])))
      continue;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  }
  return 0;
}

std::string fixed(double v, int decimals) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << v;
  return out.str();
}

// `v` to `digits` significant digits, as the run's tables print numbers.
std::string significant(double v, int digits) {
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fixed(v, std::max(0, digits - 1 - magnitude));
}

std::string with_thousands(long long n) {
  std::string digits = std::to_string(std::llabs(n)), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

// How a README could state a number exercise's answer.
std::vector<std::string> number_forms(const Exercise& ex, double v) {
  static const char* const kWords[] = {"no",  "one", "two",   "three", "four", "five",
                                       "six", "seven", "eight", "nine", "ten"};
  std::vector<std::string> forms;
  const bool integral = std::fabs(v - std::round(v)) < 1e-9;
  if (integral && std::fabs(v) < 100) {
    // A bare "3" is every README's; with its unit it is the answer.
    const std::string unit = lower(ex.unit);
    if (unit.empty()) return forms;
    const long n = std::lround(v);
    forms.push_back(std::to_string(n) + " " + unit);
    if (n >= 0 && n <= 10) forms.push_back(std::string(kWords[n]) + " " + unit);
    if (n == 0) forms.push_back("zero " + unit);
    return forms;
  }
  if (integral) {
    forms.push_back(with_thousands(std::llround(v)));
  }
  forms.push_back(significant(v, 3));  // an integer: itself, without separators
  if (lower(ex.unit).find("fraction") != std::string::npos || std::fabs(v) < 1) {
    forms.push_back(significant(v * 100, 2) + "%");
    forms.push_back(significant(v * 100, 3) + "%");
  }
  return forms;
}

std::vector<std::string> ordering_forms(const std::vector<std::string>& names) {
  std::vector<std::string> forms;
  for (const char* sep : {", ", " < ", " -> ", " → ", " then "}) {
    for (const char* quote : {"", "`", "\""}) {
      std::string joined;
      for (size_t i = 0; i < names.size(); ++i)
        joined += (i ? sep : "") + std::string(quote) + names[i] + quote;
      forms.push_back(joined);
    }
  }
  return forms;
}

// The forms of an exercise's expected answer a README must not contain.
std::vector<std::string> answer_forms(const Exercise& ex, const Value& expected) {
  switch (ex.kind) {
    case Kind::kNumber:
    case Kind::kPrediction:  // the measured value a prediction is graded against
      return expected.type == Value::Type::kNumber ? number_forms(ex, expected.number)
                                                   : std::vector<std::string>{};
    case Kind::kChoice: {
      const std::vector<std::string> keys = expected.type == Value::Type::kList
                                                ? expected.list
                                                : std::vector<std::string>{expected.text};
      std::vector<std::string> forms;
      // A README's answer key reads "**case-b: a slow worker.**".
      for (const std::string& key : keys) {
        forms.push_back("**" + key + ":");
        forms.push_back("**" + key + "**:");
      }
      for (const ChoiceOption& o : ex.options) {
        // An option of a word or two ("case a") is every README's vocabulary.
        const bool sentence = std::count(o.text.begin(), o.text.end(), ' ') >= 2;
        if (sentence && std::find(keys.begin(), keys.end(), o.key) != keys.end())
          forms.push_back(o.text);
      }
      return forms;
    }
    case Kind::kOrdering:
      return ordering_forms(expected.list);
    case Kind::kRank:      // seeded: the README cannot know the student's
    case Kind::kProperty:  // no answer
      return {};
  }
  return {};
}

std::string shown(const Value& v) {
  switch (v.type) {
    case Value::Type::kNull:
      return "none";
    case Value::Type::kNumber:
      return significant(v.number, 4);
    case Value::Type::kText:
      return v.text;
    case Value::Type::kList: {
      std::string out;
      for (const std::string& item : v.list) out += (out.empty() ? "" : ", ") + item;
      return "[" + out + "]";
    }
  }
  return "";
}

void check_lab(const LabCase& c) {
  const fs::path root = fabriclab::build_paths::source_dir();
  const std::string reference = testing::reference_recording(c.id);
  if (reference.empty()) {
    SKIP_OR_FAIL_IN_CI("no reference recording recordings/" << c.id << "-*/");
  }
  const std::string lab_file = find_lab_file((root / "labs").string(), c.id);
  const LabDefinition lab = load_lab(lab_file);
  const fs::path readme_path = fs::path(lab_file).parent_path() / "README.md";
  const std::string readme = lower(read_text(readme_path));
  ASSERT_FALSE(readme.empty()) << "no " << readme_path;

  runner::testing::TempDir tmp;
  const std::string second_dir = tmp.path() + "/" + c.id + "-second";
  testing::write_second_recording(reference, second_dir, c.change);
  const GradedRun before = load_graded_run(reference);
  const GradedRun after = load_graded_run(second_dir);

  std::vector<std::string> from_lab, declared, moved_ids;
  for (const Exercise& ex : lab.exercises) {
    if (ex.kind == Kind::kProperty) continue;
    const std::string where = std::string("lab ") + c.id + ", exercise '" + ex.id + "': ";
    const testing::Expected first = testing::expected_of(ex, lab, before);
    EXPECT_FALSE(first.error) << where << "no expected answer on the reference recording "
                              << reference;

    // (a) A run-dependent answer moves with the run. A prediction needs no
    // such proof: it is graded on the value the run itself recorded before
    // its scenario started, so no answers file written for another run can
    // stand in for it (prediction_grade.h).
    if (ex.kind == Kind::kPrediction) {
    } else if (ex.from == Source::kLab) {
      from_lab.push_back(ex.id);
    } else {
      const Moved moved = testing::compare(ex, first, testing::expected_of(ex, lab, after));
      const bool listed = kDeclaredRunIndependent.count(std::string(c.id) + "/" + ex.id) > 0;
      if (!ex.depends_on_run) {
        declared.push_back(ex.id);
        EXPECT_TRUE(listed) << where << "lab.toml declares depends_on_run = false; list it in "
                            << "kDeclaredRunIndependent once you agree no run can change it";
        EXPECT_NE(moved, Moved::kYes)
            << where << "declares depends_on_run = false, yet the second recording moved its "
            << "answer: drop the declaration";
      } else {
        EXPECT_FALSE(listed) << where << "listed in kDeclaredRunIndependent without "
                             << "depends_on_run = false in lab.toml";
        EXPECT_EQ(moved, Moved::kYes)
            << where << "from = \"" << source_name(*ex.from) << "\", yet its expected answer ("
            << shown(first.value) << " on the reference) does not move on a second recording "
            << "of the lab (second_recording_cases.cc), so a student could answer it without "
            << "running: make the answer depend on the run, change the second recording, or "
            << "declare depends_on_run = false";
        if (moved == Moved::kYes) moved_ids.push_back(ex.id);
      }
    }

    // (b) The README does not hold the answer.
    if (first.error) continue;
    for (const std::string& form : answer_forms(ex, first.value)) {
      const int line = line_of_token(readme, lower(form));
      EXPECT_EQ(line, 0) << where << readme_path.filename().string() << " line " << line
                         << " holds its expected answer ('" << form << "'; the reference's "
                         << shown(first.value) << "): a student could copy it without running. "
                         << "Explain the mechanism, not the reference's result";
    }
  }
  const auto join = [](const std::vector<std::string>& ids) {
    std::string out;
    for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
    return out.empty() ? std::string("-") : out;
  };
  std::cout << "lab " << c.id << ": moved by a second recording: " << join(moved_ids)
            << "; from the lab (reasoning, no run): " << join(from_lab)
            << "; declared run-independent: " << join(declared) << "\n";
}


class NoExerciseAnsweredByItsReadme : public ::testing::TestWithParam<LabCase> {};

TEST_P(NoExerciseAnsweredByItsReadme, AnswersMoveWithTheRunAndAreNotInTheReadme) {
  check_lab(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Labs, NoExerciseAnsweredByItsReadme,
                         ::testing::ValuesIn(testing::lab_cases()),
                         [](const ::testing::TestParamInfo<LabCase>& info) {
                           return std::string("Lab") + info.param.id;
                         });

// Every lab in labs/ has a case: a new lab cannot skip this test.
TEST(NoExerciseAnsweredByItsReadme, EveryLabHasASecondRecording) {
  const fs::path labs = fs::path(fabriclab::build_paths::source_dir()) / "labs";
  std::set<std::string> cased;
  for (const LabCase& c : testing::lab_cases()) cased.insert(c.id);
  for (const auto& entry : fs::directory_iterator(labs)) {
    if (!fs::exists(entry.path() / "lab.toml")) continue;
    const std::string id = entry.path().filename().string().substr(0, 2);
    EXPECT_TRUE(cased.count(id)) << "labs/" << entry.path().filename().string()
                                 << " has no case in second_recording_cases.cc";
  }
}

}  // namespace
}  // namespace fabriclab::runner::grading
