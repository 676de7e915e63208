// The page's results: one table row per scenario, the same numbers as the
// terminal's summary table (runner/report/summary_table.h; definitions in
// recordings/FORMAT.md, "result"), computed from metrics.jsonl by
// runner/report/scenario_summary.h; each scenario's name is a button that
// moves the player to its start (`marks`, player_cast.h), and a stalled or
// cut-off scenario's status to where that was declared. Under the table: why
// each scenario that did not complete stopped, and the lab's own text tables
// (run.json "tables", runner/report/table_kind.h) as preformatted text.
//
// Every value is escaped (html_text.h). Pure function, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/page/player_cast.h"
#include "runner/report/run_directory.h"
#include "runner/report/scenario_summary.h"

namespace fabriclab::runner::page {

// <section id="results">...</section>; the table is <table id="fl-results">
// with one <tr> per scenario in its <tbody>.
std::string results_section(const report::RunDirectory& run,
                            const std::vector<report::ScenarioSummary>& summaries,
                            const std::vector<ScenarioMark>& marks);

}  // namespace fabriclab::runner::page
