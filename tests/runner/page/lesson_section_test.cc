// The page's lesson section (runner/page/lesson_section.h): it says whether
// the run showed its lab's lesson, one row per check, escapes what run.json
// holds, and is absent for a recording without a lesson.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/page/lesson_section.h"

namespace fabriclab::runner::page {
namespace {

nlohmann::json manifest_with(const std::string& outcome, bool held) {
  return {{"lesson",
           {{"held", held},
            {"checks",
             {{{"check", "scenario.latency.result.slowdown >= 1.5"},
               {"claim", "latency <slows> every step"},
               {"outcome", outcome},
               {"detail", "1.2 >= 1.5"},
               {"line", 12}}}}}}};
}

TEST(LessonSection, SaysWhetherTheLessonHeldWithOneRowPerCheck) {
  const std::string held = lesson_section(manifest_with("held", true));
  EXPECT_NE(held.find("<section id=\"lesson\">"), std::string::npos);
  EXPECT_NE(held.find("The lesson held in this run."), std::string::npos) << held;
  EXPECT_NE(held.find("<tr class=\"fl-held\">"), std::string::npos) << held;
  EXPECT_NE(held.find("latency &lt;slows&gt; every step"), std::string::npos) << "escaped";

  const std::string failed = lesson_section(manifest_with("failed", false));
  EXPECT_NE(failed.find("The lesson did not hold in this run: 1 of 1 checks failed"),
            std::string::npos)
      << failed;
  EXPECT_NE(failed.find("<tr class=\"fl-failed\">"), std::string::npos);
  EXPECT_NE(failed.find("1.2 &gt;= 1.5"), std::string::npos) << "what the run measured";
}

TEST(LessonSection, AbsentWithoutALessonAndLenientWithOddFields) {
  EXPECT_EQ(lesson_section(nlohmann::json{{"run_id", "x"}}), "");
  const std::string odd = lesson_section(nlohmann::json{{"lesson", {{"checks", 3}}}});
  EXPECT_NE(odd.find("was not judged"), std::string::npos) << odd;
}

}  // namespace
}  // namespace fabriclab::runner::page
