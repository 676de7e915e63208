// The congestion lab's queue words (netem/queue/port_spec.h): any text either
// parses or is refused with InputError, and what parses prints back to words
// that parse to the same port.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/input_error.h"
#include "netem/queue/port_spec.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabriclab;
  netem::PortSpec spec;
  try {
    spec = netem::parse_port_spec(fuzz::text_of(data, size));
  } catch (const InputError&) {
    return 0;
  }
  const std::string words = netem::print_port_spec(spec);
  if (!(netem::parse_port_spec(words) == spec)) {
    std::fprintf(stderr, "round trip broken: printed \"%s\", read back as \"%s\"\n",
                 words.c_str(), netem::print_port_spec(netem::parse_port_spec(words)).c_str());
    std::abort();
  }
  return 0;
}
