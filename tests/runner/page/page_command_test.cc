// `fabriclab page`, run as the real binary: the page of each reference
// recording has what it must (a table row per scenario, a chart per chart
// the run names, the player, the exercises without their answers); hostile
// text comes out inert; damaged input is an error with exit 2 and no page.
// What a browser makes of the page: page_browser_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "tests/runner/page/page_fixture.h"

namespace fabriclab::testing {
namespace {

namespace fs = std::filesystem;

// <section id="ID"> ... </section>
std::string section(const std::string& page, const std::string& id) {
  const std::size_t start = page.find("<section id=\"" + id + "\">");
  if (start == std::string::npos) return "";
  return page.substr(start, page.find("</section>", start) - start);
}

class PageCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = make_temp_dir("page_command_test"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(PageCommandTest, EveryReferenceRecordingGetsACompletePage) {
  for (const auto& entry :
       fs::directory_iterator(fs::path(fabriclab::build_paths::source_dir()) / "recordings")) {
    if (!fs::exists(entry.path() / "run.json")) continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const std::string out = dir_ + "/" + name + ".html";
    const RunResult r = run_page({entry.path().string(), "-o", out});
    ASSERT_TRUE(r.status.exited);
    ASSERT_EQ(r.status.code, 0) << r.output;
    const std::string page = read_file(out);
    const auto run = nlohmann::json::parse(read_file((entry.path() / "run.json").string()));

    EXPECT_EQ(count(results_body(page), "<tr"), run["scenarios"].size());
    const std::size_t charts = run.contains("charts") ? run["charts"].size() : 2;
    EXPECT_EQ(count(page, "<figure class=\"fl-chart\""), charts);
    EXPECT_EQ(count(section(page, "charts"), "<svg"), charts);
    EXPECT_NE(page.find("id=\"fl-player\""), std::string::npos);
    EXPECT_NE(page.find("AsciinemaPlayer"), std::string::npos) << "the player is inlined";
    EXPECT_EQ(count(page, "<script"), 3u) << "the data, the player, the page's own script";
    EXPECT_EQ(page.find("<script src"), std::string::npos);
    EXPECT_EQ(page.find("<link"), std::string::npos) << "nothing loaded from elsewhere";
    EXPECT_NE(page.find("id=\"fl-exercises\""), std::string::npos) << r.output;
    EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
    EXPECT_EQ(page.find("class=\"fl-problems\""), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("wrote " + out), std::string::npos) << r.output;
  }
}

TEST_F(PageCommandTest, ExercisesShowPromptsNeverAnswers) {
  const std::string out = dir_ + "/02.html";
  const RunResult r =
      run_page({std::string(fabriclab::build_paths::source_dir()) + "/recordings/02-dropped-packet",
                "-o", out});
  ASSERT_EQ(r.status.code, 0) << r.output;
  const std::string page = read_file(out);
  // The recording has no drawn conditions: the draw's first choice, 100ms.
  EXPECT_NE(page.find("how many times longer than clean did the +100ms latency scenario take"),
            std::string::npos);
  EXPECT_NE(page.find("<code>deadline</code> its deadline ended it"), std::string::npos)
      << "a choice's options";
  // The derivations, the option checks and the hints stay out.
  EXPECT_EQ(page.find("scenario.latency.result.slowdown"), std::string::npos);
  EXPECT_EQ(page.find("scenario both stalled"), std::string::npos);
  EXPECT_EQ(page.find("Read both&#39;s status in your results table"), std::string::npos);
  EXPECT_EQ(page.find("within 10%"), std::string::npos);
}

TEST_F(PageCommandTest, DefaultOutputIsPageHtmlInTheRunDirectory) {
  const std::string run = copy_recording("01-training-loop", dir_);
  const RunResult r = run_page({run});
  ASSERT_EQ(r.status.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(run + "/page.html"));
  EXPECT_FALSE(fs::exists(run + "/page.html.partial"));
}

TEST_F(PageCommandTest, HostileTextIsEscapedEverywhere) {
  const std::string run = copy_recording("02-dropped-packet", dir_);
  make_hostile(run);
  const std::string out = dir_ + "/hostile.html";
  const RunResult r = run_page({run, "-o", out});
  ASSERT_EQ(r.status.code, 0) << r.output;
  EXPECT_NE(r.output.find("escape sequences removed"), std::string::npos) << r.output;
  const std::string page = read_file(out);
  EXPECT_EQ(count(page, "<script"), 3u) << "no script element from the recording";
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("<b>bold"), std::string::npos);
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(page.find("&lt;/script&gt;&lt;script&gt;alert(1)"), std::string::npos)
      << "the condition, shown as text";
  EXPECT_NE(page.find("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"), std::string::npos)
      << "the cast, embedded as JSON";
  EXPECT_EQ(page.find("cm0gLXJmIH4="), std::string::npos) << "the clipboard write was removed";
  EXPECT_EQ(page.find("0wn3d-title"), std::string::npos) << "the title change was removed";
  EXPECT_NE(page.find("after the attacks"), std::string::npos);
  EXPECT_NE(page.find(std::string(1024 * 1024, 'Z')), std::string::npos) << "the huge line";
  // The charts draw the hostile condition as words in their legends.
  EXPECT_EQ(count(section(page, "charts"), "<svg"), 2u) << r.output;
  EXPECT_NE(section(page, "charts").find("&lt;img src=x onerror="), std::string::npos);
}

TEST_F(PageCommandTest, DamagedInputIsAnErrorWithExit2AndNoPage) {
  struct Case {
    const char* what;
    std::function<void(const std::string&)> damage;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"run.json of another version",
       [](const std::string& run) {
         auto json = nlohmann::json::parse(read_file(run + "/run.json"));
         json["version"] = 2;
         std::ofstream(run + "/run.json") << json.dump();
       },
       "version"},
      {"run.json cut off",
       [](const std::string& run) {
         const std::string text = read_file(run + "/run.json");
         std::ofstream(run + "/run.json") << text.substr(0, text.size() / 2);
       },
       "run.json"},
      {"run.json of something else",
       [](const std::string& run) { std::ofstream(run + "/run.json") << R"({"format": "other"})"; },
       "format"},
      {"no run.json", [](const std::string& run) { fs::remove(run + "/run.json"); }, "run.json"},
      {"no session.cast", [](const std::string& run) { fs::remove(run + "/session.cast"); },
       "session.cast"},
      {"session.cast of version 3",
       [](const std::string& run) {
         std::ofstream(run + "/session.cast")
             << R"({"version": 3, "term": {"cols": 80, "rows": 24}})"
             << "\n";
       },
       "version 3"},
      {"a damaged metrics line",
       [](const std::string& run) {
         std::ofstream(run + "/metrics.jsonl", std::ios::app) << "{oops\n";
       },
       "metrics.jsonl"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string parent = dir_ + "/" + std::to_string(&c - cases.data());
    const std::string run = copy_recording("02-dropped-packet", parent);
    c.damage(run);
    const std::string out = parent + "/page.html";
    const RunResult r = run_page({run, "-o", out});
    ASSERT_TRUE(r.status.exited);
    EXPECT_EQ(r.status.code, 2) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out + ".partial"));
  }
  const RunResult missing = run_page({dir_ + "/nothing-here"});
  EXPECT_EQ(missing.status.code, 2) << missing.output;
}

}  // namespace
}  // namespace fabriclab::testing
