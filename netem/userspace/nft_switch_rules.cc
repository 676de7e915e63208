#include "netem/userspace/nft_switch_rules.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>

#include "common/input_error.h"
#include "common/scoped_netns.h"
#include "netem/userspace/nft_batch.h"

namespace fabriclab::netem::userspace {
namespace {

// Before br_netfilter's hook (NF_BR_PRI_BRNF, 0) should the host have it.
constexpr int32_t kPortsPriority = -1;
constexpr char kBridgeCallIptables[] = "/proc/sys/net/bridge/bridge-nf-call-iptables";

std::string read_setting(const char* path) {
  std::ifstream in(path);
  std::string value;
  in >> value;
  return value;
}

bool write_setting(const char* path, const std::string& value) {
  std::ofstream out(path);
  out << value << '\n';
  out.close();
  return static_cast<bool>(out);
}

void add_rule(nft::Transaction& tx, int family, const std::string& table, const char* chain,
              const std::vector<nftnl_expr*>& exprs) {
  std::unique_ptr<nftnl_rule, nft::RuleFree> r(nftnl_rule_alloc());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_CHAIN, chain);
  nftnl_rule_set_u32(r.get(), NFTNL_RULE_FAMILY, family);
  for (nftnl_expr* e : exprs) nftnl_rule_add_expr(r.get(), e);
  nlmsghdr* nlh = tx.add(NFT_MSG_NEWRULE, family, NLM_F_CREATE | NLM_F_APPEND);
  nftnl_rule_nlmsg_build_payload(nlh, r.get());
  tx.next();
}

// In the bridge family, meta protocol ip: a bridge carries any EtherType and
// the rules read IPv4 headers. (The ip family sees nothing else.)
std::vector<nftnl_expr*> ipv4_only(int family) {
  static const uint16_t ip = htons(ETH_P_IP);
  if (family != NFPROTO_BRIDGE) return {};
  return {nft::meta_load(NFT_META_PROTOCOL, NFT_REG_1), nft::cmp_eq(NFT_REG_1, &ip, 2)};
}

// [meta protocol ip] ip daddr ADDRESS queue num N bypass
void add_port_rule(nft::Transaction& tx, int family, const std::string& table,
                   const in_addr& address, uint16_t queue_num) {
  std::vector<nftnl_expr*> exprs = ipv4_only(family);
  exprs.push_back(nft::network_load(16, 4, NFT_REG_1));
  exprs.push_back(nft::cmp_eq(NFT_REG_1, &address, 4));
  exprs.push_back(family == NFPROTO_BRIDGE ? nft::native_queue(queue_num)
                                           : nft::nfqueue_target(queue_num));
  add_rule(tx, family, table, "ports", exprs);
}

// [meta protocol ip] meta mark & kCeMark == kCeMark ip ecn set ce: the ECN
// bits are the low two of byte 1; nft loads bytes 0-1 and rewrites them, as
// `nft` itself does.
void add_ce_rule(nft::Transaction& tx, int family, const std::string& table) {
  const uint32_t mark = kCeMark;
  const uint32_t none = 0;
  const uint8_t keep[2] = {0xff, 0xfc};
  const uint8_t set_ce[2] = {0x00, 0x03};
  std::vector<nftnl_expr*> exprs = ipv4_only(family);
  for (nftnl_expr* e :
       {nft::meta_load(NFT_META_MARK, NFT_REG_1), nft::bitwise(NFT_REG_1, &mark, &none, 4),
        nft::cmp_eq(NFT_REG_1, &mark, 4), nft::network_load(0, 2, NFT_REG_1),
        nft::bitwise(NFT_REG_1, keep, set_ce, 2),
        nft::network_write_fixing_ipv4_checksum(0, 2, NFT_REG_1)})
    exprs.push_back(e);
  add_rule(tx, family, table, "ce", exprs);
}

// What is missing and what to run, root or rootless alike (a user namespace
// loads no module: the owner of the machine runs these once).
std::string no_switch_queue(int bridge_err) {
  return "the switch's port queue needs the kernel to queue bridged packets to userspace: "
         "nftables' bridge family answered \"" + std::string(std::strerror(bridge_err)) +
         "\" to `queue` (nft_queue, CONFIG_NFT_QUEUE), and br_netfilter, the other way, is not "
         "loaded. Either make nft_queue available (`sudo modprobe nft_queue` if it exists as a "
         "module; kernels without CONFIG_NFT_QUEUE need a rebuild), or run `sudo modprobe "
         "br_netfilter` once -- which makes every bridge of this machine pass its traffic "
         "through iptables until it is unloaded, so fabriclab never loads it itself";
}

int commit_rules(mnl_socket* socket, int family, const std::string& table,
                 const std::vector<in_addr>& ports, uint16_t queue_num) {
  const bool bridge = family == NFPROTO_BRIDGE;
  nft::Transaction tx(1);
  nft::add_table(tx, table, family, true);
  nft::add_base_chain(tx, table, family, "ports", bridge ? NF_BR_FORWARD : NF_INET_FORWARD,
                      bridge ? kPortsPriority : 0);
  nft::add_base_chain(tx, table, family, "ce", bridge ? NF_BR_POST_ROUTING : NF_INET_POST_ROUTING,
                      0);
  for (const in_addr& a : ports) add_port_rule(tx, family, table, a, queue_num);
  add_ce_rule(tx, family, table);
  return tx.commit(socket).error;
}

}  // namespace

std::string switch_table_name(uint16_t queue_num) {
  return "fabriclab_switch_" + std::to_string(queue_num);
}

NftSwitchRules::NftSwitchRules(int netns_fd, const std::vector<std::string>& port_addresses,
                               uint16_t queue_num)
    : netns_fd_(netns_fd), table_(switch_table_name(queue_num)), family_(NFPROTO_BRIDGE) {
  std::vector<in_addr> addresses;
  for (const std::string& text : port_addresses) {
    in_addr a{};
    if (inet_pton(AF_INET, text.c_str(), &a) != 1)
      throw InputError("switch port '" + text + "': expected an IPv4 address");
    addresses.push_back(a);
  }
  if (addresses.empty()) throw InputError("a switch needs at least one port");

  ScopedNetns in_switch(netns_fd);
  socket_ = nft::open_nft_socket();
  // The bridge family first. ENOENT: the kernel has no queue expression (nor
  // a module for it); EOPNOTSUPP: not in this family.
  int err = commit_rules(socket_, NFPROTO_BRIDGE, table_, addresses, queue_num);
  if (err == ENOENT || err == EOPNOTSUPP) {
    // br_netfilter, only where it is there already (built in, or loaded by
    // the host's owner): its setting in the switch's namespace alone.
    const int bridge_err = err;
    const std::string before = read_setting(kBridgeCallIptables);
    if (before.empty()) {
      mnl_socket_close(socket_);
      socket_ = nullptr;
      throw std::runtime_error(no_switch_queue(bridge_err));
    }
    family_ = NFPROTO_IPV4;
    if (before != "1") {
      if (!write_setting(kBridgeCallIptables, "1"))
        throw std::runtime_error(std::string("cannot set ") + kBridgeCallIptables + " to 1");
      bridge_call_iptables_before_ = before;
    }
    err = commit_rules(socket_, NFPROTO_IPV4, table_, addresses, queue_num);
    if (err == 0)
      spdlog::debug("switch queue: no native nft queue in the bridge family ({}); through "
                    "br_netfilter and the xtables NFQUEUE target",
                    std::strerror(bridge_err));
  }
  if (err != 0) {
    mnl_socket_close(socket_);
    socket_ = nullptr;
    if (!bridge_call_iptables_before_.empty())
      write_setting(kBridgeCallIptables, bridge_call_iptables_before_);
    std::string msg = "nftables: cannot build the switch's queue rules (table " +
                      std::string(family_ == NFPROTO_BRIDGE ? "bridge" : "ip") + " '" + table_ +
                      "'): " + std::strerror(err);
    if (err == EEXIST || err == EPERM)
      msg += " (the table exists: another run's switch queue; `fabriclab cleanup`)";
    else if (err == ENOENT || err == EOPNOTSUPP)
      msg += " (this kernel lacks nft_compat or the NFQUEUE target: CONFIG_NFT_COMPAT, "
             "CONFIG_NETFILTER_XT_TARGET_NFQUEUE)";
    throw std::runtime_error(msg);
  }
}

bool switch_queue_usable(std::string* why) {
  bool usable = false;
  std::string reason;
  // A thread of its own in a fresh namespace: the probe's bridge-nf setting
  // is that namespace's, and the namespace vanishes with the thread.
  std::thread probe([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      reason = std::string("cannot create a network namespace to probe: ") + std::strerror(errno);
      return;
    }
    mnl_socket* s = nullptr;
    try {
      s = nft::open_nft_socket();
    } catch (const std::exception& e) {
      reason = e.what();
      return;
    }
    // The real rules in a transaction that ends in a deliberate error
    // (deleting a table that does not exist): validated, nothing kept.
    const in_addr port{htonl(0x0a000001)};
    const std::string table = "fabriclab_probe_" + std::to_string(::getpid());
    nft::Transaction tx(1);
    nft::add_table(tx, table, NFPROTO_BRIDGE, true);
    nft::add_base_chain(tx, table, NFPROTO_BRIDGE, "ports", NF_BR_FORWARD, kPortsPriority);
    nft::add_base_chain(tx, table, NFPROTO_BRIDGE, "ce", NF_BR_POST_ROUTING, 0);
    add_port_rule(tx, NFPROTO_BRIDGE, table, port, 16000);
    add_ce_rule(tx, NFPROTO_BRIDGE, table);
    nft::add_table(tx, table + "_absent", NFPROTO_BRIDGE, false);
    const uint32_t deliberate = tx.last_seq();
    const nft::Transaction::Outcome outcome = tx.commit(s);
    mnl_socket_close(s);
    if (outcome.error == ENOENT && outcome.failed_seq == deliberate) {
      usable = true;
      reason = "nftables' bridge family queues bridged packets (nft_queue): nothing to load";
    } else if (!read_setting(kBridgeCallIptables).empty()) {
      usable = true;
      reason = "no native queue in the bridge family (" + std::string(std::strerror(outcome.error)) +
               "); br_netfilter is there (built in or loaded), the switch queues through it";
    } else {
      reason = no_switch_queue(outcome.error);
    }
  });
  probe.join();
  if (why) *why = reason;
  return usable;
}

NftSwitchRules::~NftSwitchRules() {
  try {
    ScopedNetns in_switch(netns_fd_);
    nft::Transaction tx(1);
    nft::add_table(tx, table_, family_, false);
    if (int err = tx.commit(socket_).error; err != 0 && err != ENOENT)
      spdlog::warn("nftables: deleting table '{}': {}", table_, std::strerror(err));
    mnl_socket_close(socket_);  // deletes the owned table anyway
    if (!bridge_call_iptables_before_.empty())
      write_setting(kBridgeCallIptables, bridge_call_iptables_before_);
  } catch (const std::exception& e) {
    spdlog::warn("switch queue rules: {}", e.what());
  }
}

}  // namespace fabriclab::netem::userspace
