#include "runner/lab/link_fault_spec.h"

#include <spdlog/fmt/fmt.h>

#include <regex>
#include <stdexcept>

namespace fabriclab::runner {
namespace {

constexpr double kShortestDown_s = 0.1;
constexpr double kLongestDown_s = 60;
constexpr double kShortestDetect_s = 0.05;
constexpr double kLongestDetect_s = 5;

const char* const kExpected =
    "expected \"down DURATION at step N\" or \"down DURATION at SECONDSs\" "
    "(e.g. \"down 2s at step 6\", \"down 1500ms at 10s\"), then for an uplink "
    "\"detect DURATION\" (e.g. \"down 10s at step 8 detect 300ms\")";

// "2s", "1.5s", "1500ms" -> seconds.
double seconds_of(const std::string& number, const std::string& unit) {
  const double value = std::stod(number);
  return unit == "ms" ? value / 1000.0 : value;
}

}  // namespace

LinkFaultSpec parse_link_fault(const std::string& text) {
  static const std::regex kWords(
      R"(\s*down\s+([0-9]+(?:\.[0-9]+)?)(s|ms)\s+at\s+(?:step\s+([0-9]{1,9})|([0-9]+(?:\.[0-9]+)?)(s|ms)))"
      R"((?:\s+detect\s+([0-9]+(?:\.[0-9]+)?)(s|ms))?\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, kWords)) throw std::invalid_argument(kExpected);
  LinkFaultSpec fault;
  fault.down_s = seconds_of(m[1].str(), m[2].str());
  if (fault.down_s < kShortestDown_s || fault.down_s > kLongestDown_s)
    throw std::invalid_argument(fmt::format(
        "the link is down for {} s: expected {} ms to {} s", fault.down_s,
        kShortestDown_s * 1000, kLongestDown_s));
  if (m[3].matched) {
    fault.at_step = std::stoll(m[3].str());
    if (fault.at_step < 1) throw std::invalid_argument("at step 0: steps count from 1");
  } else {
    fault.at_s = seconds_of(m[4].str(), m[5].str());
  }
  if (m[6].matched) {
    fault.detect_s = seconds_of(m[6].str(), m[7].str());
    if (fault.detect_s < kShortestDetect_s || fault.detect_s > kLongestDetect_s)
      throw std::invalid_argument(fmt::format("detect {} s: expected {} ms to {} s",
                                              fault.detect_s, kShortestDetect_s * 1000,
                                              kLongestDetect_s));
    if (fault.detect_s >= fault.down_s)
      throw std::invalid_argument(fmt::format(
          "detect {} s is not shorter than the {} s the link is down: the routes would never "
          "move",
          fault.detect_s, fault.down_s));
  }
  return fault;
}

std::string print_link_fault(const LinkFaultSpec& fault) {
  const std::string when = fault.at_step > 0 ? fmt::format("step {}", fault.at_step)
                                             : fmt::format("{}ms", fault.at_s * 1000);
  const std::string detect =
      fault.detect_s > 0 ? fmt::format(" detect {}ms", fault.detect_s * 1000) : "";
  return fmt::format("down {}ms at {}{}", fault.down_s * 1000, when, detect);
}

}  // namespace fabriclab::runner
