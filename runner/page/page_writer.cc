#include "runner/page/page_writer.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include "common/input_error.h"
#include "runner/lab/lab_definition.h"
#include "runner/page/charts_section.h"
#include "runner/page/conditions_section.h"
#include "runner/page/exercises_section.h"
#include "runner/page/lesson_section.h"
#include "runner/page/html_text.h"
#include "runner/page/json_text.h"
#include "runner/page/page_assets.h"
#include "runner/page/player_cast.h"
#include "runner/page/results_section.h"
#include "runner/cast/cast_reader.h"
#include "runner/report/run_directory.h"
#include "runner/rundir/run_format.h"

namespace fabriclab::runner::page {
namespace {

using nlohmann::json;

// 128 random bits as hex: the CSP nonce that only this page's scripts carry.
std::string fresh_nonce() {
  std::random_device random;
  std::string nonce;
  for (int i = 0; i < 4; ++i) nonce += fmt::format("{:08x}", random());
  return nonce;
}

// The bundles go inside <script> and <style> elements, whose text the HTML
// parser ends at the first "</script" or "</style" (any case): a bundle that
// holds one cannot be inlined as it is. The pinned version holds none
// (tests/runner/page/page_assets_test.cc); a newer one would be caught here.
void check_inlinable(std::string_view text, const std::string& end_tag, const char* what) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find(end_tag) != std::string::npos || lower.find("<!--") != std::string::npos) {
    throw std::runtime_error(
        fmt::format("{} contains \"{}\" or \"<!--\" and cannot be inlined", what, end_tag));
  }
}

const json& lab_of(const json& manifest) {
  static const json kEmpty = json::object();
  const auto lab = manifest.find("lab");
  return lab != manifest.end() && lab->is_object() ? *lab : kEmpty;
}

// The lab the recording is of, from the labs folder; null with `note` saying
// why when it cannot be had.
std::unique_ptr<LabDefinition> find_lab(const json& manifest, const std::string& labs_dir,
                                        std::string& note) {
  const json& lab = lab_of(manifest);
  std::string which = plain(lab.value("name", json()));
  if (which.empty()) which = plain(lab.value("id", json()));
  if (which.empty()) {
    note = "run.json does not say which lab it is a run of, so its exercises are not shown.";
    return nullptr;
  }
  try {
    // The lab as this run drew it (run.json `conditions`, draw.h).
    return std::make_unique<LabDefinition>(load_lab(
        find_lab_file(labs_dir, which), false, conditions_from_json(manifest.value("conditions", json()))));
  } catch (const InputError& e) {
    note = std::string("The lab's exercises are not shown: ") + e.what();
    return nullptr;
  }
}

std::string session_section(const PlayerCast& cast) {
  std::string scenarios;
  for (const ScenarioMark& mark : cast.scenarios) {
    if (mark.status != "start") continue;
    scenarios += fmt::format(
        "<li><button type=\"button\" class=\"fl-seek\" data-marker=\"{}\">{}</button> "
        "<span class=\"fl-time\">{:.1f} s</span></li>",
        mark.marker, html_escape(mark.scenario), mark.time_s);
  }
  return fmt::format(
      "<section id=\"session\">\n<h2>The session</h2>\n<div id=\"fl-player\"></div>\n"
      "<p class=\"fl-meta\">{:.0f} s recorded; the marks on the timeline are where each scenario "
      "started and ended (and where a stall was declared): hover to read, click to jump. "
      "Escape sequences that could act on a terminal were removed, as <code>fabriclab "
      "replay</code> does ({} here).</p>\n{}</section>\n",
      cast.duration_s, cast.removed,
      scenarios.empty() ? "" : "<ul class=\"fl-jumps\">" + scenarios + "</ul>\n");
}

std::string page_title(const json& manifest) {
  const json& lab = lab_of(manifest);
  std::string title = "fabriclab lab " + plain(lab.value("id", json()));
  const std::string name = plain(lab.value("title", json()));
  if (!name.empty()) title += ": " + name;
  const std::string run = plain(manifest.value("run_id", json()));
  if (!run.empty()) title += " (run " + run + ")";
  return title;
}

}  // namespace

PageSummary write_page(const std::filesystem::path& run_dir, std::ostream& out,
                       const PageOptions& options) {
  if (!player_assets_present()) {
    throw std::runtime_error(
        "this fabriclab was built without asciinema-player (node_modules/asciinema-player): "
        "run scripts/setup.sh (it runs npm ci), then rebuild");
  }
  check_inlinable(player_js(), "</script", "asciinema-player's script");
  check_inlinable(page_js(), "</script", "page.js");
  check_inlinable(player_css(), "</style", "asciinema-player's style");
  check_inlinable(page_css(), "</style", "page.css");

  // Everything is read and checked before a byte is written.
  const report::RunDirectory run = report::read_run_directory(run_dir);
  const Cast cast = read_cast((run_dir / rundir::kSessionCastFile).string());
  const std::vector<report::ScenarioSummary> summaries = report::summarize_run(run);
  const PlayerCast player = player_cast(cast);
  std::string lab_note;
  const std::unique_ptr<LabDefinition> lab = find_lab(
      run.manifest, options.labs_dir.empty() ? default_labs_dir() : options.labs_dir, lab_note);
  ChartsHtml charts = charts_section(run, summaries);

  PageSummary summary;
  summary.scenarios = summaries.size();
  summary.markers = player.labels.size();
  summary.charts = charts.charts;
  summary.exercises = lab ? lab->exercises.size() : 0;
  summary.removed_sequences = player.removed;
  summary.problems = charts.problems;
  if (!lab) summary.problems.push_back(lab_note);

  double poster_s = player.duration_s;  // the first scenario's start: the lab's header is shown
  for (const ScenarioMark& mark : player.scenarios) poster_s = std::min(poster_s, mark.time_s);
  const json data = {
      {"cast", player.asciicast}, {"idle_limit_s", options.idle_limit_s}, {"poster_s", poster_s}};

  const std::string nonce = fresh_nonce();
  const std::string title = page_title(run.manifest);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      << "script-src 'nonce-" << nonce << "' 'wasm-unsafe-eval'; style-src 'unsafe-inline'; "
      << "img-src data:; font-src data:; base-uri 'none'; form-action 'none'\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<meta name=\"generator\" content=\"fabriclab page " << FABRICLAB_VERSION
      << ", asciinema-player " << html_escape(player_version()) << "\">\n"
      << "<title>" << html_escape(title) << "</title>\n"
      << "<style>\n"
      << player_css() << "\n</style>\n"
      << "<style>\n"
      << page_css() << "\n</style>\n</head>\n<body>\n"
      << "<header><h1>" << html_escape(title) << "</h1>\n"
      << "<nav><a href=\"#session\">session</a> <a href=\"#results\">results</a> "
      << (run.manifest.contains("lesson") ? "<a href=\"#lesson\">lesson</a> " : "")
      << "<a href=\"#conditions\">conditions</a> <a href=\"#charts\">charts</a> "
      << "<a href=\"#exercises\">exercises</a></nav></header>\n<main>\n"
      << session_section(player) << results_section(run, summaries, player.scenarios)
      << lesson_section(run.manifest) << conditions_section(run.manifest) << charts.html << exercises_section(lab.get(), lab_note)
      << "</main>\n"
      << "<footer>Written by <code>fabriclab page</code> " << FABRICLAB_VERSION
      << " from a recording (recordings/FORMAT.md). The terminal is played by asciinema-player "
      << html_escape(player_version()) << " (Apache-2.0), inlined.</footer>\n"
      << "<script type=\"application/json\" id=\"fl-data\">" << script_json(data) << "</script>\n"
      << "<script nonce=\"" << nonce << "\">\n"
      << player_js() << "\n</script>\n"
      << "<script nonce=\"" << nonce << "\">\n"
      << page_js() << "\n</script>\n"
      << "</body>\n</html>\n";
  return summary;
}

}  // namespace fabriclab::runner::page
