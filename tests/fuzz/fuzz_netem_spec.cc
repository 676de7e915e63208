// Impairment words (tc-netem, netem/spec_parse.h): any text either parses or
// is refused with InputError, and what parses prints back to words that
// parse to the same spec (the round trip spec_parse.h promises).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/input_error.h"
#include "netem/spec_parse.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabriclab;
  netem::Spec spec;
  try {
    spec = netem::parse_spec(fuzz::text_of(data, size));
  } catch (const InputError&) {
    return 0;
  }
  // A spec that parsed must print to words that parse again, to the same spec.
  const std::string words = netem::print_spec(spec);
  const std::string again = netem::print_spec(netem::parse_spec(words));
  if (!(netem::parse_spec(words) == spec)) {
    std::fprintf(stderr, "round trip broken: printed \"%s\", read back as \"%s\"\n",
                 words.c_str(), again.c_str());
    std::abort();
  }
  return 0;
}
