// The page's charts: the report's own gnuplot charts (runner/report/charts.h,
// the ones run.json names), drawn into a temporary folder -- the run
// directory is left as it is -- and inlined as <svg> elements, one <figure>
// each.
//
// Inlining SVG puts gnuplot's markup into the page, so each file is checked
// before it goes in (inline_svg): the XML prolog and doctype are cut, the
// <svg> element must be all there is, and a file whose markup (its tags;
// text between tags is only shown) has anything that could run or load
// something (script, foreignObject, iframe/object/embed/image, on*=
// attributes, javascript: or links other than "#id") is left out with a
// problem instead. gnuplot's svg terminal writes none of these and escapes
// text (a condition "<b>" is drawn as "&lt;b>"); the page's Content-Security-
// Policy blocks scripts without its nonce as well (page_writer.h). Ids are
// prefixed with the chart's name, since gnuplot gives every file the same
// ones (gpPt0, gnuplot_canvas, ...).
//
// Problems (no gnuplot, a gnuplot error, a refused file) are returned, and
// the section says so in place of the chart; they are never fatal.
// Thread safety: launches gnuplot as child processes (runner/report/gnuplot.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::page {

struct ChartsHtml {
  std::string html;  // <section id="charts">...</section>
  int charts = 0;    // how many <svg> went in
  std::vector<std::string> problems;
};

ChartsHtml charts_section(const report::RunDirectory& run,
                          const std::vector<report::ScenarioSummary>& summaries);

// gnuplot's SVG file text as an element to inline, ids prefixed with
// `id_prefix`; nullopt (and `why`) when it is not plain SVG as described above.
std::optional<std::string> inline_svg(const std::string& svg, const std::string& id_prefix,
                                      std::string& why);

}  // namespace fabriclab::runner::page
