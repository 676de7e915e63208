// The reference recordings (recordings/NN-*/, made by the lead with real
// runs) grade PASS with correct answers and FAIL, with hints, with wrong
// ones, through the real `fabriclab grade`. The correct answers are derived
// here from the recording itself with the grader's own vocabulary, then
// perturbed into wrong ones; an answers.toml shipped beside a recording must
// also pass. Skips, saying why, while no reference recording exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runner/grading/grader.h"
#include "runner/grading/value_source.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/grading/grading_fixture.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"

namespace fabriclab::runner::grading {
namespace {

namespace fs = std::filesystem;
using fabriclab::testing::run_command;

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
      return ex.id + " = " + number(right ? expected.number : expected.number * 3 + 7);
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
      return "";
  }
  return "";
}

void grade_reference(const std::string& lab_id) {
  const std::string root = FABRICLAB_SOURCE_DIR;
  std::vector<fs::path> recordings;
  for (const auto& entry : fs::directory_iterator(root + "/recordings")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(lab_id + "-", 0) == 0 && fs::exists(entry.path() / "run.json"))
      recordings.push_back(entry.path());
  }
  if (recordings.empty()) {
    GTEST_SKIP() << "no reference recording recordings/" << lab_id
                 << "-*/run.json yet (the lead records them with "
                 << "`fabriclab run " << lab_id << "` at the end of the session)";
  }
  const std::string labs = root + "/labs";
  const LabDefinition lab = load_lab(runner::find_lab_file(labs, lab_id));
  ASSERT_FALSE(lab.exercises.empty());
  for (const fs::path& dir : recordings) {
    SCOPED_TRACE(dir.string());
    const Recording rec = load_recording(dir.string());
    const std::vector<Problem> problems = check_consistency(lab, rec);
    for (const Problem& p : problems)
      ADD_FAILURE() << "reference recording inconsistent: " << p.message;

    runner::testing::TempDir tmp;
    std::string right, wrong;
    int wrong_count = 0;
    for (const Exercise& ex : lab.exercises) {
      if (ex.kind == Kind::kProperty) continue;
      const Value expected = derive(ex, lab, rec);
      right += answer_line(ex, expected, true, rec.ranks) + "\n";
      const std::string line = answer_line(ex, expected, false, rec.ranks);
      wrong += line + "\n";
      wrong_count += line.empty() ? 0 : 1;
    }
    testing::write_text(tmp.path() + "/right.toml", right);
    testing::write_text(tmp.path() + "/wrong.toml", wrong);
    const std::vector<std::string> base = {FABRICLAB_BINARY, "grade",  lab_id,
                                           "--labs",         labs,     "--recording",
                                           dir.string(),     "--json", "--answers"};
    auto argv = base;
    argv.push_back(tmp.path() + "/right.toml");
    const auto pass = run_command(argv);
    EXPECT_EQ(pass.status.code, 0) << right << pass.output;

    argv = base;
    argv.push_back(tmp.path() + "/wrong.toml");
    const auto fail = run_command(argv);
    EXPECT_EQ(fail.status.code, 1) << wrong << fail.output;
    const auto out = nlohmann::json::parse(fail.output.substr(fail.output.find('{')));
    int failed = 0;
    for (const auto& e : out["exercises"]) {
      if (e["status"] != "fail") continue;
      ++failed;
      EXPECT_TRUE(e["hint"].is_string() && !e["hint"].get<std::string>().empty()) << e.dump();
    }
    EXPECT_EQ(failed, wrong_count) << fail.output;

    if (fs::exists(dir / "answers.toml")) {
      const auto shipped = run_command(
          {FABRICLAB_BINARY, "grade", lab_id, "--labs", labs, "--recording", dir.string()});
      EXPECT_EQ(shipped.status.code, 0)
          << "the answers.toml shipped with the recording does not pass:\n"
          << shipped.output;
    }
  }
}

TEST(ReferenceRecordings, Lab01GradesPassAndFail) { grade_reference("01"); }
TEST(ReferenceRecordings, Lab02GradesPassAndFail) { grade_reference("02"); }

}  // namespace
}  // namespace fabriclab::runner::grading
