// Parser and printer for netem specs. The number readers follow iproute2's
// (get_time, get_time64, get_size, get_rate64, parse_percent, get_u32/get_s32)
// so that the same words give the same values, hence the same bytes.
#include "netem/spec_parse.h"

#include <strings.h>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "common/input_error.h"
#include "netem/psched.h"
#include "netem/tc_words.h"

namespace fabriclab::netem {

namespace {

constexpr const char* kKeywords =
    "delay, distribution, loss, duplicate, corrupt, reorder, gap, rate, limit, ecn, slot";

class Parser : private TcWords {
 public:
  explicit Parser(const std::vector<std::string>& words) : TcWords(words, "netem spec") {}

  Spec parse() {
    while (i_ < w_.size()) keyword();
    check_consistency();
    return s_;
  }

 private:
  Distribution distribution(size_t at) const {
    const std::string& n = w_[at];
    if (n == "uniform") return Distribution::kUniform;
    if (n == "normal") return Distribution::kNormal;
    if (n == "pareto") return Distribution::kPareto;
    if (n == "paretonormal") return Distribution::kParetoNormal;
    fail(at, "unknown distribution " + quoted(at) +
                 "; expected uniform, normal, pareto or paretonormal");
  }

  // ---- keywords ----------------------------------------------------------
  void once(const char* name, size_t at) {
    auto it = seen_.find(name);
    if (it != seen_.end())
      fail(at, "'" + std::string(name) + "' is given twice (first as word " +
                   std::to_string(it->second + 1) + "); give it once");
    seen_.emplace(name, at);
  }

  void keyword() {
    size_t at = i_++;
    const std::string& k = w_[at];
    if (matches(k, "limit")) {
      once("limit", at);
      size_t v = next_value("a number of packets");
      s_.limit_packets = size(v, "a number of packets such as 1000");
      if (s_.limit_packets == 0) fail(v, "limit 0 would drop every packet; expected at least 1");
    } else if (matches(k, "latency") || matches(k, "delay")) {
      once("delay", at);
      s_.delay_us = time_us(next_value("a time such as 100ms"));
      if (next_is_number()) {
        s_.jitter_us = time_us(i_++);
        if (next_is_number()) {
          s_.corr_given = true;
          s_.delay_corr = percent(i_++);
        }
      }
    } else if (matches(k, "loss") || matches(k, "drop")) {
      once("loss", at);
      loss(at);
    } else if (matches(k, "ecn")) {
      once("ecn", at);
      s_.ecn = true;
    } else if (matches(k, "reorder")) {
      once("reorder", at);
      s_.reorder_given = true;
      s_.reorder = percent(next_value("a percentage such as 25%"));
      if (next_is_number()) {
        s_.corr_given = true;
        s_.reorder_corr = percent(i_++);
      }
    } else if (matches(k, "corrupt")) {
      once("corrupt", at);
      s_.corrupt_given = true;
      s_.corrupt = percent(next_value("a percentage such as 0.1%"));
      if (next_is_number()) {
        s_.corr_given = true;
        s_.corrupt_corr = percent(i_++);
      }
    } else if (matches(k, "gap")) {
      once("gap", at);
      gap_at_ = at;
      s_.reorder_gap = u32(next_value("a number of packets"), "a number of packets such as 5");
    } else if (matches(k, "duplicate")) {
      once("duplicate", at);
      s_.duplicate = percent(next_value("a percentage such as 1%"));
      if (next_is_number()) s_.duplicate_corr = percent(i_++);
    } else if (matches(k, "distribution")) {
      once("distribution", at);
      distribution_at_ = at;
      s_.distribution = distribution(next_value("uniform, normal, pareto or paretonormal"));
    } else if (matches(k, "rate")) {
      once("rate", at);
      s_.rate_bytes_per_s = rate(next_value("a rate such as 100mbit"));
      if (next_is_signed_number())
        s_.rate_packet_overhead = s32(i_++, "a packet overhead in bytes");
      if (next_is_number()) s_.rate_cell_size = u32(i_++, "a cell size in bytes");
      if (next_is_signed_number()) s_.rate_cell_overhead = s32(i_++, "a cell overhead in bytes");
    } else if (matches(k, "slot")) {
      once("slot", at);
      slot();
    } else {
      fail(at, quoted(at) + " is not a netem word; expected one of: " + kKeywords);
    }
  }

  void loss(size_t at) {
    size_t v = next_value("a percentage, or random|state|gemodel");
    const std::string& m = w_[v];
    if (starts_with_digit(m) || m == "random") {
      size_t pv = m == "random" ? next_value("a percentage such as 1%") : v;
      s_.loss_model = LossModel::kRandom;
      s_.loss = percent(pv);
      if (next_is_number()) {
        s_.corr_given = true;
        s_.loss_corr = percent(i_++);
      }
    } else if (m == "state") {
      s_.loss_model = LossModel::kState;
      LossState& g = s_.loss_state;
      g.p13 = percent(next_value("P13, a percentage"));
      g.p31 = 1. - g.p13;
      double* rest[] = {&g.p31, &g.p32, &g.p23, &g.p14};
      for (double* r : rest) {
        if (!next_is_number()) break;
        *r = percent(i_++);
      }
    } else if (m == "gemodel") {
      s_.loss_model = LossModel::kGemodel;
      LossGemodel& g = s_.loss_gemodel;
      g.p = percent(next_value("P, a percentage"));
      g.r = 1. - g.p;
      double* rest[] = {&g.r, &g.one_minus_h, &g.one_minus_k};
      for (double* r : rest) {
        if (!next_is_number()) break;
        *r = percent(i_++);
      }
    } else {
      fail(v, "unknown loss model " + quoted(v) +
                  "; expected a percentage, or random, state or gemodel");
    }
    (void)at;
  }

  void slot() {
    Slot& sl = s_.slot;
    sl.given = true;
    if (next_is_number()) {
      sl.min_delay_ns = time_ns(i_++);
      if (next_is_number()) {
        size_t v = i_++;
        sl.max_delay_ns = time_ns(v);
        if (sl.max_delay_ns < sl.min_delay_ns)
          fail(v, "slot MAX_DELAY " + quoted(v) + " is below MIN_DELAY");
      } else {
        sl.max_delay_ns = sl.min_delay_ns;
      }
    } else {
      size_t v = next_value("MIN_DELAY or 'distribution NAME DELAY JITTER'");
      if (w_[v] != "distribution")
        fail(v, quoted(v) +
                    " is not a slot parameter; expected MIN_DELAY [MAX_DELAY] or "
                    "distribution NAME DELAY JITTER");
      sl.distribution = distribution(next_value("a distribution name"));
      sl.dist_delay_ns = time_ns(next_value("DELAY, a time"));
      size_t j = next_value("JITTER, a time");
      sl.dist_jitter_ns = time_ns(j);
      if (sl.dist_jitter_ns <= 0) fail(j, "slot JITTER must be positive");
    }
    if (i_ < w_.size() && matches(w_[i_], "packets")) {
      ++i_;
      sl.max_packets = s32(next_value("a number of packets"), "a number of packets");
    }
    if (i_ < w_.size() && matches(w_[i_], "bytes")) {
      ++i_;
      const size_t v = next_value("a number of bytes");
      const uint32_t bytes = size(v, "a size in bytes");
      // The kernel's field is signed: tc wraps 2gb and more to a negative number.
      if (bytes > static_cast<uint32_t>(INT32_MAX))
        fail(v, quoted(v) + " is too large; expected a size in bytes below 2gb");
      sl.max_bytes = static_cast<int32_t>(bytes);
    }
  }

  // tc's rules, checked after all words are read (tc checks them in this order).
  void check_consistency() {
    auto at = [&](const char* name) {
      auto it = seen_.find(name);
      return it == seen_.end() ? w_.size() : it->second;
    };
    if (s_.reorder > 0) {
      if (s_.delay_us == 0)
        fail(at("reorder"),
             "reorder needs a delay (netem reorders by sending some packets "
             "without it); add e.g. 'delay 10ms'");
    } else if (s_.reorder_gap > 0) {
      fail(gap_at_, "gap needs a reorder probability above 0; add e.g. 'reorder 25%'");
    }
    if (s_.ecn && s_.loss_model == LossModel::kRandom && s_.loss <= 0)
      fail(at("ecn"),
           "ecn needs a loss model (netem marks instead of dropping); add e.g. "
           "'loss 1%'");
    if (s_.distribution != Distribution::kNone && (s_.delay_us == 0 || s_.jitter_us == 0))
      fail(distribution_at_, "a distribution needs a delay and a jitter; e.g. 'delay 100ms 10ms'");
  }

  Spec s_;
  std::map<std::string, size_t> seen_;
  size_t gap_at_ = 0;
  size_t distribution_at_ = 0;
};

// ---- printing ------------------------------------------------------------

std::string fmt_percent(double fraction) {
  // The shortest %g text that parse_percent() reads back to the same kernel
  // value (Spec equality is at that resolution), plain decimals before
  // exponents ("100%", not "1e+02%").
  char buf[64];
  for (bool allow_exponent : {false, true}) {
    for (int prec = 1; prec <= 17; ++prec) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, fraction * 100.);
      if (!allow_exponent && std::strchr(buf, 'e')) continue;
      double back = std::strtod(buf, nullptr) / 100.;
      if (scaled_probability(back) == scaled_probability(fraction)) return std::string(buf) + "%";
    }
  }
  std::snprintf(buf, sizeof buf, "%.17g", fraction * 100.);
  return std::string(buf) + "%";
}

std::string fmt_time_us(uint64_t us) {
  if (us != 0 && us % 1000000 == 0) return std::to_string(us / 1000000) + "s";
  if (us != 0 && us % 1000 == 0) return std::to_string(us / 1000) + "ms";
  return std::to_string(us) + "us";
}

std::string fmt_time_ns(int64_t ns) {
  if (ns != 0 && ns % 1000000000 == 0) return std::to_string(ns / 1000000000) + "s";
  if (ns != 0 && ns % 1000000 == 0) return std::to_string(ns / 1000000) + "ms";
  if (ns != 0 && ns % 1000 == 0) return std::to_string(ns / 1000) + "us";
  return std::to_string(ns) + "ns";
}


}  // namespace

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Spec parse_spec(const std::vector<std::string>& words) { return Parser(words).parse(); }

Spec parse_spec(const std::string& text) { return parse_spec(split_words(text)); }

std::string print_spec(const Spec& s) {
  std::vector<std::string> out;
  auto add = [&](std::string w) { out.push_back(std::move(w)); };

  // A correlation word with value 0 still makes tc send TCA_NETEM_CORR; keep
  // one such word if the spec had one and no non-zero correlation carries it.
  bool random_loss = s.loss_model == LossModel::kRandom && s.loss > 0;
  // `loss 0 2%` still sends its correlation: print the loss words for it too.
  bool loss_corr = s.loss_model == LossModel::kRandom && s.loss_corr != 0;
  bool any_corr = s.delay_corr != 0 || loss_corr || s.reorder_corr != 0 || s.corrupt_corr != 0;
  enum { kNoCarrier, kDelay, kLoss, kReorder, kCorrupt } carrier = kNoCarrier;
  if (s.corr_given && !any_corr) {
    if (s.reorder_given || s.reorder > 0)
      carrier = kReorder;
    else if (s.corrupt_given || s.corrupt > 0)
      carrier = kCorrupt;
    else if (random_loss)
      carrier = kLoss;
    else
      carrier = kDelay;
  }

  bool delay_corr = s.delay_corr != 0 || carrier == kDelay;
  bool jitter = s.jitter_us != 0 || delay_corr;
  if (s.delay_us != 0 || jitter) {
    add("delay");
    add(fmt_time_us(s.delay_us));
    if (jitter) add(fmt_time_us(s.jitter_us));
    if (delay_corr) add(fmt_percent(s.delay_corr));
  }
  if (s.distribution != Distribution::kNone) {
    add("distribution");
    add(distribution_name(s.distribution));
  }
  switch (s.loss_model) {
    case LossModel::kRandom:
      if (random_loss || loss_corr) {
        add("loss");
        add(fmt_percent(s.loss));
        if (loss_corr || carrier == kLoss) add(fmt_percent(s.loss_corr));
      }
      break;
    case LossModel::kState: {
      const LossState& g = s.loss_state;
      for (double v : {g.p13, g.p31, g.p32, g.p23, g.p14}) out.push_back(fmt_percent(v));
      out.insert(out.end() - 5, {"loss", "state"});
      break;
    }
    case LossModel::kGemodel: {
      const LossGemodel& g = s.loss_gemodel;
      for (double v : {g.p, g.r, g.one_minus_h, g.one_minus_k}) out.push_back(fmt_percent(v));
      out.insert(out.end() - 4, {"loss", "gemodel"});
      break;
    }
  }
  if (s.duplicate != 0 || s.duplicate_corr != 0) {
    add("duplicate");
    add(fmt_percent(s.duplicate));
    if (s.duplicate_corr != 0) add(fmt_percent(s.duplicate_corr));
  }
  if (s.corrupt_given || s.corrupt != 0) {
    add("corrupt");
    add(fmt_percent(s.corrupt));
    if (s.corrupt_corr != 0 || carrier == kCorrupt) add(fmt_percent(s.corrupt_corr));
  }
  if (s.reorder_given || s.reorder != 0) {
    add("reorder");
    add(fmt_percent(s.reorder));
    if (s.reorder_corr != 0 || carrier == kReorder) add(fmt_percent(s.reorder_corr));
  }
  if (s.reorder_gap != 0) {
    add("gap");
    add(std::to_string(s.reorder_gap));
  }
  if (s.rate_bytes_per_s != 0) {
    add("rate");
    add(rate_words(s.rate_bytes_per_s));
    int n = s.rate_cell_overhead != 0 ? 3 : s.rate_cell_size != 0 ? 2 : s.rate_packet_overhead != 0;
    if (n >= 1) add(std::to_string(s.rate_packet_overhead));
    if (n >= 2) add(std::to_string(s.rate_cell_size));
    if (n >= 3) add(std::to_string(s.rate_cell_overhead));
  }
  if (s.limit_packets != 0) {
    add("limit");
    add(std::to_string(s.limit_packets));
  }
  if (s.ecn) add("ecn");
  if (s.slot.given) {
    const Slot& sl = s.slot;
    add("slot");
    if (sl.distribution != Distribution::kNone) {
      add("distribution");
      add(distribution_name(sl.distribution));
      add(fmt_time_ns(sl.dist_delay_ns));
      add(fmt_time_ns(sl.dist_jitter_ns));
    } else {
      add(fmt_time_ns(sl.min_delay_ns));
      add(fmt_time_ns(sl.max_delay_ns));
    }
    if (sl.max_packets != 0) {
      add("packets");
      add(std::to_string(sl.max_packets));
    }
    if (sl.max_bytes != 0) {
      add("bytes");
      add(std::to_string(sl.max_bytes));
    }
  }

  std::string text;
  for (const std::string& w : out) {
    if (!text.empty()) text += ' ';
    text += w;
  }
  return text;
}

}  // namespace fabriclab::netem
