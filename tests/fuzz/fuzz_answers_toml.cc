// answers.toml (runner/grading/answers.h), read against the lab its first
// line names ("# Answers for lab 02 ..."; lab 02 when it names none), as
// `fabriclab grade` reads it. load_answers() reads a path: the input is
// written to a scratch file first.
#include <cstdint>
#include <string>

#include "common/input_error.h"
#include "runner/grading/answers.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabriclab;
  const std::string text = fuzz::text_of(data, size);
  const runner::LabDefinition& lab = fuzz::lab_named_in(text);
  const auto path = fuzz::scratch_dir() / "answers.toml";
  fuzz::write_file(path, text);
  try {
    runner::grading::load_answers(path.string(), lab);
  } catch (const InputError&) {
  }
  return 0;
}
