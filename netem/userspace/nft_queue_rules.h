// The nftables rules that divert a device's egress to our NFQUEUE, owned as
// one object: created in one nftables transaction, deleted in one.
//
// What it creates, in the target namespace (nft list ruleset shows it):
//   table ip  fabriclab_<dev> { chain egress { type filter hook postrouting
//       priority 1000; oifname "<dev>" [ip daddr <peer>] queue num N bypass } }
//   table ip6 fabriclab_<dev> { ... the same for IPv6 ... }
// (one ip rule per IPv4 peer, one ip6 rule per IPv6 peer; without peers one
// rule per family matching the whole device; a family with no peer gets no
// table). Postrouting at priority 1000 is after filtering and NAT, as close to
// the device's qdisc (where netem would sit) as netfilter gets.
// For Direction::kIngress the tables are fabriclab_<dev>_in with a chain
// `ingress`, hook prerouting priority -300, matching iifname and the peers as
// source addresses (see Direction in netem/impairment.h for why). ARP is not
// IP and is not delayed (netem would delay it too; harmless for the labs).
//
// Why an xtables NFQUEUE target and libnftnl rather than libnftables' `queue`
// statement: the native expression needs CONFIG_NFT_QUEUE, which this kernel
// (and several distribution kernels) lack, while the xtables target through
// nft_compat -- what `iptables-nft -j NFQUEUE` installs -- is available here
// (CONFIG_NFT_COMPAT + CONFIG_NETFILTER_XT_TARGET_NFQUEUE). libnftables cannot
// emit an xtables target; libnftnl (the library beneath it) can.
//
// Ownership: the tables carry NFT_TABLE_F_OWNER (Linux >= 5.12), so they
// belong to this object's netlink socket: only it can change them and the
// kernel deletes them when the socket closes -- also when the process is
// killed. A crash therefore never leaves a device diverted to a dead queue.
// `bypass` covers the remaining window: the listener binds before the rules
// exist and the rules are gone before it unbinds.
//
// Errors: std::runtime_error. EEXIST ("already impaired by fabriclab") when a
// table of that name exists; nothing is created then. InputError for a peer
// that is not an IPv4/IPv6 address. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "netem/impairment.h"

struct mnl_socket;

namespace fabriclab::netem::userspace {

class NftQueueRules {
 public:
  NftQueueRules(const Target& target, uint16_t queue_num);
  ~NftQueueRules();  // deletes the tables; logs (never throws) on failure
  NftQueueRules(const NftQueueRules&) = delete;
  NftQueueRules& operator=(const NftQueueRules&) = delete;

  const std::string& table_name() const { return table_; }

 private:
  mnl_socket* socket_ = nullptr;  // bound in the target namespace; owns the tables
  std::string table_;
  std::vector<int> families_;  // NFPROTO_IPV4 / NFPROTO_IPV6 tables created
};

// "fabriclab_" + the device name with anything but [A-Za-z0-9_] as '_',
// + "_in" for ingress.
std::string nft_table_name(const std::string& device, Direction direction);

// True when the kernel accepts an xtables NFQUEUE target in an nftables rule
// (checked by a transaction that is aborted, in the current namespace).
// `why` receives the reason when not.
bool nft_queue_target_usable(std::string* why);

}  // namespace fabriclab::netem::userspace
