// How a grade is shown: a table for the student, or one JSON object for
// classroom autograders (labs/SCHEMA.md, "Grading output"):
//
//   {"format": "fabriclab-grade", "version": 1, "lab": "02",
//    "recording": DIR, "answers": FILE,
//    "passed": bool (every exercise passed), "score": N, "max_score": M,
//    "consistent": bool,
//    "problems": [{"scenario": NAME|null, "rank": N|null, "message": ...}],
//    "exercises": [{"id", "kind", "status": "pass"|"fail", "points",
//                   "earned", "reason": str|null, "hint": str|null,
//                   kind prediction only: "prediction": {"before", "predicted",
//                   "recorded_unix_s", "measured", "difference_percent",
//                   "explain", "changed_after_run_to"} (nulls when unknown;
//                   the whole object null when the recording was damaged)}]}
//
// Neither form contains an expected answer, except a prediction's measured
// value (prediction_grade.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/grading/grader.h"

namespace fabriclab::runner::grading {

std::string format_grade_text(const GradeReport& report);
nlohmann::json grade_json(const GradeReport& report);

}  // namespace fabriclab::runner::grading
