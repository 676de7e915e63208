#include "tests/netem/tc_fixture.h"

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "netem/spec_parse.h"

namespace fabriclab::netem::testing {

std::vector<uint8_t> from_hex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::string to_hex(const std::vector<uint8_t>& bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

std::vector<TcFixture> load_fixtures(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".txt" && n != "commands.txt")
        names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<TcFixture> out;
  for (const std::string& n : names) {
    TcFixture f;
    f.file = n;
    std::ifstream in(dir + "/" + n);
    std::string line;
    while (std::getline(in, line)) {
      auto value = [&](const char* key) { return line.substr(std::string(key).size()); };
      if (line.rfind("tc: ", 0) == 0)
        f.command = value("tc: ");
      else if (line == "result: sent")
        f.sent = true;
      else if (line.rfind("bytes: ", 0) == 0)
        f.bytes = from_hex(value("bytes: "));
      else if (line.rfind("tc_error: ", 0) == 0)
        f.tc_error = value("tc_error: ");
    }
    out.push_back(f);
  }
  return out;
}

TcQdiscCommand parse_tc_command(const std::string& line) {
  std::vector<std::string> w = split_words(line);
  TcQdiscCommand c;
  c.place.ifindex = 1;
  size_t i = 0;
  if (i < w.size() && w[i] == "tc") ++i;
  if (i < w.size() && w[i] == "qdisc") ++i;
  if (i >= w.size()) throw std::runtime_error("no command in: " + line);
  const std::string& cmd = w[i++];
  if (cmd == "add")
    c.command = netlink::QdiscCommand::kAdd;
  else if (cmd == "change")
    c.command = netlink::QdiscCommand::kChange;
  else if (cmd == "replace")
    c.command = netlink::QdiscCommand::kReplace;
  else if (cmd == "del" || cmd == "delete")
    c.command = netlink::QdiscCommand::kDelete;
  else
    throw std::runtime_error("unknown command in: " + line);
  while (i < w.size() && w[i] != "netem" && w[i] != "tbf") {
    if (w[i] == "dev")
      i += 2;
    else if (w[i] == "root")
      c.place.parent = 0xFFFFFFFFu, ++i;
    else if (w[i] == "parent")
      c.place.parent = netlink::parse_handle(w[i + 1]), i += 2;
    else if (w[i] == "handle")
      c.place.handle = netlink::parse_handle(w[i + 1]), i += 2;
    else
      throw std::runtime_error("unknown word '" + w[i] + "' in: " + line);
  }
  if (i < w.size()) c.kind = w[i++];  // "netem" or "tbf"
  c.netem_words.assign(w.begin() + static_cast<long>(i), w.end());
  return c;
}

std::string compare_messages(const std::vector<uint8_t>& ours, const std::vector<uint8_t>& tc) {
  std::ostringstream why;
  if (ours.size() != tc.size()) why << "length " << ours.size() << " vs tc's " << tc.size() << "; ";
  for (size_t i = 0; i < std::min(ours.size(), tc.size()); ++i) {
    if (i >= 8 && i < 16) continue;  // nlmsg_seq, nlmsg_pid
    if (ours[i] != tc[i]) {
      why << "first difference at byte " << i << ": ours " << std::hex << int(ours[i]) << " tc "
          << int(tc[i]);
      break;
    }
  }
  return why.str();
}

namespace {

std::string run(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  if (status) *status = st;
  return out;
}

}  // namespace

bool can_capture_tc(std::string* why) {
  for (const char* tool : {"tc", "strace", "unshare"}) {
    int st = 0;
    run(std::string("command -v ") + tool + " >/dev/null 2>&1", &st);
    if (st != 0) {
      if (why) *why = std::string(tool) + " is not installed";
      return false;
    }
  }
  int st = 0;
  std::string prefix = geteuid() == 0 ? "unshare -n" : "unshare -U -r -n";
  run(prefix + " true 2>/dev/null", &st);
  if (st != 0) {
    if (why) *why = "cannot create a network namespace here (`" + prefix + " true` failed)";
    return false;
  }
  return true;
}

std::optional<std::vector<uint8_t>> capture_tc(const std::string& tc_args) {
  std::string prefix = geteuid() == 0 ? "unshare -n" : "unshare -U -r -n";
  std::string cmd = prefix + " strace -f -qq -e trace=sendmsg -e write=all tc qdisc " + tc_args +
                    " 2>&1 | awk '/^ [|] [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / "
                    "{ h = substr($0, 11, 48); gsub(/ /, \"\", h); printf \"%s\", h }'";
  std::string hex = run(cmd, nullptr);
  if (hex.empty()) return std::nullopt;
  return from_hex(hex);
}

}  // namespace fabriclab::netem::testing
