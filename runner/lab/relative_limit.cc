#include "runner/lab/relative_limit.h"

#include <regex>

#include <spdlog/fmt/fmt.h>

namespace fabriclab::runner {

std::string RelativeLimit::text() const { return fmt::format("{:g}x {}", factor, scenario); }

std::optional<RelativeLimit> parse_relative_limit(const std::string& text, std::string* why) {
  static const std::regex kForm(R"(\s*([0-9]+(\.[0-9]+)?)\s*x\s+([a-z0-9_-]+)\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, kForm)) {
    *why = "expected FACTORx SCENARIO, e.g. \"6x clean\", got \"" + text + "\"";
    return std::nullopt;
  }
  RelativeLimit limit{std::stod(m[1]), m[3]};
  if (!(limit.factor > 0 && limit.factor <= 1000)) {
    *why = "expected a factor in (0, 1000], got " + std::string(m[1]);
    return std::nullopt;
  }
  return limit;
}

}  // namespace fabriclab::runner
