// The table `fabriclab run all` ends with.
#include "runner/scenario/course_summary.h"

#include <gtest/gtest.h>

namespace fabriclab::runner {
namespace {

CourseLabOutcome lab(const std::string& id, int code, double wall_s, std::optional<bool> held) {
  CourseLabOutcome out;
  out.id = id;
  out.title = "Lab " + id;
  out.exit_code = code;
  out.wall_s = wall_s;
  out.run_dir = "runs/" + id + "-x";
  out.lesson_held = held;
  return out;
}

TEST(CourseSummary, OneRowPerLabAndTheCoursesTotalTime) {
  const std::string text =
      format_course_summary({lab("01", 0, 65, true), lab("02", 0, 212.4, true)}, false);
  EXPECT_NE(text.find("01   Lab 01"), std::string::npos) << text;
  EXPECT_NE(text.find("1 min 05 s"), std::string::npos) << text;
  EXPECT_NE(text.find("3 min 32 s"), std::string::npos) << text;
  EXPECT_NE(text.find("2 labs in 4 min 37 s."), std::string::npos) << text;
  EXPECT_EQ(text.find("did not"), std::string::npos) << text;
}

TEST(CourseSummary, SaysWhichLabsFailedOrLostTheirLesson) {
  CourseLabOutcome broken = lab("03", 0, 1, std::nullopt);
  broken.error = "labs/03/lab.toml:4: bad";
  const std::string text = format_course_summary(
      {lab("01", 1, 30, std::nullopt), lab("02", 0, 40, false), broken}, true);
  EXPECT_NE(text.find("FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT held"), std::string::npos) << text;
  EXPECT_NE(text.find("did not start"), std::string::npos) << text;
  EXPECT_NE(text.find("labs/03/lab.toml:4: bad"), std::string::npos) << text;
  EXPECT_NE(text.find("2 labs did not run to the end"), std::string::npos) << text;
  EXPECT_NE(text.find("1 lesson did not hold"), std::string::npos) << text;
  EXPECT_NE(text.find("stopped before the rest"), std::string::npos) << text;
}

TEST(CourseSummary, MinutesAndSeconds) {
  EXPECT_EQ(minutes_and_seconds(48.4), "48 s");
  EXPECT_EQ(minutes_and_seconds(59.6), "1 min 00 s");
  EXPECT_EQ(minutes_and_seconds(1805), "30 min 05 s");
}

}  // namespace
}  // namespace fabriclab::runner
