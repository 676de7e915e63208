#include "runner/page/html_text.h"

namespace fabriclab::runner::page {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_json(const nlohmann::json& value) {
  // ensure_ascii: every non-ASCII character as \uXXXX, so U+2028/U+2029 can
  // never appear raw; then < > &, which JSON only has inside strings, where
  // the \u form means the same.
  const std::string json =
      value.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (const char c : json) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace fabriclab::runner::page
