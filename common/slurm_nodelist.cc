#include "common/slurm_nodelist.h"

#include <cctype>
#include <stdexcept>

namespace fabriclab {
namespace {

constexpr size_t kMaxHosts = 65536;

[[noreturn]] void malformed(const std::string& list, size_t at, const std::string& what) {
  throw std::invalid_argument("host list '" + list + "': at character " + std::to_string(at + 1) +
                              ": " + what);
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "01-04,07" -> 01 02 03 04 07; `at` is where the group starts, for errors.
std::vector<std::string> expand_group(const std::string& list, const std::string& group, size_t at) {
  std::vector<std::string> values;
  size_t begin = 0;
  while (begin <= group.size()) {
    const size_t comma = group.find(',', begin);
    const std::string range = group.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const size_t dash = range.find('-');
    const std::string low = range.substr(0, dash);
    const std::string high = dash == std::string::npos ? low : range.substr(dash + 1);
    if (!all_digits(low) || !all_digits(high))
      malformed(list, at + begin, "expected a number or a range like 01-04 inside [], got '" + range + "'");
    if (low.size() > 9 || high.size() > 9) malformed(list, at + begin, "a number of at most 9 digits");
    const long from = std::stol(low), to = std::stol(high);
    if (to < from) malformed(list, at + begin, "the range " + range + " runs backwards; expected LOW-HIGH with LOW <= HIGH");
    if (static_cast<size_t>(to - from) >= kMaxHosts) malformed(list, at + begin, "more than 65536 hosts");
    for (long n = from; n <= to; ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < low.size()) digits.insert(0, low.size() - digits.size(), '0');
      values.push_back(digits);
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return values;
}

// One item of the list ("a[1-2]-b[3-4]"): the product of its parts.
std::vector<std::string> expand_item(const std::string& list, const std::string& item, size_t at) {
  std::vector<std::string> hosts = {""};
  size_t i = 0;
  while (i < item.size()) {
    const size_t open = item.find('[', i);
    const std::string text = item.substr(i, open == std::string::npos ? std::string::npos : open - i);
    if (text.find(']') != std::string::npos) malformed(list, at + i + text.find(']'), "a ']' without its '['");
    for (std::string& host : hosts) host += text;
    if (open == std::string::npos) break;
    const size_t close = item.find(']', open);
    if (close == std::string::npos) malformed(list, at + open, "a '[' that is never closed");
    const std::string group = item.substr(open + 1, close - open - 1);
    if (group.find('[') != std::string::npos) malformed(list, at + open, "brackets do not nest");
    const std::vector<std::string> values = expand_group(list, group, at + open + 1);
    if (hosts.size() * values.size() > kMaxHosts) malformed(list, at + open, "more than 65536 hosts");
    std::vector<std::string> product;
    for (const std::string& host : hosts)
      for (const std::string& value : values) product.push_back(host + value);
    hosts = std::move(product);
    i = close + 1;
  }
  return hosts;
}

}  // namespace

std::vector<std::string> expand_slurm_nodelist(const std::string& list) {
  if (list.empty()) throw std::invalid_argument("host list '': expected at least one host");
  std::vector<std::string> hosts;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c != ',' || depth > 0) continue;
    if (i == start) malformed(list, i, "an empty host name");
    for (std::string& host : expand_item(list, list.substr(start, i - start), start)) {
      hosts.push_back(std::move(host));
      if (hosts.size() > kMaxHosts) malformed(list, start, "more than 65536 hosts");
    }
    start = i + 1;
  }
  if (depth > 0) malformed(list, list.rfind('['), "a '[' that is never closed");
  return hosts;
}

}  // namespace fabriclab
