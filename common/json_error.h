// nlohmann::json's exceptions, said for people: its what() starts
// "[json.exception.parse_error.101] parse error at line 1, column 5: ..." and
// quotes the bytes it read, which may be a hostile file's escape sequences.
// The files' readers (run.json, metrics.jsonl, session.cast) say the file
// and line themselves and keep only what is left: "column 5: syntax error
// ...", "number overflow parsing '1e400'", anything but printable ASCII
// shown as \xNN.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab {

inline std::string printable_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", b);
      out += hex;
    }
  }
  return out;
}

inline std::string json_error_text(const nlohmann::json::exception& error) {
  std::string message = error.what();
  const std::size_t bracket = message.find("] ");
  if (message.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
    message.erase(0, bracket + 2);
  const std::size_t at_line = message.find("parse error at line ");
  const std::size_t comma = message.find(", ", at_line);
  if (at_line == 0 && comma != std::string::npos) message.erase(0, comma + 2);
  return printable_text(message);
}

}  // namespace fabriclab
