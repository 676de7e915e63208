// A second, different recording of a lab, made from its reference recording
// by a documented change, so that a test can grade the reference's
// hand-written answers against a run they were not written for.
//
// The change keeps the recording real-shaped: every number in it was
// measured by a real run of the same lab, and the grader's consistency check
// (runner/grading/consistency.h) still holds, so an exercise that then fails
// fails on its value, not because the recording looks damaged.
//
//  - `takes`: scenario X holds what scenario Y measured (X -> Y, a
//    permutation of some of the lab's scenarios): the run's measurements --
//    status, steps, ranks, result row, and every metrics.jsonl event --
//    move under the other name, while the scenario's spec (condition,
//    impairments, placement, sweep, baseline) stays. A student whose run
//    came out the other way round would hand in this recording.
//  - every result's `slowdown` and `busbw_ratio` is recomputed against the
//    scenario's baseline as FORMAT.md defines them (the consistency check
//    holds slowdown to wall_s / the baseline's); other baseline-relative
//    fields (lab 07's step_slowdown, amplification) travel with their data.
//  - the seed is the next one for which every `seed:` label of the run
//    (run.json's link_picks) draws another rank, and link_picks say so; the
//    measurements still show the old rank, which no grader rule reads.
//  - `accuracy_shift`: added to every eval's (and the final event's and
//    result's) accuracy -- a model that learned less.
#pragma once

#include <map>
#include <string>

namespace fabriclab::runner::grading::testing {

struct RunChange {
  std::map<std::string, std::string> takes;  // scenario -> the scenario whose data it holds
  double accuracy_shift = 0;
};

// Copies `reference_dir` to `out_dir` (which must not exist) with `change`
// and a new seed applied. Throws std::runtime_error when `takes` names a
// scenario the recording does not have or is not a permutation.
void write_second_recording(const std::string& reference_dir, const std::string& out_dir,
                            const RunChange& change);

}  // namespace fabriclab::runner::grading::testing
