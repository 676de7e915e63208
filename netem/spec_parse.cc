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

namespace fabriclab::netem {

namespace {

constexpr const char* kKeywords =
    "delay, distribution, loss, duplicate, corrupt, reorder, gap, rate, limit, ecn, slot";

// tc's matches(): `word` is a non-empty prefix of `keyword`.
bool matches(const std::string& word, const char* keyword) {
  if (word.empty()) return false;
  return std::string(keyword).compare(0, word.size(), word) == 0;
}

bool starts_with_digit(const std::string& w) {
  return !w.empty() && std::isdigit(static_cast<unsigned char>(w[0]));
}

bool ieq(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

class Parser {
 public:
  explicit Parser(const std::vector<std::string>& words) : w_(words) {
    for (size_t i = 0; i < w_.size(); ++i) {
      if (i) joined_ += ' ';
      offsets_.push_back(joined_.size());
      joined_ += w_[i];
    }
  }

  Spec parse() {
    while (i_ < w_.size()) keyword();
    check_consistency();
    return s_;
  }

 private:
  // ---- errors ----------------------------------------------------------
  [[noreturn]] void fail(size_t at, const std::string& message) const {
    size_t col = at < w_.size() ? offsets_[at] : joined_.size() + (joined_.empty() ? 0 : 1);
    size_t len = at < w_.size() ? std::max<size_t>(1, w_[at].size()) : 1;
    std::string msg = "bad netem spec \"" + joined_ + "\": " + message + "\n    " + joined_ +
                      "\n    " + std::string(col, ' ') + std::string(len, '^');
    throw InputError(msg);
  }

  std::string quoted(size_t at) const { return "'" + w_[at] + "'"; }

  // The value word after keyword w_[i_-1]; fails with `expected` if absent.
  size_t next_value(const std::string& expected) {
    if (i_ >= w_.size()) fail(i_, "'" + w_[i_ - 1] + "' needs " + expected);
    return i_++;
  }
  bool next_is_number() const { return i_ < w_.size() && starts_with_digit(w_[i_]); }
  bool next_is_signed_number() const {
    return i_ < w_.size() && (starts_with_digit(w_[i_]) || w_[i_][0] == '-');
  }

  // ---- number readers (iproute2 semantics) -----------------------------
  double strtod_checked(size_t at, const char** rest, const std::string& expected) const {
    const char* str = w_[at].c_str();
    char* end = nullptr;
    double v = std::strtod(str, &end);
    if (end == str || !std::isfinite(v)) fail(at, quoted(at) + " is not " + expected);
    if (v < 0) fail(at, quoted(at) + " is negative; expected " + expected);
    *rest = end;
    return v;
  }

  // get_time(): microseconds, default unit us.
  uint64_t time_us(size_t at) const {
    const std::string expected = "a time such as 100ms, 1.5s or 250us";
    const char* p;
    double t = strtod_checked(at, &p, expected);
    std::string unit = p;
    if (unit.empty() || ieq(unit, "us") || ieq(unit, "usec") || ieq(unit, "usecs")) {
    } else if (ieq(unit, "ms") || ieq(unit, "msec") || ieq(unit, "msecs")) {
      t *= 1000;
    } else if (ieq(unit, "s") || ieq(unit, "sec") || ieq(unit, "secs")) {
      t *= 1000000;
    } else {
      fail(at, "unknown time unit '" + unit + "' in " + quoted(at) + "; expected us, ms or s");
    }
    if (t >= 4294967296.0 || usec_too_big_for_ticks(static_cast<uint64_t>(t)))
      fail(at, quoted(at) + " is too large for netem (at most about 274s)");
    return static_cast<uint32_t>(t);
  }

  // get_time64(): nanoseconds, default unit ns.
  int64_t time_ns(size_t at) const {
    const std::string expected = "a time such as 10ms, 800us or 500ns";
    const char* p;
    double t = strtod_checked(at, &p, expected);
    std::string unit = p;
    if (unit.empty() || ieq(unit, "ns") || ieq(unit, "nsec") || ieq(unit, "nsecs")) {
    } else if (ieq(unit, "us") || ieq(unit, "usec") || ieq(unit, "usecs")) {
      t *= 1e3;
    } else if (ieq(unit, "ms") || ieq(unit, "msec") || ieq(unit, "msecs")) {
      t *= 1e6;
    } else if (ieq(unit, "s") || ieq(unit, "sec") || ieq(unit, "secs")) {
      t *= 1e9;
    } else {
      fail(at, "unknown time unit '" + unit + "' in " + quoted(at) + "; expected ns, us, ms or s");
    }
    if (t >= 9.2e18) fail(at, quoted(at) + " is too large");
    return static_cast<int64_t>(t);
  }

  // parse_percent(): "25%" or "25" -> 0.25.
  double percent(size_t at) const {
    const std::string expected = "a percentage such as 1% or 0.5%";
    const char* p;
    double v = strtod_checked(at, &p, expected) / 100.;
    if (*p && std::string(p) != "%") fail(at, quoted(at) + " is not " + expected);
    if (v > 1.0) fail(at, quoted(at) + " is more than 100%");
    return v;
  }

  // get_size(): bytes (or packets, for limit), with k/m/g and kbit/mbit/gbit.
  uint32_t size(size_t at, const std::string& expected) const {
    const char* p;
    double sz = strtod_checked(at, &p, expected);
    std::string unit = p;
    if (unit.empty() || ieq(unit, "b")) {
    } else if (ieq(unit, "kb") || ieq(unit, "k")) {
      sz *= 1024;
    } else if (ieq(unit, "mb") || ieq(unit, "m")) {
      sz *= 1024 * 1024;
    } else if (ieq(unit, "gb") || ieq(unit, "g")) {
      sz *= 1024. * 1024 * 1024;
    } else if (ieq(unit, "kbit")) {
      sz *= 1024 / 8;
    } else if (ieq(unit, "mbit")) {
      sz *= 1024 * 1024 / 8;
    } else if (ieq(unit, "gbit")) {
      sz *= 1024. * 1024 * 1024 / 8;
    } else {
      fail(at, "unknown unit '" + unit + "' in " + quoted(at) + "; expected " + expected);
    }
    if (sz > UINT32_MAX) fail(at, quoted(at) + " is too large");
    return static_cast<uint32_t>(sz);
  }

  // get_rate64(): bits per second with tc's suffixes (case-insensitive, so
  // "mbps" is megaBYTES per second, as in tc), returned in bytes per second.
  uint64_t rate(size_t at) const {
    struct Suffix {
      const char* name;
      double scale;
    };
    static const Suffix kSuffixes[] = {
        {"bit", 1.},
        {"Kibit", 1024.},
        {"kbit", 1000.},
        {"mibit", 1048576.},
        {"mbit", 1e6},
        {"gibit", 1073741824.},
        {"gbit", 1e9},
        {"tibit", 1099511627776.},
        {"tbit", 1e12},
        {"Bps", 8.},
        {"KiBps", 8. * 1024},
        {"KBps", 8000.},
        {"MiBps", 8. * 1048576},
        {"MBps", 8e6},
        {"GiBps", 8. * 1073741824.},
        {"GBps", 8e9},
        {"TiBps", 8. * 1099511627776.},
        {"TBps", 8e12},
    };
    const std::string expected = "a rate such as 100mbit, 1gbit or 500kbit";
    if (w_[at].find('%') != std::string::npos)
      fail(at, "a rate in percent of the device's speed is not supported; expected " + expected);
    const char* p;
    double bps = strtod_checked(at, &p, expected);
    std::string unit = p;
    if (!unit.empty()) {
      bool found = false;
      for (const Suffix& s : kSuffixes) {
        if (ieq(unit, s.name)) {
          bps *= s.scale;
          found = true;
          break;
        }
      }
      if (!found)
        fail(at, "unknown rate unit '" + unit + "' in " + quoted(at) +
                     "; expected bit, kbit, mbit, gbit, tbit or Bps, KBps, MBps, GBps "
                     "(bytes per second)");
    }
    bps /= 8;
    if (bps >= 1.8e19) fail(at, quoted(at) + " is too large");
    uint64_t v = static_cast<uint64_t>(bps);
    if (v == 0) fail(at, quoted(at) + " is below 8bit (1 byte per second); expected " + expected);
    return v;
  }

  uint32_t u32(size_t at, const std::string& expected) const {
    const char* str = w_[at].c_str();
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(str, &end, 0);
    if (end == str || *end || w_[at][0] == '-' || errno == ERANGE || v > UINT32_MAX)
      fail(at, quoted(at) + " is not " + expected);
    return static_cast<uint32_t>(v);
  }

  int32_t s32(size_t at, const std::string& expected) const {
    const char* str = w_[at].c_str();
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(str, &end, 0);
    if (end == str || *end || errno == ERANGE || v > INT32_MAX || v < INT32_MIN)
      fail(at, quoted(at) + " is not " + expected);
    return static_cast<int32_t>(v);
  }

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
      sl.max_bytes = static_cast<int32_t>(size(next_value("a number of bytes"), "a size in bytes"));
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

  const std::vector<std::string>& w_;
  std::vector<size_t> offsets_;
  std::string joined_;
  size_t i_ = 0;
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

std::string fmt_rate(uint64_t bytes_per_s) {
  // tc reads bits and divides by 8, so bytes x 8 bits reads back exactly.
  unsigned long long bits = bytes_per_s * 8ULL;
  if (bits % 1000000000ULL == 0) return std::to_string(bits / 1000000000ULL) + "gbit";
  if (bits % 1000000ULL == 0) return std::to_string(bits / 1000000ULL) + "mbit";
  if (bits % 1000ULL == 0) return std::to_string(bits / 1000ULL) + "kbit";
  return std::to_string(bits) + "bit";
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
  bool any_corr = s.delay_corr != 0 || (random_loss && s.loss_corr != 0) || s.reorder_corr != 0 ||
                  s.corrupt_corr != 0;
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
      if (random_loss) {
        add("loss");
        add(fmt_percent(s.loss));
        if (s.loss_corr != 0 || carrier == kLoss) add(fmt_percent(s.loss_corr));
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
    add(fmt_rate(s.rate_bytes_per_s));
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
