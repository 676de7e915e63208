#include "runner/host/host_roster.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "common/input_error.h"

namespace fabriclab::runner::host {
namespace {

std::string ipv4_text(const sockaddr* address) {
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  return text;
}

// An IPv4 address as is; a name through the resolver (first IPv4 answer).
// `where` names the entry's place for the error ("--hosts", "hosts.txt:3").
std::string resolve_ipv4(const std::string& entry, const std::string& where) {
  in_addr parsed{};
  if (::inet_pton(AF_INET, entry.c_str(), &parsed) == 1) return entry;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(entry.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    throw InputError(where + ": '" + entry +
                     "' is neither an IPv4 address nor a name that resolves to one" +
                     (rc != 0 ? std::string(" (") + ::gai_strerror(rc) + ")" : ""));
  }
  std::string address = ipv4_text(found->ai_addr);
  ::freeaddrinfo(found);
  return address;
}

}  // namespace

std::string HostRoster::describe(int host) const {
  return "host " + std::to_string(host) + " (" + hosts.at(static_cast<size_t>(host)) + ")";
}

std::vector<std::string> parse_host_list(const std::string& text) {
  std::vector<std::string> hosts;
  std::istringstream in(text);
  std::string entry;
  while (std::getline(in, entry, ',')) {
    if (entry.empty())
      throw InputError("--hosts '" + text + "': an empty entry (expected A,B[,...])");
    const std::string address = resolve_ipv4(entry, "--hosts");
    if (std::find(hosts.begin(), hosts.end(), address) != hosts.end())
      throw InputError("--hosts '" + text + "': " + entry + " (" + address + ") is listed twice");
    hosts.push_back(address);
  }
  if (hosts.size() < 2)
    throw InputError("--hosts '" + text + "': expected at least two hosts, e.g. 10.0.0.1,10.0.0.2");
  return hosts;
}

std::vector<std::string> read_host_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("--hosts-file " + path + ": cannot read it");
  std::vector<std::string> hosts;
  std::vector<int> lines;  // where each host was listed
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string entry, extra;
    if (!(words >> entry)) continue;
    const std::string where = path + ":" + std::to_string(number);
    if (words >> extra)
      throw InputError(where + ": expected one host a line, found '" + entry + "' and '" + extra +
                       "'");
    const std::string address = resolve_ipv4(entry, where);
    const auto earlier = std::find(hosts.begin(), hosts.end(), address);
    if (earlier != hosts.end())
      throw InputError(where + ": " + entry + (entry == address ? "" : " (" + address + ")") +
                       " is listed twice (first on line " +
                       std::to_string(lines[static_cast<size_t>(earlier - hosts.begin())]) + ")");
    hosts.push_back(address);
    lines.push_back(number);
  }
  if (hosts.size() < 2)
    throw InputError("--hosts-file " + path + ": expected at least two hosts, one a line; found " +
                     std::to_string(hosts.size()));
  return hosts;
}

namespace {

// Every IPv4 address of this machine (its network namespace) with its
// interface's name, from getifaddrs; none when it fails.
std::vector<std::pair<std::string, std::string>> ipv4_addresses_by_interface() {
  std::vector<std::pair<std::string, std::string>> found;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return found;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr != nullptr && entry->ifa_addr->sa_family == AF_INET)
      found.emplace_back(entry->ifa_name, ipv4_text(entry->ifa_addr));
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace

std::set<std::string> local_ipv4_addresses(const std::string& device) {
  std::set<std::string> addresses;
  for (const auto& [name, address] : ipv4_addresses_by_interface())
    if (device.empty() || device == name) addresses.insert(address);
  return addresses;
}

std::string interface_with_address(const std::string& address) {
  for (const auto& [name, own] : ipv4_addresses_by_interface())
    if (own == address) return name;
  return "";
}

std::string default_lab_interface(const std::vector<std::string>& hosts, int index) {
  if (index >= static_cast<int>(hosts.size()))
    throw InputError("--host-index " + std::to_string(index) + ": there are " +
                     std::to_string(hosts.size()) + " hosts (expected 0.." +
                     std::to_string(hosts.size() - 1) + ")");
  if (index < 0) index = find_own_host_index(hosts, local_ipv4_addresses());
  const std::string& own = hosts[static_cast<size_t>(index)];
  const std::string iface = interface_with_address(own);
  if (iface.empty())
    throw InputError("--iface: no interface of this machine holds " + own + ", host " +
                     std::to_string(index) +
                     "'s address in the host list (expected --iface, this host's lab interface: "
                     "ip -br addr)");
  return iface;
}

int find_own_host_index(const std::vector<std::string>& hosts,
                        const std::set<std::string>& own_addresses) {
  std::vector<int> matches;
  for (size_t i = 0; i < hosts.size(); ++i)
    if (own_addresses.count(hosts[i]) != 0) matches.push_back(static_cast<int>(i));
  if (matches.size() == 1) return matches.front();
  std::string own;
  for (const std::string& a : own_addresses) own += (own.empty() ? "" : ", ") + a;
  if (matches.empty())
    throw InputError("--hosts: none of the hosts is an address of this machine (its addresses: " +
                     own + "); give this machine's lab address in the list, or --host-index");
  throw InputError(
      "--hosts: several hosts are addresses of this machine; say which one with --host-index");
}

}  // namespace fabriclab::runner::host
