// Charts through the real gnuplot (skipped, saying why, without it), and
// the report's behaviour when gnuplot is missing or hangs.
#include "runner/report/charts.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "report_fixture.h"
#include "runner/report/chart_data.h"
#include "runner/report/render_report.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::runner::report {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Sets PATH for the scope of a test.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path)
      : old_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() { ::setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

// A link fault's dashed line on the step_times chart: after the steps done
// when it began, labelled with what happened and for how long -- a link
// down, or an impairment change (impair_change/impair_restore events).
TEST(ChartData, StepTimesMarksALinkDownAndAnImpairmentChange) {
  using nlohmann::json;
  const std::vector<json> events = {
      {{"event", "link_down"}, {"ts", 10.0}, {"steps_done", 4}},
      {{"event", "link_up"}, {"ts", 12.0}, {"down_s", 2.0}},
      {{"event", "impair_change"}, {"ts", 20.0}, {"steps_done", 9}, {"spec", "loss 5%"}},
      {{"event", "impair_restore"}, {"ts", 23.0}, {"changed_s", 3.0}}};
  const ScenarioSeries series = series_of("s", "s", events);
  ASSERT_EQ(series.link_faults.size(), 2u);
  EXPECT_DOUBLE_EQ(series.link_faults[0].after_step, 4);
  EXPECT_DOUBLE_EQ(series.link_faults[0].down_s, 2.0);
  EXPECT_DOUBLE_EQ(series.link_faults[1].after_step, 9);
  EXPECT_DOUBLE_EQ(series.link_faults[1].down_s, 3.0);
  const std::string script = step_time_chart_script({series}, "t", "t.svg");
  EXPECT_NE(script.find(gnuplot_quote("s: link down 2.0 s")), std::string::npos) << script;
  EXPECT_NE(script.find(gnuplot_quote("s: impair 'loss 5%' 3.0 s")), std::string::npos) << script;
}

TEST(ChartData, QuotesAndFileNames) {
  EXPECT_EQ(gnuplot_quote("it's"), "'it''s'");
  EXPECT_EQ(gnuplot_quote("a\nb"), "'a b'");
  EXPECT_EQ(data_file_name("loss-1_0"), "loss-1_0.dat");
  EXPECT_EQ(data_file_name("../x y"), "___x_y.dat");
}

TEST(ChartData, SeriesIsPerStepOverRanks) {
  const ScenarioSeries series =
      series_of("s", "s", testing::uniform_scenario("s", 2, 3, 200, 1000));
  ASSERT_EQ(series.points.size(), 3u);
  EXPECT_NEAR(series.points[0].t_s, 0.2, 1e-9);
  EXPECT_NEAR(series.points[2].t_s, 0.6, 1e-9);
  EXPECT_NEAR(series.points[0].mean_loss, 2.305, 1e-9);  // ranks 2.30 and 2.31
  EXPECT_DOUBLE_EQ(series.points[1].slowest_step_ms, 200);
}

TEST(Charts, GnuplotDrawsSvgsWithEveryScenario) {
  if (!find_gnuplot()) SKIP_OR_FAIL_IN_CI("gnuplot is not installed (apt-get install gnuplot-nox)");
  testing::TempDir dir("charts");
  testing::write_lab02_run(dir.path());
  std::ostringstream out;
  render_report(dir.path(), out, /*charts_in_terminal=*/true);
  const std::string report = out.str();

  for (const char* chart : {"loss_vs_time", "step_times"}) {
    const auto svg_path = dir.path() / "charts" / (std::string(chart) + ".svg");
    const std::string svg = read_text(svg_path);
    ASSERT_FALSE(svg.empty()) << svg_path << "\n" << report;
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    for (const char* scenario : {"clean", "latency", "loss", "both"}) {
      EXPECT_NE(svg.find(scenario), std::string::npos) << chart << " lacks " << scenario;
    }
    EXPECT_NE(report.find(svg_path.string()), std::string::npos) << report;
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "charts" / (std::string(chart) + ".gp")));
  }
  EXPECT_NE(read_text(dir.path() / "charts" / "loss_vs_time.svg").find("wall-clock time"),
            std::string::npos);
  EXPECT_NE(read_text(dir.path() / "charts" / "step_times.svg").find("(ms, log scale)"),
            std::string::npos);
  // The terminal version: the title and the legend in plain text.
  EXPECT_NE(report.find("lab 02: training loss (mean over ranks) against wall-clock time (s)"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("latency: +100 ms latency"), std::string::npos) << report;
  EXPECT_NE(report.find("STALLED 41/80"), std::string::npos) << report;  // the table first
  EXPECT_LT(report.find("STALLED 41/80"), report.find("lab 02: training loss"));
  EXPECT_EQ(report.find('\f'), std::string::npos);
}

TEST(Charts, WithoutGnuplotTheTablePrintsAndSaysWhatToInstall) {
  testing::TempDir dir("nognuplot");
  testing::write_lab02_run(dir.path());
  std::ostringstream out;
  {
    ScopedPath no_gnuplot((dir.path() / "empty-bin").string());
    render_report(dir.path(), out, true);
  }
  const std::string report = out.str();
  EXPECT_NE(report.find("STALLED 41/80"), std::string::npos) << report;
  EXPECT_NE(report.find("gnuplot not found (apt-get install gnuplot-nox)"), std::string::npos)
      << report;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "charts" / "clean.dat"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "charts" / "loss_vs_time.gp"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "charts" / "loss_vs_time.svg"));
}

TEST(Charts, HangingGnuplotIsStoppedAtTheTimeout) {
  testing::TempDir dir("hang");
  testing::write_lab02_run(dir.path());
  const auto bin = dir.path() / "bin";
  std::filesystem::create_directories(bin);
  // It would sleep "forever": were it waited for rather than stopped, ctest's
  // timeout would end the test (no bound on how long stopping it takes).
  testing::write_text(bin / "gnuplot", "#!/bin/sh\nexec /bin/sleep 100000\n");
  ::chmod((bin / "gnuplot").c_str(), 0755);

  ReportOptions options;
  options.gnuplot_timeout = std::chrono::milliseconds(300);
  std::ostringstream out;
  {
    ScopedPath fake(bin.string());
    render_report(dir.path(), out, options);
  }
  EXPECT_NE(out.str().find("timed out"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("COMPLETED"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace fabriclab::runner::report
