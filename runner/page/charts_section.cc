#include "runner/page/charts_section.h"

#include <spdlog/fmt/fmt.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "common/file_text.h"
#include "common/temp_dir.h"
#include "runner/page/html_text.h"
#include "runner/report/chart_kind.h"
#include "runner/report/charts.h"

namespace fabriclab::runner::page {
namespace {

// Markup that could run code or fetch something, in any case.
const std::regex& active_content() {
  static const std::regex pattern(
      R"(<\s*(script|foreignobject|iframe|object|embed|image|use\s[^>]*href\s*=\s*['"][^#])|\son[a-z]+\s*=|javascript:|href\s*=\s*['"](?!#))",
      std::regex::icase | std::regex::ECMAScript | std::regex::optimize);
  return pattern;
}

// The tags of `svg` alone, text between them left out. A quoted attribute
// value is part of its tag even when it holds '>' (so nothing can hide an
// attribute from the check by ending the tag early in the eyes of a regex).
std::string tags_of(const std::string& svg) {
  std::string tags;
  bool in_tag = false;
  char quote = 0;
  for (const char c : svg) {
    if (!in_tag) {
      in_tag = c == '<';
    } else if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      in_tag = false;
    }
    if (in_tag || c == '>') tags += c;
  }
  return tags;
}

std::string prefix_ids(const std::string& svg, const std::string& prefix) {
  static const std::regex id(R"(\bid=(['"]))");
  static const std::regex reference(R"((href=['"]#|url\(#))");
  std::string out = std::regex_replace(svg, id, "id=$1" + prefix);
  return std::regex_replace(out, reference, "$1" + prefix);
}

std::string chart_title(const std::string& stem) {
  const report::ChartKind* kind = report::find_chart(stem);
  return kind ? kind->title : stem;
}

}  // namespace

std::optional<std::string> inline_svg(const std::string& svg, const std::string& id_prefix,
                                      std::string& why) {
  const std::size_t start = svg.find("<svg");
  const std::size_t end = svg.rfind("</svg>");
  if (start == std::string::npos || end == std::string::npos || end < start) {
    why = "not an SVG document (no <svg> ... </svg>)";
    return std::nullopt;
  }
  // Before <svg> only gnuplot's prolog may stand: <?xml ...?>, a doctype,
  // comments and white space; after </svg> nothing but white space.
  static const std::regex prolog(
      R"(^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--[^>]*-->\s*)*$)", std::regex::icase);
  if (!std::regex_match(svg.substr(0, start), prolog) ||
      svg.find_first_not_of(" \t\r\n", end + 6) != std::string::npos) {
    why = "something other than one <svg> element in the file";
    return std::nullopt;
  }
  const std::string element = svg.substr(start, end + 6 - start);
  // Only the markup is checked, not the text between tags: a legend may say
  // "onerror=" (escaped by gnuplot, it is just words on the chart).
  const std::string markup = tags_of(element);
  std::smatch found;
  if (std::regex_search(markup, found, active_content())) {
    why = "active content (" + found.str(0) + ")";
    return std::nullopt;
  }
  return prefix_ids(element, id_prefix);
}

ChartsHtml charts_section(const report::RunDirectory& run,
                          const std::vector<report::ScenarioSummary>& summaries) {
  ChartsHtml out;
  const TempDir scratch("fabriclab-page");
  report::ChartOptions options;
  options.charts_dir = scratch.path();
  options.text = false;
  const report::ChartOutput charts = report::render_charts(run, summaries, options);
  out.problems = charts.problems;

  std::string figures;
  for (const auto& path : charts.svg_files) {
    const std::string stem = path.stem().string();
    std::string why;
    const std::optional<std::string> svg = inline_svg(read_file_text(path), stem + "-", why);
    if (!svg) {
      out.problems.push_back("chart " + stem + " left out: " + why);
      continue;
    }
    figures += fmt::format(
        "<figure class=\"fl-chart\" id=\"chart-{}\">\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
        html_escape(stem), *svg, html_escape(chart_title(stem)));
    ++out.charts;
  }
  std::string problems;
  for (const std::string& problem : out.problems) {
    problems += "<li>" + html_escape(problem) + "</li>";
  }
  out.html = "<section id=\"charts\">\n<h2>Charts</h2>\n" + figures +
             (problems.empty() ? "" : "<ul class=\"fl-problems\">" + problems + "</ul>\n") +
             "</section>\n";
  return out;
}

}  // namespace fabriclab::runner::page
