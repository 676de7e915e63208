// Helpers for tests that compare our netlink bytes with iproute2's tc:
// reading fixture files (tests/netem/fixtures/*.txt, written by
// capture_fixtures.sh), turning a `tc qdisc ...` command line into what our
// encoder takes, capturing tc's bytes live with strace, and comparing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netem/netlink/qdisc_message.h"

namespace fabriclab::netem::testing {

struct TcFixture {
  std::string file;
  std::string command;         // "tc qdisc add dev lo root handle fab0: netem delay 100ms"
  bool sent = false;           // tc sent a message (else it rejected the words)
  std::vector<uint8_t> bytes;  // what tc sent
  std::string tc_error;        // why tc rejected
};

// Every fixture file in `dir`, sorted by name.
std::vector<TcFixture> load_fixtures(const std::string& dir);

// `tc qdisc CMD dev lo (root | parent H) [handle H] (netem|tbf) WORDS...` parsed.
struct TcQdiscCommand {
  netlink::QdiscCommand command = netlink::QdiscCommand::kAdd;
  netlink::QdiscPlace place;  // ifindex 1 (lo in a fresh namespace)
  std::string kind = "netem";
  std::vector<std::string> netem_words;  // the words after the kind (netem's or tbf's)
};
TcQdiscCommand parse_tc_command(const std::string& line);

std::vector<uint8_t> from_hex(const std::string& hex);
std::string to_hex(const std::vector<uint8_t>& bytes);

// Compares two rtnetlink messages ignoring nlmsg_seq and nlmsg_pid (bytes
// 8..15), which legitimately differ. Returns "" when equal, else where and how.
std::string compare_messages(const std::vector<uint8_t>& ours, const std::vector<uint8_t>& tc);

// Runs `unshare -n strace ... tc qdisc ARGS` and returns the bytes tc sent
// (nullopt if tc sent nothing). Needs root or user namespaces.
std::optional<std::vector<uint8_t>> capture_tc(const std::string& tc_args);

// True when tc, strace and unshare are on PATH and `unshare -n true` works
// here; otherwise `why` says what is missing.
bool can_capture_tc(std::string* why);

}  // namespace fabriclab::netem::testing
