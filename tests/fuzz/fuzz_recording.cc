// A recording as the grader reads it (runner/grading/graded_run.h) and its
// consistency check (runner/grading/consistency.h). Input: run.json's text,
// then a NUL byte, then metrics.jsonl's text (no NUL: an empty metrics file).
// The check runs against the lab run.json names (lab.id), else lab 02.
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "runner/grading/consistency.h"
#include "runner/grading/graded_run.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabriclab;
  const std::string text = fuzz::text_of(data, size);
  const size_t nul = text.find('\0');
  const auto dir = fuzz::scratch_dir() / "run";
  fuzz::write_file(dir / "run.json", text.substr(0, nul));
  fuzz::write_file(dir / "metrics.jsonl", nul == std::string::npos ? "" : text.substr(nul + 1));
  runner::grading::GradedRun rec;
  try {
    rec = runner::grading::load_graded_run(dir.string());
  } catch (const InputError&) {
    return 0;
  }
  auto lab = fuzz::labs().find(rec.lab_id);
  runner::grading::check_consistency(lab != fuzz::labs().end() ? lab->second : fuzz::labs().at("02"),
                                     rec);
  return 0;
}
