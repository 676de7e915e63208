// Host mode's roster: which machines take part, in what order, and which one
// this runner is. The same `--hosts A,B[,...]` list is given on every machine; the
// first host leads (it serves the control store and rank 0's rendezvous, and
// writes the recording), and each machine finds its own place by matching
// the list against its own addresses -- or is told with --host-index.
//
// Ranks: host h runs ranks h*K .. h*K+K-1 (K = ranks per host), so a lab's
// link "rN" is the traffic of a rank on host N/K.
//
// Thread safety: plain data and pure functions (getifaddrs/getaddrinfo are
// thread-safe). Errors: InputError naming the entry and what was expected.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace fabriclab::runner::host {

struct HostRoster {
  std::vector<std::string> hosts;  // IPv4 lab addresses, the lead first
  int index = 0;                   // this runner's place in `hosts`
  int ranks_per_host = 1;

  const std::string& self() const { return hosts.at(static_cast<size_t>(index)); }
  const std::string& lead() const { return hosts.front(); }
  bool is_lead() const { return index == 0; }
  int world_size() const { return static_cast<int>(hosts.size()) * ranks_per_host; }
  int host_of_rank(int rank) const { return rank / ranks_per_host; }
  // "host 1 (10.88.0.2)": how messages name a host.
  std::string describe(int host) const;
};

// "A,B[,...]": IPv4 addresses, or names that resolve to one. At least two,
// no duplicates (after resolving).
std::vector<std::string> parse_host_list(const std::string& text);

// The same from a file (`--hosts-file`): one host a line, in order, the lead
// first; blank lines and "#" comments (whole-line or trailing) skipped.
// InputError naming "FILE:LINE" for a bad or repeated entry, "FILE" when
// it cannot be read or holds fewer than two hosts.
std::vector<std::string> read_host_file(const std::string& path);

// Every IPv4 address of this machine (its network namespace), from getifaddrs;
// with `device`, only that interface's.
std::set<std::string> local_ipv4_addresses(const std::string& device = "");

// The interface of this machine that holds `address`, "" when none does.
std::string interface_with_address(const std::string& address);

// Host mode's lab interface when --iface is not given: the one holding this
// host's own address in `hosts` (hosts[index], or the entry that is an
// address of this machine when index < 0). InputError naming the address
// and what to give instead when no interface holds it.
std::string default_lab_interface(const std::vector<std::string>& hosts, int index);

// The place in `hosts` of the one entry that is an address of this machine.
// InputError when none or several match (then --host-index is the way out).
int find_own_host_index(const std::vector<std::string>& hosts,
                        const std::set<std::string>& own_addresses);

}  // namespace fabriclab::runner::host
