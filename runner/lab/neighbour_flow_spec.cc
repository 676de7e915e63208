#include "runner/lab/neighbour_flow_spec.h"

#include <regex>
#include <sstream>
#include <vector>

#include "netem/tc_words.h"

namespace fabriclab::runner {
namespace {

class NeighbourWords : public netem::TcWords {
 public:
  explicit NeighbourWords(const std::vector<std::string>& words)
      : TcWords(words, "neighbour flow") {}

  NeighbourFlowSpec parse() {
    static const std::regex kName("[a-z][a-z0-9_]*");
    static const std::regex kPath("r([0-9]+)->r([0-9]+)");
    if (w_.size() < 2)
      fail(w_.size(), "expected a name and the ranks it goes between, e.g. \"noisy r3->r0\"");
    NeighbourFlowSpec flow;
    if (!std::regex_match(w_[0], kName)) fail(0, "expected a name: [a-z][a-z0-9_]*");
    flow.name = w_[0];
    std::smatch m;
    if (!std::regex_match(w_[1], m, kPath)) fail(1, "expected the sender and receiver ranks, rA->rB");
    flow.from = std::stoi(m[1]);
    flow.to = std::stoi(m[2]);
    if (flow.from == flow.to) fail(1, "a flow goes between two different ranks");
    i_ = 2;
    if (i_ < w_.size()) {
      if (w_[i_] != "rate") fail(i_, "expected 'rate RATE' (a pace, e.g. rate 50mbit) or nothing");
      ++i_;
      flow.rate_bytes_per_s = rate(next_value("a rate such as 50mbit"));
      if (flow.rate_bytes_per_s == 0) fail(i_ - 1, "a pace above 0");
    }
    if (i_ < w_.size()) fail(i_, "nothing after the rate");
    return flow;
  }
};

}  // namespace

NeighbourFlowSpec parse_neighbour_flow(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return NeighbourWords(words).parse();
}

std::string print_neighbour_flow(const NeighbourFlowSpec& flow) {
  std::string out = flow.name + " r" + std::to_string(flow.from) + "->r" + std::to_string(flow.to);
  if (flow.rate_bytes_per_s) out += " rate " + netem::rate_words(flow.rate_bytes_per_s);
  return out;
}

}  // namespace fabriclab::runner
