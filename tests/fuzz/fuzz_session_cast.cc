// session.cast (runner/cast/): the asciicast reader, the player (at a
// speed where no wait is felt) and the terminal sanitizer, which must keep
// its promise: nothing it lets through opens an OSC, DCS or other string, and
// plain_text() leaves no control character at all.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/input_error.h"
#include "runner/cast/cast_reader.h"
#include "runner/cast/player.h"
#include "runner/cast/terminal_sanitizer.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// No control character: C0 or DEL, nor C1 -- a byte 0x80-0x9F on its own, or
// UTF-8 U+0080-U+009F (0xC2 0x80-0x9F). A byte 0x80-0xBF that continues a
// UTF-8 lead byte is text.
bool plain(const std::string& s) {
  int continuation = 0;  // bytes still expected after a lead byte
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (continuation > 0 && c >= 0x80 && c <= 0xbf) {
      --continuation;
      continue;
    }
    continuation = 0;
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f)) return false;
    if (c == 0xc2 && i + 1 < s.size()) {
      const auto next = static_cast<unsigned char>(s[i + 1]);
      if (next >= 0x80 && next <= 0x9f) return false;
    }
    if (c >= 0xc2 && c <= 0xdf) continuation = 1;
    if (c >= 0xe0 && c <= 0xef) continuation = 2;
    if (c >= 0xf0 && c <= 0xf4) continuation = 3;
  }
  return true;
}

// Safe output never starts a control string: ESC ] / P / X / ^ / _.
bool no_string_introducer(const std::string& s) {
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != '\x1b') continue;
    const char next = s[i + 1];
    if (next == ']' || next == 'P' || next == 'X' || next == '^' || next == '_') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fabriclab;
  const std::string text = fuzz::text_of(data, size);

  // The sanitizer on the raw bytes too, fed in two pieces (a sequence split
  // across events must be handled as a whole).
  runner::TerminalSanitizer sanitizer;
  std::string safe = sanitizer.feed(std::string_view(text).substr(0, text.size() / 2));
  safe += sanitizer.feed(std::string_view(text).substr(text.size() / 2));
  safe += sanitizer.finish();
  if (!no_string_introducer(safe)) std::abort();
  if (!plain(runner::plain_text(text))) std::abort();

  runner::Cast cast;
  try {
    std::istringstream in(text);
    cast = runner::parse_cast(in, "session.cast");
  } catch (const InputError&) {
    return 0;
  }
  std::ostringstream out;
  const std::atomic<bool> stop{false};
  runner::PlayOptions options;
  options.speed = 1e12;  // every wait rounds to nothing
  options.idle_limit_s = 1e-9;
  runner::play_cast(cast, out, options, stop);
  if (!no_string_introducer(out.str())) std::abort();
  for (const runner::CastEvent& e : cast.events) {
    if (e.code == "m" && !plain(runner::plain_text(e.data))) std::abort();
  }
  return 0;
}
