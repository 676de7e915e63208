#include "runner/cast/terminal_sanitizer.h"

#include <cctype>
#include <cstring>

namespace fabriclab::runner {
namespace {

constexpr unsigned char kEsc = 0x1b;
constexpr unsigned char kBel = 0x07;
constexpr unsigned char kCan = 0x18;
constexpr unsigned char kSub = 0x1a;
constexpr unsigned char kDel = 0x7f;

bool is_kept_c0(unsigned char b) { return b == '\r' || b == '\n' || b == '\t' || b == '\b'; }
bool is_intermediate(unsigned char b) { return b >= 0x20 && b <= 0x2f; }
bool is_final(unsigned char b) { return b >= 0x40 && b <= 0x7e; }

bool contains(const char* set, unsigned char b) { return b != 0 && std::strchr(set, b) != nullptr; }

// CSI finals kept when the parameters are plain numbers: SGR, cursor
// movement, erase, insert/delete, scroll. None of them answers, persists
// beyond the screen contents, or reaches outside the terminal.
constexpr const char* kKeptCsiFinals = "mABCDEFGHfd`JKX@PLMSTsu";

}  // namespace

std::string plain_text(std::string_view text) {
  TerminalSanitizer sanitizer;
  const std::string safe = sanitizer.feed(text);
  // What is left are kept sequences, all well formed: ESC [ ... final,
  // ESC ( X / ESC ) X, or ESC X. Skip them, and every other control.
  std::string out;
  for (std::size_t i = 0; i < safe.size(); ++i) {
    const auto b = static_cast<unsigned char>(safe[i]);
    if (b == kEsc && i + 1 < safe.size()) {
      const char next = safe[i + 1];
      if (next == '[') {
        i += 2;
        while (i < safe.size() && !is_final(static_cast<unsigned char>(safe[i]))) ++i;
      } else {
        i += (next == '(' || next == ')') ? 2 : 1;
      }
    } else if (b >= 0x20 && b != kDel) {
      out += safe[i];
    }
  }
  return out;
}

std::string TerminalSanitizer::feed(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) step(static_cast<unsigned char>(c), out);
  return out;
}

// Leaving a sequence before its end: count it as removed, unless it was
// counted when it started (strings, ignored CSIs).
void TerminalSanitizer::abandon() {
  if (state_ == State::kEscape || state_ == State::kEscapeIntermediate || state_ == State::kCsi) {
    drop();
  }
}

std::string TerminalSanitizer::finish() {
  abandon();
  state_ = State::kGround;
  sequence_.clear();
  pending_c2_ = false;
  utf8_remaining_ = 0;
  return {};
}

void TerminalSanitizer::step(unsigned char byte, std::string& out) {
  const bool in_string = state_ == State::kString || state_ == State::kStringEscape;

  // 0xC2 0x80..0x9F is a C1 control written in UTF-8; decide once the second
  // byte is known.
  if (pending_c2_) {
    pending_c2_ = false;
    if (byte >= 0x80 && byte <= 0x9f) {
      c1(byte, out);
      return;
    }
    if (state_ == State::kGround) {
      if (byte >= 0xa0 && byte <= 0xbf) {
        out += static_cast<char>(0xc2);
        out += static_cast<char>(byte);
        return;
      }
      drop();  // a lone 0xC2: invalid UTF-8; remove it, handle `byte` normally
    }
  }

  // Controls that act in every state (ECMA-48 / the VT parsers terminals use).
  if (byte == kCan || byte == kSub) {
    if (state_ == State::kGround) {
      drop();
    } else {
      abandon();
    }
    state_ = State::kGround;
    sequence_.clear();
    return;
  }
  if (byte == kEsc && !in_string) {
    abandon();  // an unfinished sequence is removed
    state_ = State::kEscape;
    sequence_.assign(1, static_cast<char>(kEsc));
    return;
  }

  if (in_string) {
    if (state_ == State::kStringEscape) {
      if (byte == '\\') {  // ST
        state_ = State::kGround;
        return;
      }
      // ESC + anything else ends the string and starts a new sequence.
      state_ = State::kEscape;
      sequence_.assign(1, static_cast<char>(kEsc));
      if (byte != kEsc) step(byte, out);  // (ESC ESC: the second one starts it)
      return;
    }
    if (byte == kEsc) {
      state_ = State::kStringEscape;
    } else if (byte == kBel && string_is_osc_) {
      state_ = State::kGround;
    } else if (byte == 0x9c) {  // 8-bit ST
      state_ = State::kGround;
    } else if (byte == 0xc2) {
      pending_c2_ = true;  // maybe U+009C (ST)
    }
    return;  // payload: removed
  }

  if (state_ == State::kGround) {
    ground(byte, out);
    return;
  }

  // Inside ESC or CSI.
  if (byte < 0x20) {  // C0 inside a sequence: terminals execute it in place
    if (is_kept_c0(byte)) {
      out += static_cast<char>(byte);
    } else {
      drop();
    }
    return;
  }
  if (byte == kDel) return;  // ignored inside sequences, as terminals do
  if (byte >= 0x80) {
    // Not part of any ESC/CSI: the sequence is broken. Remove it and read
    // the byte as text (or as a C1 control).
    abandon();
    state_ = State::kGround;
    sequence_.clear();
    ground(byte, out);
    return;
  }

  switch (state_) {
    case State::kEscape:
      if (byte == '[') {
        state_ = State::kCsi;
        sequence_ += '[';
      } else if (byte == ']' || byte == 'P' || byte == 'X' || byte == '^' || byte == '_') {
        drop();
        string_is_osc_ = (byte == ']');
        state_ = State::kString;
        sequence_.clear();
      } else if (is_intermediate(byte)) {
        state_ = State::kEscapeIntermediate;
        sequence_ += static_cast<char>(byte);
      } else {
        escape_final(byte, out);
      }
      break;
    case State::kEscapeIntermediate:
      if (is_intermediate(byte)) {
        if (sequence_.size() < kMaxCsiBytes) sequence_ += static_cast<char>(byte);
      } else {
        escape_final(byte, out);
      }
      break;
    case State::kCsi:
      if (is_final(byte)) {
        csi_final(byte, out);
      } else if (sequence_.size() >= kMaxCsiBytes) {
        drop();
        state_ = State::kCsiIgnore;
        sequence_.clear();
      } else {
        sequence_ += static_cast<char>(byte);  // parameter or intermediate byte
      }
      break;
    case State::kCsiIgnore:
      if (is_final(byte)) state_ = State::kGround;
      break;
    default:
      break;
  }
}

void TerminalSanitizer::ground(unsigned char byte, std::string& out) {
  if (utf8_remaining_ > 0) {
    if (byte >= 0x80 && byte <= 0xbf) {
      out += static_cast<char>(byte);
      --utf8_remaining_;
      return;
    }
    utf8_remaining_ = 0;  // broken character; `byte` starts something new
  }
  if (byte < 0x20) {
    if (is_kept_c0(byte)) {
      out += static_cast<char>(byte);
    } else if (byte == kEsc) {
      state_ = State::kEscape;
      sequence_.assign(1, static_cast<char>(kEsc));
    } else {
      drop();  // BEL, ENQ (answerback), SO/SI (charset shift), VT, FF, ...
    }
  } else if (byte < 0x7f) {
    out += static_cast<char>(byte);
  } else if (byte == kDel) {
    drop();
  } else if (byte <= 0x9f) {
    c1(byte, out);  // a raw 8-bit C1 control, not inside a UTF-8 character
  } else if (byte <= 0xbf) {
    out += static_cast<char>(byte);  // stray continuation byte: shown as U+FFFD, harmless
  } else if (byte == 0xc2) {
    pending_c2_ = true;
  } else if (byte >= 0xc3 && byte <= 0xdf) {
    out += static_cast<char>(byte);
    utf8_remaining_ = 1;
  } else if (byte >= 0xe0 && byte <= 0xef) {
    out += static_cast<char>(byte);
    utf8_remaining_ = 2;
  } else if (byte >= 0xf0 && byte <= 0xf4) {
    out += static_cast<char>(byte);
    utf8_remaining_ = 3;
  } else {
    drop();  // 0xC0, 0xC1, 0xF5..0xFF never occur in UTF-8 (0xC0 0x9B: overlong ESC)
  }
}

void TerminalSanitizer::c1(unsigned char code, std::string& out) {
  (void)out;
  if (state_ == State::kString || state_ == State::kStringEscape) {
    if (code == 0x9c) {  // ST ends the string
      state_ = State::kGround;
      return;
    }
  }
  abandon();  // C1 aborts whatever was open
  sequence_.clear();
  state_ = State::kGround;
  switch (code) {
    case 0x9b:  // CSI: parsed like ESC [ and, if kept, written in its 7-bit form
      state_ = State::kCsi;
      sequence_ = "\x1b[";
      return;
    case 0x9d:  // OSC
    case 0x90:  // DCS
    case 0x98:  // SOS
    case 0x9e:  // PM
    case 0x9f:  // APC
      drop();
      string_is_osc_ = (code == 0x9d);
      state_ = State::kString;
      return;
    default:  // IND, NEL, HTS, RI, SS2, SS3, DECID (0x9A), a stray ST, ...
      drop();
      return;
  }
}

void TerminalSanitizer::finish_sequence(bool keep, unsigned char final_byte, std::string& out) {
  if (keep) {
    out += sequence_;
    out += static_cast<char>(final_byte);
  } else {
    drop();
  }
  state_ = State::kGround;
  sequence_.clear();
}

void TerminalSanitizer::escape_final(unsigned char byte, std::string& out) {
  const std::string intermediates = sequence_.substr(1);
  bool keep = false;
  if (intermediates.empty()) {
    keep = contains("78DEM", byte);  // save/restore cursor, index, next line, reverse index
  } else if (intermediates == "(" || intermediates == ")") {
    keep = (byte == 'B' || byte == '0');  // G0/G1 = ASCII or DEC line drawing
  }
  finish_sequence(keep, byte, out);
}

void TerminalSanitizer::csi_final(unsigned char byte, std::string& out) {
  const std::string body = sequence_.substr(2);  // after "ESC ["
  bool plain_numbers = true;
  for (unsigned char b : body) {
    if (!(std::isdigit(b) || b == ';' || b == ':')) plain_numbers = false;
  }
  bool keep = false;
  if (plain_numbers) {
    keep = contains(kKeptCsiFinals, byte);
  } else if (byte == 'h' || byte == 'l') {
    keep = (body == "?25" || body == "?7");  // cursor visibility, autowrap
  }
  finish_sequence(keep, byte, out);
}

}  // namespace fabriclab::runner
