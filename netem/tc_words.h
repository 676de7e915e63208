// Reading tc's words: the number readers of iproute2 (get_time, get_time64,
// get_size, get_rate64, parse_percent, get_u32/get_s32) and its keyword
// matching, shared by every parser of tc-style words in this project (netem
// specs: spec_parse.h; switch queues: queue/port_spec.h), so the same word
// means the same value everywhere.
//
// A parser derives from TcWords, walks the words with i_ and reads values at
// an index; fail() throws an InputError that quotes all the words, points at
// the bad one with a caret line and says what was expected:
//
//   bad netem spec "delay 10xs": unknown time unit 'xs' in '10xs'; expected us, ms or s
//       delay 10xs
//             ^^^^
// Thread-safe (no shared state); one object per parse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::netem {

// tc's matches(): `word` is a non-empty prefix of `keyword`.
bool matches(const std::string& word, const char* keyword);
bool starts_with_digit(const std::string& word);
// Case-insensitive equality (units).
bool ieq(const std::string& a, const char* b);

// Canonical words that read back to the same value: a rate in bytes per
// second as "100mbit" (tc reads bits and divides by 8, so it is exact), a
// size in bytes as "256kb", "1mb" or "1500".
std::string rate_words(uint64_t bytes_per_s);
std::string size_words(uint64_t bytes);

class TcWords {
 protected:
  // `what` names the words in errors: "netem spec", "queue spec".
  TcWords(const std::vector<std::string>& words, std::string what);

  [[noreturn]] void fail(size_t at, const std::string& message) const;
  std::string quoted(size_t at) const;

  // The value word after keyword w_[i_-1]; fails with `expected` if absent.
  size_t next_value(const std::string& expected);
  bool next_is_number() const;
  bool next_is_signed_number() const;

  // Readers of the word at `at` (iproute2 semantics).
  double strtod_checked(size_t at, const char** rest, const std::string& expected) const;
  uint64_t time_us(size_t at) const;  // default unit us
  int64_t time_ns(size_t at) const;   // default unit ns
  double percent(size_t at) const;    // "25%" or "25" -> 0.25
  // Bytes (or packets) with k/m/g and kbit/mbit/gbit (binary multiples, as tc).
  uint32_t size(size_t at, const std::string& expected) const;
  uint64_t rate(size_t at) const;  // tc's rate words, in bytes per second
  uint32_t u32(size_t at, const std::string& expected) const;
  int32_t s32(size_t at, const std::string& expected) const;

  const std::vector<std::string>& w_;
  size_t i_ = 0;

 private:
  std::string what_;
  std::vector<size_t> offsets_;  // where each word starts in joined_
  std::string joined_;
};

}  // namespace fabriclab::netem
