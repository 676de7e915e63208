#include "netem/queue/port_spec.h"

#include <spdlog/fmt/fmt.h>

#include <cstdlib>
#include <map>
#include <optional>

#include "netem/spec_parse.h"
#include "netem/tc_words.h"

namespace fabriclab::netem {
namespace {

constexpr const char* kSizeExpected = "a size such as 256kb, 1mb or 1500 (bytes)";

class PortSpecParser : private TcWords {
 public:
  explicit PortSpecParser(const std::vector<std::string>& words)
      : TcWords(words, "queue spec") {}

  PortSpec parse() {
    while (i_ < w_.size()) keyword();
    check();
    return s_;
  }

 private:
  void once(const char* name, size_t at) {
    if (!seen_.emplace(name, at).second)
      fail(at, "'" + std::string(name) + "' is given twice; give it once");
  }

  uint32_t positive_size(size_t at) const {
    const uint32_t v = size(at, kSizeExpected);
    if (v == 0) fail(at, quoted(at) + " is 0; expected " + std::string(kSizeExpected));
    return v;
  }

  // "0.2" (a fraction) or "1%" (a percentage), in (0, 1].
  double probability(size_t at) const {
    const std::string expected = "a probability such as 0.2 or 1%";
    const char* rest;
    double v = strtod_checked(at, &rest, expected);
    if (std::string(rest) == "%") {
      v /= 100;
    } else if (*rest) {
      fail(at, quoted(at) + " is not " + expected);
    }
    if (v <= 0 || v > 1) fail(at, quoted(at) + " is outside (0, 1]; expected " + expected);
    return v;
  }

  void policy(QueuePolicy p, size_t at) {
    if (policy_at_) fail(at, "a second policy; give one of taildrop, ecn, lossless");
    policy_at_ = at;
    s_.policy = p;
  }

  void keyword() {
    const size_t at = i_++;
    const std::string& k = w_[at];
    if (k == "rate") {
      once("rate", at);
      s_.rate_bytes_per_s = rate(next_value("a rate such as 500mbit"));
    } else if (k == "limit") {
      once("limit", at);
      s_.limit_bytes = positive_size(next_value(kSizeExpected));
    } else if (k == "taildrop") {
      policy(QueuePolicy::kTailDrop, at);
    } else if (k == "ecn") {
      policy(QueuePolicy::kEcn, at);
    } else if (k == "lossless") {
      policy(QueuePolicy::kLossless, at);
    } else if (k == "kmin" || k == "kmax" || k == "k" || k == "pmax") {
      // A lossless port may mark too (RoCE's lossless class with DCQCN's
      // ECN: lab 12): the marks slow the senders that react before XOFF.
      if (s_.policy == QueuePolicy::kTailDrop || !policy_at_)
        fail(at, quoted(at) + " belongs to the ecn policy; write it after 'ecn' (or after a lossless port's xon)");
      once(k == "k" ? "kmin" : k.c_str(), at);
      if (k == "k") {
        once("kmax", at);
        s_.kmin_bytes = s_.kmax_bytes = positive_size(next_value(kSizeExpected));
        single_threshold_ = true;
      } else if (k == "pmax") {
        s_.pmax = probability(next_value("a probability such as 0.2 or 1%"));
      } else {
        (k == "kmin" ? s_.kmin_bytes : s_.kmax_bytes) = positive_size(next_value(kSizeExpected));
      }
    } else if (k == "xoff" || k == "xon") {
      if (s_.policy != QueuePolicy::kLossless || !policy_at_)
        fail(at, quoted(at) + " belongs to the lossless policy; write it after 'lossless'");
      once(k.c_str(), at);
      (k == "xoff" ? s_.xoff_bytes : s_.xon_bytes) = positive_size(next_value(kSizeExpected));
    } else {
      fail(at, "unknown word " + quoted(at) +
                   "; expected rate, limit, and one of taildrop, ecn (kmin, kmax, pmax or k), "
                   "lossless (xoff, xon, then optionally kmin, kmax, pmax or k)");
    }
  }

  bool marks_seen() const { return seen_.count("kmin") || seen_.count("kmax") || seen_.count("pmax"); }

  size_t at(const char* name) const {
    auto it = seen_.find(name);
    return it == seen_.end() ? w_.size() : it->second;
  }

  void check() {
    if (!s_.rate_bytes_per_s) fail(w_.size(), "a queue needs 'rate RATE' (how fast the port drains)");
    if (!s_.limit_bytes) fail(w_.size(), "a queue needs 'limit SIZE' (the port's buffer)");
    if (s_.policy == QueuePolicy::kEcn || (s_.policy == QueuePolicy::kLossless && marks_seen())) {
      if (!s_.kmin_bytes || !s_.kmax_bytes)
        fail(w_.size(), "ecn needs 'kmin SIZE kmax SIZE' (or 'k SIZE', DCTCP's one threshold)");
      if (s_.kmin_bytes > s_.kmax_bytes)
        fail(at("kmin"), "kmin is above kmax; expected kmin <= kmax");
      if (s_.kmax_bytes > s_.limit_bytes)
        fail(at("kmax"), "kmax is above the limit; no packet could ever be marked there");
      if (s_.pmax == 0) s_.pmax = single_threshold_ ? 1.0 : 0.0;
      if (s_.pmax == 0) fail(w_.size(), "ecn with kmin and kmax needs 'pmax P', e.g. pmax 0.2");
    }
    if (s_.policy == QueuePolicy::kLossless) {
      if (!s_.xoff_bytes || !s_.xon_bytes)
        fail(w_.size(), "lossless needs 'xoff SIZE xon SIZE' (pause above xoff, resume below xon)");
      if (s_.xon_bytes >= s_.xoff_bytes)
        fail(at("xon"), "xon is not below xoff; expected xon < xoff");
      if (s_.xoff_bytes > s_.limit_bytes)
        fail(at("xoff"), "xoff is above the limit; expected xoff <= limit");
      if (s_.kmin_bytes >= s_.xoff_bytes)
        fail(at("kmin"), "kmin is not below xoff; expected kmin < xoff (the port would pause before it marks)");
    }
  }

  PortSpec s_;
  std::map<std::string, size_t> seen_;
  std::optional<size_t> policy_at_;  // where the policy word is, if given
  bool single_threshold_ = false;
};

std::string probability_words(double p) { return fmt::format("{}", p); }

}  // namespace

PortSpec parse_port_spec(const std::vector<std::string>& words) {
  return PortSpecParser(words).parse();
}

PortSpec parse_port_spec(const std::string& text) { return parse_port_spec(split_words(text)); }

const char* policy_name(QueuePolicy policy) {
  switch (policy) {
    case QueuePolicy::kTailDrop: return "taildrop";
    case QueuePolicy::kEcn: return "ecn";
    case QueuePolicy::kLossless: return "lossless";
  }
  return "?";
}

bool port_marks(const PortSpec& s) {
  return s.policy == QueuePolicy::kEcn || (s.policy == QueuePolicy::kLossless && s.kmin_bytes > 0);
}

std::string print_port_spec(const PortSpec& s) {
  std::string out = "rate " + rate_words(s.rate_bytes_per_s) + " limit " + size_words(s.limit_bytes) +
                    " " + policy_name(s.policy);
  if (s.policy == QueuePolicy::kLossless)
    out += " xoff " + size_words(s.xoff_bytes) + " xon " + size_words(s.xon_bytes);
  if (port_marks(s))
    out += " kmin " + size_words(s.kmin_bytes) + " kmax " + size_words(s.kmax_bytes) + " pmax " +
           probability_words(s.pmax);
  return out;
}

}  // namespace fabriclab::netem
