// Reads a lab's `[[exercise]]` tables (labs/SCHEMA.md, "Exercises") into the
// lab model; load_lab() calls it once the scenarios are known, so value
// paths and checks can be checked against the scenario names.
// Errors: InputError "lab.toml:LINE: exercise 'id': ..." (exit 2).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "runner/lab/answer_vocabulary.h"
#include "runner/lab/exercise.h"

namespace fabriclab::runner {

std::vector<Exercise> read_exercises(const std::string& lab_toml, const toml::table& root,
                                     const ScenarioNames& scenarios);

}  // namespace fabriclab::runner
