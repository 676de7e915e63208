// Property checks: what a student's run must show (kind = "property") and
// the conditions that pick a choice's expected option (`when`). A fixed
// vocabulary (labs/SCHEMA.md, "Checks"):
//
//   scenario NAME STATUS      that scenario ended with STATUS
//                             (completed | stalled | deadline | failed | skipped;
//                             alternatives joined by '|', e.g. stalled|deadline)
//   any scenario STATUS       at least one scenario did
//   no scenario STATUS        none did
//   PATH OP NUMBER            a number from the recording (value_source.h)
//                             compared with OP in >= <= > < ==
//   otherwise                 (choice options only) no earlier option held
//
// Contract: validate_check() throws std::invalid_argument at load time;
// check_holds() throws DeriveError when the recording lacks the number.
#pragma once

#include <string>
#include <vector>

#include "runner/grading/exercise.h"
#include "runner/grading/recording.h"

namespace fabriclab::runner::grading {

void validate_check(const std::string& check, const LabSpec& lab);
bool check_holds(const std::string& check, const LabSpec& lab, const Recording& rec);
std::vector<std::string> check_scenarios(const std::string& check, const LabSpec& lab);

}  // namespace fabriclab::runner::grading
