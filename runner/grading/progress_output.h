// How `fabriclab progress` shows a CourseProgress (lab_progress.h): a block
// per lab for the student, or one JSON object for scripts:
//
//   {"format": "fabriclab-progress", "version": 1, "labs_dir": DIR, "runs_dir": DIR,
//    "labs": [{"id", "title", "summary", "state": "done"|"failing"|"not graded"|
//              "damaged"|"not run"|"lab error", "left": str, "problem": str|null,
//              "max_score": N, "exercises": N,
//              "run": null | {"dir", "started_unix_s", "quick": bool, "lesson_held": bool|null},
//              "grade": null | {"answers", "score", "max_score", "failing": [ids]}}],
//    "total": {"labs": N, "done": N, "score": N, "max_score": N}}
//
// Neither form contains an expected answer (only scores and exercise ids).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/grading/lab_progress.h"

namespace fabriclab::runner::grading {

// "done", "not run (fabriclab run 02)", "2 exercises failing: stall, why-x", ...
std::string left_text(const LabProgress& lab);
// "2026-11-23 14:06 UTC" (unix seconds; "time unknown" for 0).
std::string utc_minute(double unix_s);

std::string format_progress_text(const CourseProgress& course);
nlohmann::json progress_json(const CourseProgress& course);

}  // namespace fabriclab::runner::grading
