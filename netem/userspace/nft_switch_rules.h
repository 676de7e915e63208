// The nftables rules of a userspace switch (switch_worker.h), in the switch's
// own namespace, where the lab's bridge forwards between the ranks:
//
//   table ip fabriclab_switch_<N> {
//     chain ports {                      # bridged IPv4 meets the ip family's
//       type filter hook forward priority 0;          # hooks (br_netfilter)
//       ip daddr 10.77.0.1 queue num N bypass         # one rule per port
//       ...
//     }
//     chain ce {
//       type filter hook postrouting priority 0;
//       meta mark & 0x0fab0000 == 0x0fab0000 ip ecn set ce   # checksum fixed
//     }
//   }
//
// A port is named by the address of the rank behind it: everything the
// bridge forwards to that address waits in that port's queue (in NFQUEUE,
// for the worker's verdict). A verdict that carries kCeMark makes the packet
// leave with CE set in its IP header -- the bytes the receiver sees -- so no
// packet is ever copied to userspace in full.
//
// br_netfilter's bridge-nf-call-iptables must be 1 in that namespace (it is
// by default; the constructor sets it and the destructor restores it).
// Ownership and errors as NftQueueRules (nft_queue_rules.h): the table
// belongs to this object's netlink socket, so a killed fabriclab leaves none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct mnl_socket;

namespace fabriclab::netem::userspace {

constexpr uint32_t kCeMark = 0x0fab0000;
// The table: "fabriclab_switch_<queue number>" (one per switch worker).
std::string switch_table_name(uint16_t queue_num);

class NftSwitchRules {
 public:
  // netns_fd: the switch's namespace (-1: the caller's). Port addresses: IPv4.
  NftSwitchRules(int netns_fd, const std::vector<std::string>& port_addresses, uint16_t queue_num);
  ~NftSwitchRules();
  NftSwitchRules(const NftSwitchRules&) = delete;
  NftSwitchRules& operator=(const NftSwitchRules&) = delete;

 private:
  mnl_socket* socket_ = nullptr;
  int netns_fd_ = -1;
  std::string table_;
  std::string bridge_call_iptables_before_;  // "" when it was not changed
};

}  // namespace fabriclab::netem::userspace
