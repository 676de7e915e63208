// What `fabriclab run` checks and takes before anything starts, for one lab
// (`run NN`) or many (`run all`): the output folder can be written, and the
// student's predictions are read from their answers file now, so a bad file
// is exit 2 before any namespace exists.
#pragma once

#include <string>

#include "runner/lab/lab_definition.h"
#include "runner/scenario/lab_run.h"

namespace fabriclab::cli {

// `path` is, or can be made, a folder this process may write in: its
// nearest existing ancestor is a writable directory. InputError naming
// `flag` otherwise.
void require_writable_folder(const std::string& flag, const std::string& path);

// The student's predictions (labs/SCHEMA.md, "Predictions"), taken now:
// from `answers_flag` when given, else from OUTPUT/NN-answers.toml when the
// lab asks for predictions and the file exists. Sets options.answers_path
// and options.predictions. A malformed file throws InputError; a missing
// prediction is not an error (the run says so and grading gives it nothing).
void take_predictions(const runner::LabDefinition& lab, const std::string& answers_flag,
                      const std::string& output, runner::LabRunOptions& options);

}  // namespace fabriclab::cli
