// `fabriclab run all` (or a range, `run 02-05`): every selected lab in
// order on this machine, as `run NN` would run each, then one table
// (runner/scenario/course_summary.h). Every lab file and answers file is
// read first, so a bad one is exit 2 before anything runs; a lab that
// fails does not stop the others; a stop signal (Ctrl-C) stops the course
// after the lab it interrupted has cleaned up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runner/scenario/lab_run.h"

namespace fabriclab::cli {

struct CourseOptions {
  std::vector<std::string> lab_files;  // by number
  runner::LabRunOptions run;           // what every lab's run shares (no scenarios, no seed)
  std::optional<uint64_t> seed;        // one seed for every lab; nullopt: a random one each
};

// The exit code: 0 when every lab ran as it expects, 1 otherwise.
int run_course(const CourseOptions& options);

}  // namespace fabriclab::cli
