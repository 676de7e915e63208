// The page in a real browser: headless Chromium (Debian's `chromium`) loads
// a page written by `fabriclab page` from disk, inside a fresh network
// namespace (`unshare -n`: no interface but a down loopback, so nothing can
// be fetched), and the test reads the DOM Chromium rendered (--dump-dom after
// a virtual-time budget, so the player's timers have run):
//  - the lab 02 reference recording: the player mounted and shows text from
//    the cast, the results table has one row per scenario, every chart is an
//    <svg>, the scenario markers are on the player's timeline;
//  - a hostile recording (page_fixture.h): played to its hostile part, the
//    payloads are on the terminal as text, and nothing they would do
//    happened (no script element of theirs, no changed title, no element).
// Screenshots of both pages, the pages and the DOMs are kept in the build
// tree (FABRICLAB_PAGE_ARTIFACTS). Skips only where Chromium is not
// installed (scripts/setup.sh --tests installs it).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "common/build_paths.h"
#include "tests/runner/page/page_fixture.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kArtifacts = FABRICLAB_PAGE_ARTIFACTS;

// Debian's chromium, or the browser $FABRICLAB_CHROMIUM names (a path that
// is not there makes the test skip, as on a machine without Chromium).
std::optional<std::string> find_chromium() {
  if (const char* named = std::getenv("FABRICLAB_CHROMIUM")) {
    if (::access(named, X_OK) == 0) return std::string(named);
    return std::nullopt;
  }
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (::access(path, X_OK) == 0) return std::string(path);
  }
  return std::nullopt;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The terminal's text as the player drew it: the <pre class="ap-term-text">
// with its tags taken out (entities stay: "&lt;" is a "<" on the screen).
std::string terminal_text(const std::string& dom) {
  static const std::regex pre(R"(<pre class="ap-term-text[^"]*"[^>]*>([\s\S]*?)</pre>)");
  static const std::regex tag("<[^>]*>");
  std::smatch m;
  if (!std::regex_search(dom, m, pre)) return "";
  return std::regex_replace(m[1].str(), tag, "");
}

class PageBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto chromium = find_chromium();
    if (!chromium) {
      SKIP_OR_FAIL_IN_CI("Chromium is not installed (/usr/bin/chromium, or $FABRICLAB_CHROMIUM): "
                         "apt-get install chromium, or run scripts/setup.sh --tests; the page's browser "
                         "test cannot run without it");
    }
    chromium_ = *chromium;
    // A network namespace of its own: as root `unshare -n`; else with a user
    // namespace too, where the kernel allows one.
    for (const std::string prefix : {"unshare -n", "unshare -r -n"}) {
      if (run_command({"/bin/sh", "-c", prefix + " true"}).status.code == 0) {
        unshare_ = prefix;
        break;
      }
    }
    ASSERT_FALSE(unshare_.empty())
        << "cannot make a network namespace (unshare -n, or -r -n): the page must be tested "
           "with the network off";
    dir_ = make_temp_dir("page_browser_test");
    fs::create_directories(kArtifacts);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Chromium in a fresh network namespace, on `url`, with `flags`; returns
  // what it wrote to stdout.
  std::string chromium(const std::string& url, const std::string& flags, const std::string& name) {
    const std::string out = dir_ + "/" + name + ".out";
    const std::string log = (kArtifacts / (name + ".chromium.log")).string();
    const std::string command =
        unshare_ + " " + shell_quote(chromium_) +
        " --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars"
        " --user-data-dir=" +
        shell_quote(dir_ + "/profile-" + name) + " " + flags + " " + shell_quote(url) + " >" +
        shell_quote(out) + " 2>" + shell_quote(log);
    const RunResult r = run_command({"/bin/sh", "-c", command}, {}, std::chrono::seconds(90));
    EXPECT_TRUE(r.status.exited) << "chromium did not finish in 90 s: " << command;
    EXPECT_EQ(r.status.code, 0) << command << "\n" << read_file(log);
    return read_file(out);
  }

  // The DOM after a budget of virtual time, kept as an artifact. Virtual
  // time does not wait for the player's WebAssembly terminal to compile on
  // another thread, so on a busy machine the budget could run out before
  // the first frame is drawn (not seen here): then it is tried
  // once more with a longer budget.
  std::string dump_dom(const std::string& page, const std::string& fragment,
                       const std::string& name) {
    std::string dom;
    for (const int budget_ms : {8000, 30000}) {
      dom = chromium("file://" + page + fragment,
                     "--virtual-time-budget=" + std::to_string(budget_ms) + " --dump-dom", name);
      if (terminal_text(dom).find_first_not_of(" \n") != std::string::npos) break;
    }
    std::ofstream(kArtifacts / (name + ".dom.html")) << dom;
    return dom;
  }

  void screenshot(const std::string& page, const std::string& fragment, const std::string& name) {
    const fs::path png = kArtifacts / (name + ".png");
    fs::remove(png);
    chromium("file://" + page + fragment,
             "--virtual-time-budget=8000 --window-size=1280,3000 --screenshot=" +
                 shell_quote(png.string()),
             name + "-screenshot");
    EXPECT_TRUE(fs::exists(png) && fs::file_size(png) > 10000) << png;
  }

  std::string write_page(const std::string& run, const std::string& name, std::string* output) {
    const std::string page = (kArtifacts / (name + ".html")).string();
    const RunResult r = run_page({run, "-o", page});
    EXPECT_EQ(r.status.code, 0) << r.output;
    if (output) *output = r.output;
    return page;
  }

  std::string chromium_;
  std::string unshare_;
  std::string dir_;
};

TEST_F(PageBrowserTest, TheNamespaceHasNoNetwork) {
  const RunResult r = run_command({"/bin/sh", "-c", unshare_ + " cat /proc/net/dev"});
  ASSERT_EQ(r.status.code, 0) << r.output;
  // Two header lines and lo.
  EXPECT_EQ(count(r.output, "\n"), 3u) << r.output;
  EXPECT_NE(r.output.find("lo:"), std::string::npos) << r.output;
}

TEST_F(PageBrowserTest, Lab02PagePlaysAndShowsEverything) {
  const fs::path recording =
      fs::path(fabriclab::build_paths::source_dir()) / "recordings/02-dropped-packet";
  std::string output;
  const std::string page = write_page(recording.string(), "02-dropped-packet", &output);
  const auto run = nlohmann::json::parse(read_file((recording / "run.json").string()));

  const std::string dom = dump_dom(page, "", "02-dropped-packet");
  ASSERT_NE(dom.find("data-player=\"mounted\""), std::string::npos)
      << "page.js did not mount the player: " << dom.substr(0, 2000);
  const std::string terminal = terminal_text(dom);
  EXPECT_NE(terminal.find("What one dropped packet costs"), std::string::npos)
      << "the player's terminal should show the cast's first lines:\n"
      << terminal.substr(0, 3000);
  EXPECT_NE(terminal.find("tcp_congestion_control=reno"), std::string::npos)
      << terminal.substr(0, 3000);

  EXPECT_EQ(count(results_body(dom), "<tr"), run["scenarios"].size());
  for (const auto& chart : run["charts"]) {
    const std::string id =
        "<figure class=\"fl-chart\" id=\"chart-" + chart.get<std::string>() + "\">";
    const std::size_t at = dom.find(id);
    ASSERT_NE(at, std::string::npos) << chart;
    EXPECT_EQ(dom.compare(dom.find('<', at + id.size()), 4, "<svg"), 0) << chart;
  }
  std::smatch markers;
  ASSERT_TRUE(std::regex_search(output, markers, std::regex(R"((\d+) markers)"))) << output;
  // A marker's container is placed on the bar ("left: N%"); the bar's own
  // hover tooltip has one too, unplaced.
  EXPECT_EQ(count(dom, "ap-marker-container ap-tooltip-container\" style=\"left:"),
            std::stoul(markers[1].str()))
      << "every marker on the player's timeline";
  EXPECT_GE(std::stoul(markers[1].str()), run["scenarios"].size());
  EXPECT_NE(dom.find("latency starts"), std::string::npos) << "a scenario marker's label";

  screenshot(page, "", "02-dropped-packet");
}

TEST_F(PageBrowserTest, HostileRecordingStaysInert) {
  const std::string run = copy_recording("02-dropped-packet", dir_);
  const double hostile_s = make_hostile(run);
  const std::string page = write_page(run, "hostile", nullptr);

  // Start playing just after the attacks, so their text is on the screen.
  const std::string at = "#t=" + std::to_string(hostile_s + 0.45);
  const std::string dom = dump_dom(page, at, "hostile");
  ASSERT_NE(dom.find("data-player=\"mounted\""), std::string::npos) << dom.substr(0, 2000);
  const std::string terminal = terminal_text(dom);
  EXPECT_NE(terminal.find("hostile: &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
            std::string::npos)
      << "the payload, as text on the terminal:\n"
      << terminal;
  EXPECT_NE(terminal.find("after the attacks"), std::string::npos) << terminal;

  EXPECT_EQ(dom.find(kPwned), std::string::npos) << "an injected script or handler ran";
  EXPECT_EQ(count(dom, "<script"), 3u) << "a script element from the recording";
  EXPECT_EQ(dom.find("<img"), std::string::npos) << "an element from the recording";
  EXPECT_EQ(dom.find("<b>bold"), std::string::npos) << "an element from the recording";
  std::smatch title;
  ASSERT_TRUE(std::regex_search(dom, title, std::regex("<title>([^<]*)</title>")));
  EXPECT_NE(title[1].str().find("fabriclab lab 02"), std::string::npos) << title[1];

  screenshot(page, at, "hostile");
}

// A scenario's name in the results table moves the player to where that
// scenario started: a click, made by a script the test adds to a copy of the
// page (with the page's own CSP nonce, or the browser would refuse it).
TEST_F(PageBrowserTest, AScenarioButtonJumpsToItsStart) {
  std::string output;
  const std::string page = write_page(
      std::string(fabriclab::build_paths::source_dir()) + "/recordings/02-dropped-packet",
      "02-click", &output);
  std::string html = read_file(page);
  std::smatch nonce;
  ASSERT_TRUE(std::regex_search(html, nonce, std::regex("'nonce-([0-9a-f]+)'")));
  const std::string click =
      "<script nonce=\"" + nonce[1].str() +
      "\">setTimeout(function () { document.querySelector("
      "'tr[data-scenario=\"both\"] button.fl-seek').click(); }, 500);</script>\n";
  html.insert(html.rfind("</body>"), click);
  const std::string clicked = dir_ + "/clicked.html";
  std::ofstream(clicked) << html;

  // The click seeks to the scenario's marker, and page.js notes where the
  // seek landed (data-seeked, % of the timeline). That, not the screen, is
  // checked: the player's terminal redraws on its own schedule, so what it
  // shows within the virtual-time budget depends on the machine's load. The
  // page is loaded again (the click is made once per load) until the seek
  // has been noted.
  std::smatch row;
  ASSERT_TRUE(std::regex_search(
      html, row, std::regex(R"re(<tr data-scenario="both"[^>]*>[\s\S]*?data-marker="(\d+)")re")));
  const std::size_t marker = std::stoul(row[1].str());
  std::string dom;
  std::smatch seeked;
  for (int attempt = 0; attempt < 3; ++attempt) {
    dom = dump_dom(clicked, "", "02-click");
    if (std::regex_search(dom, seeked, std::regex(R"re(data-seeked="([0-9.]+)")re"))) break;
  }
  ASSERT_FALSE(seeked.empty()) << "the button's seek never completed:\n" << dom.substr(0, 2000);
  std::vector<double> markers_at;  // each marker's place on the timeline, in %
  const std::regex placed(R"(ap-marker-container ap-tooltip-container" style="left: ?([0-9.]+)%)");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), placed); it != std::sregex_iterator();
       ++it)
    markers_at.push_back(std::stod((*it)[1].str()));
  ASSERT_LT(marker, markers_at.size()) << dom.substr(0, 2000);
  EXPECT_NEAR(std::stod(seeked[1].str()), markers_at[marker], 0.05)
      << "the 'both' button should seek to marker " << marker;
}

// A run killed before its first line leaves a session.cast of a header
// alone: the page still mounts its player (on an empty terminal).
TEST_F(PageBrowserTest, ACastWithoutEventsStillMounts) {
  const std::string run = copy_recording("01-training-loop", dir_);
  const std::string header = read_file(run + "/session.cast");
  std::ofstream(run + "/session.cast") << header.substr(0, header.find('\n') + 1);
  const std::string page = write_page(run, "header-only", nullptr);
  const std::string dom =
      chromium("file://" + page, "--virtual-time-budget=5000 --dump-dom", "header-only");
  EXPECT_NE(dom.find("data-player=\"mounted\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("class=\"ap-term-text"), std::string::npos) << "no terminal drawn";
}

}  // namespace
}  // namespace fabriclab::testing
