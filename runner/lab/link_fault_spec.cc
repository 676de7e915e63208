#include "runner/lab/link_fault_spec.h"

#include <spdlog/fmt/fmt.h>

#include <regex>
#include <stdexcept>

namespace fabriclab::runner {
namespace {

constexpr double kShortest_s = 0.1;
constexpr double kLongest_s = 60;
constexpr double kShortestDetect_s = 0.05;
constexpr double kLongestDetect_s = 5;

const char* const kExpected =
    "expected \"down DURATION at step N\" or \"down DURATION at SECONDSs\", or "
    "\"impair 'NETEM WORDS' for DURATION at ...\" (e.g. \"down 2s at step 6\", "
    "\"down 1500ms at 10s\", \"impair 'loss 5%' for 3s at step 6\"), then for an uplink's "
    "down \"detect DURATION\" (e.g. \"down 10s at step 8 detect 300ms\")";

// "2s", "1.5s", "1500ms" -> seconds.
double seconds_of(const std::string& number, const std::string& unit) {
  const double value = std::stod(number);
  return unit == "ms" ? value / 1000.0 : value;
}

}  // namespace

LinkFaultSpec parse_link_fault(const std::string& text) {
  // The impairment's words are quoted with ' (the TOML string is in "), and
  // hold no quote of their own: tc-netem words never do.
  static const std::regex kWords(
      R"(\s*(?:down|impair\s+'([^']*)'\s+for)\s+([0-9]+(?:\.[0-9]+)?)(s|ms)\s+at\s+(?:step\s+([0-9]{1,9})|([0-9]+(?:\.[0-9]+)?)(s|ms)))"
      R"((?:\s+detect\s+([0-9]+(?:\.[0-9]+)?)(s|ms))?\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, kWords)) throw std::invalid_argument(kExpected);
  LinkFaultSpec fault;
  const bool impair = m[1].matched;  // the impair branch of the words
  if (impair) {
    fault.kind = LinkFaultKind::kImpair;
    fault.impair = m[1].str();
    if (fault.impair.find_first_not_of(" \t") == std::string::npos)
      throw std::invalid_argument(
          "impair '': expected the impairment's tc-netem words between the quotes "
          "(e.g. 'loss 5%', 'delay 50ms')");
  }
  fault.length_s = seconds_of(m[2].str(), m[3].str());
  if (fault.length_s < kShortest_s || fault.length_s > kLongest_s)
    throw std::invalid_argument(fmt::format("the link is {} for {} s: expected {} ms to {} s",
                                            impair ? "changed" : "down", fault.length_s,
                                            kShortest_s * 1000, kLongest_s));
  if (m[4].matched) {
    fault.at_step = std::stoll(m[4].str());
    if (fault.at_step < 1) throw std::invalid_argument("at step 0: steps count from 1");
  } else {
    fault.at_s = seconds_of(m[5].str(), m[6].str());
  }
  if (m[7].matched) {
    if (impair)
      throw std::invalid_argument(
          "detect is for an uplink that goes down (\"down 10s at step 8 detect 300ms\"): an "
          "impairment change moves no route");
    fault.detect_s = seconds_of(m[7].str(), m[8].str());
    if (fault.detect_s < kShortestDetect_s || fault.detect_s > kLongestDetect_s)
      throw std::invalid_argument(fmt::format("detect {} s: expected {} ms to {} s",
                                              fault.detect_s, kShortestDetect_s * 1000,
                                              kLongestDetect_s));
    if (fault.detect_s >= fault.length_s)
      throw std::invalid_argument(fmt::format(
          "detect {} s is not shorter than the {} s the link is down: the routes would never "
          "move",
          fault.detect_s, fault.length_s));
  }
  return fault;
}

std::string print_link_fault(const LinkFaultSpec& fault) {
  const std::string when = fault.at_step > 0 ? fmt::format("step {}", fault.at_step)
                                             : fmt::format("{}ms", fault.at_s * 1000);
  if (fault.kind == LinkFaultKind::kImpair)
    return fmt::format("impair '{}' for {}ms at {}", fault.impair, fault.length_s * 1000, when);
  const std::string detect =
      fault.detect_s > 0 ? fmt::format(" detect {}ms", fault.detect_s * 1000) : "";
  return fmt::format("down {}ms at {}{}", fault.length_s * 1000, when, detect);
}

}  // namespace fabriclab::runner
