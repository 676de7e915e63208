// Property checks evaluated on a student's recording: what a run must show
// (kind = "property") and the conditions that pick a choice's expected
// option (`when`). Their grammar and load-time validation are the lab
// model's (runner/lab/answer_vocabulary.h).
//
// Contract: check_holds() throws DeriveError when the recording lacks the
// number a comparison reads.
#pragma once

#include <string>

#include "runner/grading/graded_run.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

bool check_holds(const std::string& check, const LabDefinition& lab, const GradedRun& rec);

}  // namespace fabriclab::runner::grading
