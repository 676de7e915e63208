#include "netem/tc_words.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "common/input_error.h"
#include "netem/psched.h"

namespace fabriclab::netem {

bool matches(const std::string& word, const char* keyword) {
  if (word.empty()) return false;
  return std::string(keyword).compare(0, word.size(), word) == 0;
}

bool starts_with_digit(const std::string& word) {
  return !word.empty() && std::isdigit(static_cast<unsigned char>(word[0]));
}

bool ieq(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

std::string rate_words(uint64_t bytes_per_s) {
  // tc reads bits and divides by 8, so bytes x 8 bits reads back exactly.
  unsigned long long bits = bytes_per_s * 8ULL;
  if (bits % 1000000000ULL == 0) return std::to_string(bits / 1000000000ULL) + "gbit";
  if (bits % 1000000ULL == 0) return std::to_string(bits / 1000000ULL) + "mbit";
  if (bits % 1000ULL == 0) return std::to_string(bits / 1000ULL) + "kbit";
  return std::to_string(bits) + "bit";
}

std::string size_words(uint64_t bytes) {
  if (bytes != 0 && bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + "mb";
  if (bytes != 0 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + "kb";
  return std::to_string(bytes);
}

TcWords::TcWords(const std::vector<std::string>& words, std::string what)
    : w_(words), what_(std::move(what)) {
  for (size_t i = 0; i < w_.size(); ++i) {
    if (i) joined_ += ' ';
    offsets_.push_back(joined_.size());
    joined_ += w_[i];
  }
}

void TcWords::fail(size_t at, const std::string& message) const {
  size_t col = at < w_.size() ? offsets_[at] : joined_.size() + (joined_.empty() ? 0 : 1);
  size_t len = at < w_.size() ? std::max<size_t>(1, w_[at].size()) : 1;
  std::string msg = "bad " + what_ + " \"" + joined_ + "\": " + message + "\n    " + joined_ +
                    "\n    " + std::string(col, ' ') + std::string(len, '^');
  throw InputError(msg);
}

std::string TcWords::quoted(size_t at) const { return "'" + w_[at] + "'"; }

size_t TcWords::next_value(const std::string& expected) {
  if (i_ >= w_.size()) fail(i_, "'" + w_[i_ - 1] + "' needs " + expected);
  return i_++;
}
bool TcWords::next_is_number() const { return i_ < w_.size() && starts_with_digit(w_[i_]); }
bool TcWords::next_is_signed_number() const {
  return i_ < w_.size() && (starts_with_digit(w_[i_]) || w_[i_][0] == '-');
}

// ---- number readers (iproute2 semantics) -----------------------------
double TcWords::strtod_checked(size_t at, const char** rest, const std::string& expected) const {
  const char* str = w_[at].c_str();
  char* end = nullptr;
  double v = std::strtod(str, &end);
  if (end == str || !std::isfinite(v)) fail(at, quoted(at) + " is not " + expected);
  if (v < 0) fail(at, quoted(at) + " is negative; expected " + expected);
  *rest = end;
  return v;
}

// get_time(): microseconds, default unit us.
uint64_t TcWords::time_us(size_t at) const {
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
int64_t TcWords::time_ns(size_t at) const {
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
double TcWords::percent(size_t at) const {
  const std::string expected = "a percentage such as 1% or 0.5%";
  const char* p;
  double v = strtod_checked(at, &p, expected) / 100.;
  if (*p && std::string(p) != "%") fail(at, quoted(at) + " is not " + expected);
  if (v > 1.0) fail(at, quoted(at) + " is more than 100%; expected 0% to 100%");
  return v;
}

// get_size(): bytes (or packets, for limit), with k/m/g and kbit/mbit/gbit.
uint32_t TcWords::size(size_t at, const std::string& expected) const {
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
uint64_t TcWords::rate(size_t at) const {
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
  // In bits, so that bytes x 8 (rate_words(), the kernel's bits) fits in 64 bits.
  if (bps >= 1.8e19) fail(at, quoted(at) + " is too large");
  bps /= 8;
  uint64_t v = static_cast<uint64_t>(bps);
  if (v == 0) fail(at, quoted(at) + " is below 8bit (1 byte per second); expected " + expected);
  return v;
}

uint32_t TcWords::u32(size_t at, const std::string& expected) const {
  const char* str = w_[at].c_str();
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(str, &end, 0);
  if (end == str || *end || w_[at][0] == '-' || errno == ERANGE || v > UINT32_MAX)
    fail(at, quoted(at) + " is not " + expected);
  return static_cast<uint32_t>(v);
}

int32_t TcWords::s32(size_t at, const std::string& expected) const {
  const char* str = w_[at].c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(str, &end, 0);
  if (end == str || *end || errno == ERANGE || v > INT32_MAX || v < INT32_MIN)
    fail(at, quoted(at) + " is not " + expected);
  return static_cast<int32_t>(v);
}

}  // namespace fabriclab::netem
