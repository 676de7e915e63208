// Property checks evaluated on a student's recording: what a run must show
// (kind = "property") and the conditions that pick a choice's expected
// option (`when`). Their grammar and load-time validation are the lab
// model's (runner/lab/answer_vocabulary.h).
//
// Contract: check_holds() throws DeriveError when the recording lacks the
// number a comparison reads.
#pragma once

#include <optional>
#include <string>

#include "runner/grading/graded_run.h"
#include "runner/lab/lab_definition.h"

namespace fabriclab::runner::grading {

bool check_holds(const std::string& check, const LabDefinition& lab, const GradedRun& rec);

// The two sides of a comparison as the run measured them, for saying why a
// check held or failed ("2.25 > 1.5"); null where a side has no number.
struct ComparedNumbers {
  std::optional<double> left, right;  // right: K x PATH2 already scaled
};
// nullopt for checks that compare nothing (statuses, words).
std::optional<ComparedNumbers> compared_numbers(const std::string& check, const LabDefinition& lab,
                                                const GradedRun& rec);

}  // namespace fabriclab::runner::grading
