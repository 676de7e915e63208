#include "runner/report/result/recorded_results.h"

#include "common/input_error.h"
#include "runner/report/result/result_parts.h"
#include "runner/rundir/json_line.h"

namespace fabriclab::runner::report {

std::optional<std::string> misfit_result_key(const nlohmann::json& row) {
  if (!row.is_object()) return std::nullopt;  // the run reader refuses a row that is none
  for (const auto& [key, value] : row.items()) {
    const ResultField* field = find_result_field(key);
    if (field && !is_figure(field->kind)) continue;
    if (!value.is_number() && !value.is_null()) return key;
  }
  return std::nullopt;
}

void check_recorded_results(const rundir::RunDirectory& run) {
  const std::string path = (run.path / rundir::kManifestFile).string();
  for (size_t i = 0; i < run.scenarios.size(); ++i) {
    const rundir::RecordedScenario& scenario = run.scenarios[i];
    const std::optional<std::string> key = misfit_result_key(scenario.result);
    if (!key) continue;
    std::string shown = scenario.result[*key].dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    const long line = run.manifest_text.empty()
                          ? 1
                          : rundir::json_line_of(run.manifest_text,
                                                 {"scenarios", std::to_string(i), "result", *key});
    throw input_error_at(path, line,
                         "scenario '" + scenario.name + "': field 'result." + *key +
                             "': expected a number or null, got " + shown);
  }
}

}  // namespace fabriclab::runner::report
