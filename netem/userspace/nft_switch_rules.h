// The nftables rules of a userspace switch (switch_worker.h), in the switch's
// own namespace, where the lab's bridge forwards between the ranks:
//
//   table bridge fabriclab_switch_<N> {
//     chain ports {                      # the bridge's own forward hook
//       type filter hook forward priority -1;
//       meta protocol ip ip daddr 10.77.0.1 queue num N bypass   # one per port
//       ...
//     }
//     chain ce {
//       type filter hook postrouting priority 0;
//       meta protocol ip meta mark & 0x0fab0000 == 0x0fab0000 ip ecn set ce
//     }                                                      # checksum fixed
//   }
//
// A port is named by the address of the rank behind it: everything the
// bridge forwards to that address waits in that port's queue (in NFQUEUE,
// for the worker's verdict). A verdict that carries kCeMark makes the packet
// leave with CE set in its IP header -- the bytes the receiver sees -- so no
// packet is ever copied to userspace in full.
//
// Why the bridge family and not the ip family's hooks: those see bridged
// packets only through br_netfilter, a module nothing loads on demand and
// whose loading changes the host -- every bridge of the host (and of every
// namespace created after) starts passing its frames through iptables. The
// bridge family's hooks are the bridge's own: the kernel loads what they
// need by itself (nf_tables, nft_queue: Debian's kernel has both as
// modules), nothing changes outside the switch's namespace, and they work
// rootless. priority -1: before br_netfilter's own hook (0), should the host
// have it, so each packet reaches the queue once.
//
// Where the kernel has no native queue (CONFIG_NFT_QUEUE unset, like this
// project's build machines; the xtables NFQUEUE target cannot stand in: in
// the bridge family the kernel refuses it), and only there, the older way:
//   table ip fabriclab_switch_<N>, the same chains on the ip family's forward
//   and postrouting hooks, the xtables NFQUEUE target through nft_compat,
// which needs br_netfilter with bridge-nf-call-iptables = 1 in the switch's
// namespace (per namespace since Linux 5.3): the constructor sets it there
// and the destructor restores it. fabriclab never loads br_netfilter: where
// it is absent too, the constructor throws, saying what to run.
//
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

// True when a switch's port queue can be built here (either way above),
// probed in a throwaway namespace; `why` says which way, or what is missing
// and what to run. (`fabriclab doctor`'s "switch queue" check.)
bool switch_queue_usable(std::string* why);

class NftSwitchRules {
 public:
  // netns_fd: the switch's namespace (-1: the caller's). Port addresses: IPv4.
  NftSwitchRules(int netns_fd, const std::vector<std::string>& port_addresses, uint16_t queue_num);
  ~NftSwitchRules();
  NftSwitchRules(const NftSwitchRules&) = delete;
  // NFPROTO_BRIDGE (the bridge family, native queue) or NFPROTO_IPV4
  // (br_netfilter, xtables NFQUEUE target): the way the kernel took.
  int family() const { return family_; }
  NftSwitchRules& operator=(const NftSwitchRules&) = delete;

 private:
  mnl_socket* socket_ = nullptr;
  int netns_fd_ = -1;
  std::string table_;
  int family_;                               // NFPROTO_BRIDGE or NFPROTO_IPV4
  std::string bridge_call_iptables_before_;  // "" when it was not changed
};

}  // namespace fabriclab::netem::userspace
