#include "netem/userspace/nft_queue_rules.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <net/if.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "common/input_error.h"
#include "common/scoped_netns.h"
#include "netem/userspace/nft_batch.h"

namespace fabriclab::netem::userspace {

namespace {

using nft::nfqueue_target;
using nft::RuleFree;
using nft::Transaction;
using nft::add_table;
using nft::open_nft_socket;
using nft::table_exists;

// Egress: postrouting after filter (0) and srcnat (100), as close to the
// device's qdisc as netfilter gets. Ingress: prerouting before conntrack
// (-200) and everything else, as if the packet were still on the wire.
constexpr int32_t kEgressPriority = 1000;
constexpr int32_t kIngressPriority = -300;

const char* chain_name(Direction d) { return d == Direction::kEgress ? "egress" : "ingress"; }
void add_chain(Transaction& tx, const std::string& table, int family, Direction direction) {
  const bool egress = direction == Direction::kEgress;
  nft::add_base_chain(tx, table, family, chain_name(direction),
                      egress ? NF_INET_POST_ROUTING : NF_INET_PRE_ROUTING,
                      egress ? kEgressPriority : kIngressPriority);
}

void add_expr(nftnl_rule* r, nftnl_expr* e) { nftnl_rule_add_expr(r, e); }  // rule owns e

// Egress:  oifname "<dev>" [<family> daddr <peer>] queue num N bypass
// Ingress: iifname "<dev>" [<family> saddr <peer>] queue num N bypass
void add_rule(Transaction& tx, const std::string& table, int family, Direction direction,
              const std::string& device, const std::string* peer, uint16_t queue_num) {
  const bool egress = direction == Direction::kEgress;
  std::unique_ptr<nftnl_rule, RuleFree> r(nftnl_rule_alloc());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_CHAIN, chain_name(direction));
  nftnl_rule_set_u32(r.get(), NFTNL_RULE_FAMILY, family);

  add_expr(r.get(), nft::meta_load(egress ? NFT_META_OIFNAME : NFT_META_IIFNAME, NFT_REG_1));
  char ifname[IFNAMSIZ] = {};  // exact match: the whole zero-padded name
  std::strncpy(ifname, device.c_str(), IFNAMSIZ - 1);
  add_expr(r.get(), nft::cmp_eq(NFT_REG_1, ifname, IFNAMSIZ));

  if (peer != nullptr) {
    unsigned char addr[16];
    const bool v4 = family == NFPROTO_IPV4;
    inet_pton(v4 ? AF_INET : AF_INET6, peer->c_str(), addr);
    // IPv4 saddr/daddr at 12/16, IPv6 at 8/24.
    const uint32_t offset = v4 ? (egress ? 16 : 12) : (egress ? 24 : 8);
    add_expr(r.get(), nft::network_load(offset, v4 ? 4 : 16, NFT_REG_1));
    add_expr(r.get(), nft::cmp_eq(NFT_REG_1, addr, v4 ? 4 : 16));
  }

  add_expr(r.get(), nfqueue_target(queue_num));

  nlmsghdr* nlh = tx.add(NFT_MSG_NEWRULE, family, NLM_F_CREATE | NLM_F_APPEND);
  nftnl_rule_nlmsg_build_payload(nlh, r.get());
  tx.next();
}

std::string where(const Target& target) {
  return "device '" + target.device + "'" +
         (target.netns.empty() ? std::string() : " in namespace '" + target.netns + "'");
}

}  // namespace

std::string nft_table_name(const std::string& device, Direction direction) {
  std::string name = "fabriclab_";
  for (char c : device) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (direction == Direction::kIngress) name += "_in";
  return name;
}

NftQueueRules::NftQueueRules(const Target& target, uint16_t queue_num)
    : table_(nft_table_name(target.device, target.direction)) {
  std::vector<std::string> v4_peers, v6_peers;
  for (const std::string& peer : target.peers) {
    unsigned char addr[16];
    if (inet_pton(AF_INET, peer.c_str(), addr) == 1) {
      v4_peers.push_back(peer);
    } else if (inet_pton(AF_INET6, peer.c_str(), addr) == 1) {
      v6_peers.push_back(peer);
    } else {
      throw InputError("peer '" + peer + "': expected an IPv4 or IPv6 address");
    }
  }
  if (target.device.empty() || target.device.size() >= IFNAMSIZ) {
    throw InputError("device '" + target.device + "': expected an interface name of 1 to " +
                     std::to_string(IFNAMSIZ - 1) + " characters");
  }

  // The socket is opened inside the namespace and stays bound to it; it owns
  // the tables for as long as it is open.
  {
    ScopedNetns in_ns =
        target.netns_fd >= 0 ? ScopedNetns(target.netns_fd) : ScopedNetns(target.netns);
    if (if_nametoindex(target.device.c_str()) == 0) {
      throw InputError(where(target) + ": no such device");
    }
    socket_ = open_nft_socket();
  }

  Transaction tx(1);
  const bool all = target.peers.empty();
  if (all || !v4_peers.empty()) families_.push_back(NFPROTO_IPV4);
  if (all || !v6_peers.empty()) families_.push_back(NFPROTO_IPV6);
  for (int family : families_) {
    add_table(tx, table_, family, true);
    add_chain(tx, table_, family, target.direction);
    const auto& peers = family == NFPROTO_IPV4 ? v4_peers : v6_peers;
    if (all) add_rule(tx, table_, family, target.direction, target.device, nullptr, queue_num);
    for (const std::string& peer : peers) {
      add_rule(tx, table_, family, target.direction, target.device, &peer, queue_num);
    }
  }
  if (int err = tx.commit(socket_).error; err != 0) {
    // A table owned by another socket answers EPERM, not EEXIST.
    if (err == EPERM || err == EEXIST) {
      for (int family : families_) {
        if (table_exists(socket_, table_, family)) err = EEXIST;
      }
    }
    mnl_socket_close(socket_);
    socket_ = nullptr;
    std::string msg = "nftables: cannot divert " + where(target) + " to NFQUEUE " +
                      std::to_string(queue_num) + ": " + std::strerror(err);
    if (err == EEXIST) {
      msg += " (table '" + table_ + "' exists: the device is already impaired; clear it first)";
    } else if (err == ENOENT || err == EOPNOTSUPP) {
      msg +=
          " (this kernel lacks nft_compat or the NFQUEUE target: CONFIG_NFT_COMPAT, "
          "CONFIG_NETFILTER_XT_TARGET_NFQUEUE)";
    } else if (err == EPERM) {
      msg += " (needs CAP_NET_ADMIN in the namespace)";
    }
    throw std::runtime_error(msg);
  }
}

NftQueueRules::~NftQueueRules() {
  if (socket_ == nullptr) return;
  Transaction tx(1);
  for (int family : families_) add_table(tx, table_, family, false);
  if (int err = tx.commit(socket_).error; err != 0 && err != ENOENT) {
    // Closing the owner socket below deletes the tables anyway.
    spdlog::warn("nftables: deleting table '{}': {}", table_, std::strerror(err));
  }
  mnl_socket_close(socket_);
}

bool nft_queue_target_usable(std::string* why) {
  mnl_socket* s = nullptr;
  try {
    s = open_nft_socket();
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
  // Build the real table, chain and rule in a transaction that ends in a
  // deliberate error (deleting a table that does not exist), so the kernel
  // validates everything -- including the NFQUEUE target -- and keeps nothing.
  Transaction tx(1);
  const std::string probe = "fabriclab_probe_" + std::to_string(::getpid());
  add_table(tx, probe, NFPROTO_IPV4, true);
  add_chain(tx, probe, NFPROTO_IPV4, Direction::kEgress);
  add_rule(tx, probe, NFPROTO_IPV4, Direction::kEgress, "lo", nullptr, 16000);
  add_table(tx, probe + "_absent", NFPROTO_IPV4, false);
  const uint32_t deliberate = tx.last_seq();
  Transaction::Outcome outcome = tx.commit(s);
  mnl_socket_close(s);
  if (outcome.error == ENOENT && outcome.failed_seq == deliberate) return true;
  if (why) {
    *why = std::string("the kernel rejects an nftables rule with the xtables NFQUEUE target (") +
           (outcome.error == 0 ? "no error where one was expected" : std::strerror(outcome.error)) +
           "): needs CONFIG_NFT_COMPAT and CONFIG_NETFILTER_XT_TARGET_NFQUEUE, and "
           "CAP_NET_ADMIN";
  }
  return false;
}

}  // namespace fabriclab::netem::userspace
