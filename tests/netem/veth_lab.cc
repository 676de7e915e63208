#include "tests/netem/veth_lab.h"

#include <regex>

namespace fabriclab::netem::testing {

namespace {

fabriclab::testing::TwoNetnsOptions veth_lab_options() {
  fabriclab::testing::TwoNetnsOptions options;
  options.prefix = "flus";
  options.devices = {VethLab::kDevice, VethLab::kDevice};
  options.addresses = {
      {{std::string(VethLab::kAddrA) + "/24"}, {std::string(VethLab::kAddrB) + "/24"}}};
  options.disable_ipv6 = true;
  return options;
}

}  // namespace

VethLab::VethLab() : TwoNetns(veth_lab_options()) {}

PingResult parse_ping(const std::string& output) {
  PingResult r;
  std::smatch m;
  static const std::regex counts(R"((\d+) packets transmitted, (\d+) received)");
  static const std::regex rtt(R"(= ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms)");
  if (!std::regex_search(output, m, counts)) return r;
  r.transmitted = std::stoi(m[1]);
  r.received = std::stoi(m[2]);
  if (std::regex_search(output, m, rtt)) {
    r.min_ms = std::stod(m[1]);
    r.avg_ms = std::stod(m[2]);
    r.max_ms = std::stod(m[3]);
  }
  r.ok = true;
  return r;
}

}  // namespace fabriclab::netem::testing
