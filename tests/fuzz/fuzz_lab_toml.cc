// lab.toml (runner/lab/lab_definition.h): load_lab() reads a path, so the
// input is written to <scratch>/NN-fuzz/lab.toml, NN being the id the text
// gives (`id = "NN"`) so that a lab's own file gets past the folder check.
// Loaded both ways a run can (quick and not).
#include <cstdint>
#include <regex>
#include <string>

#include "common/input_error.h"
#include "runner/lab/lab_definition.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabriclab;
  static const std::regex kId("id *= *\"([0-9][0-9])\"");
  const std::string text = fuzz::text_of(data, size);
  std::smatch m;
  const std::string id = std::regex_search(text, m, kId) ? m[1].str() : "00";
  const auto path = fuzz::scratch_dir() / (id + "-fuzz") / "lab.toml";
  fuzz::write_file(path, text);
  for (const bool quick : {false, true}) {
    try {
      runner::load_lab(path.string(), quick);
    } catch (const InputError&) {
    }
  }
  return 0;
}
