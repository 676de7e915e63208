#include "runner/rundir/json_line.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace fabriclab::runner::rundir {
namespace {

// A cursor over valid JSON that skips what it is not asked about.
class Cursor {
 public:
  explicit Cursor(const std::string& text) : text_(text) {}

  size_t at() const { return at_; }
  char peek() {
    skip_space();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  void take() { ++at_; }

  // At '"': the string's raw text, the cursor after its closing quote.
  std::string string() {
    const size_t start = ++at_;
    while (at_ < text_.size() && text_[at_] != '"') at_ += text_[at_] == '\\' ? 2 : 1;
    return text_.substr(start, std::min(at_++, text_.size()) - start);
  }

  void skip_value() {
    const char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{' || c == '[') {
      int depth = 0;
      do {
        const char d = peek();
        if (d == '"') {
          string();
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') --depth;
        take();
      } while (depth > 0 && at_ < text_.size());
    } else {
      while (at_ < text_.size() && !std::strchr(",]} \t\r\n", text_[at_])) ++at_;
    }
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }

  const std::string& text_;
  size_t at_ = 0;
};

// Moves `cursor` onto the value of member `key` of the object it is at;
// false (cursor unspecified) when there is none.
bool enter_member(Cursor& cursor, const std::string& key, size_t& key_at) {
  cursor.take();  // '{'
  while (cursor.peek() == '"') {
    key_at = cursor.at();
    const std::string name = cursor.string();
    if (cursor.peek() != ':') return false;
    cursor.take();
    if (name == key) return true;
    cursor.skip_value();
    if (cursor.peek() != ',') return false;
    cursor.take();
  }
  return false;
}

bool enter_element(Cursor& cursor, const std::string& index, size_t& element_at) {
  if (index.empty() || !std::all_of(index.begin(), index.end(), ::isdigit)) return false;
  cursor.take();  // '['
  for (long i = std::stol(index); i > 0; --i) {
    if (cursor.peek() == ']') return false;
    cursor.skip_value();
    if (cursor.peek() != ',') return false;
    cursor.take();
  }
  if (cursor.peek() == ']') return false;
  element_at = cursor.at();
  return true;
}

}  // namespace

long json_line_of(const std::string& text, const std::vector<std::string>& path) {
  Cursor cursor(text);
  size_t found = 0;
  cursor.peek();
  found = cursor.at();
  for (const std::string& step : path) {
    const char c = cursor.peek();
    size_t at = 0;
    const bool entered = c == '{'   ? enter_member(cursor, step, at)
                         : c == '[' ? enter_element(cursor, step, at)
                                    : false;
    if (!entered) break;
    found = at;
  }
  found = std::min(found, text.size());
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(found), '\n'));
}

}  // namespace fabriclab::runner::rundir
