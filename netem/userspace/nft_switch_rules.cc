#include "netem/userspace/nft_switch_rules.h"

#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "common/input_error.h"
#include "common/scoped_netns.h"
#include "netem/userspace/nft_batch.h"

namespace fabriclab::netem::userspace {
namespace {

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

void add_rule(nft::Transaction& tx, const std::string& table, const char* chain, const std::vector<nftnl_expr*>& exprs) {
  std::unique_ptr<nftnl_rule, nft::RuleFree> r(nftnl_rule_alloc());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_TABLE, table.c_str());
  nftnl_rule_set_str(r.get(), NFTNL_RULE_CHAIN, chain);
  nftnl_rule_set_u32(r.get(), NFTNL_RULE_FAMILY, NFPROTO_IPV4);
  for (nftnl_expr* e : exprs) nftnl_rule_add_expr(r.get(), e);
  nlmsghdr* nlh = tx.add(NFT_MSG_NEWRULE, NFPROTO_IPV4, NLM_F_CREATE | NLM_F_APPEND);
  nftnl_rule_nlmsg_build_payload(nlh, r.get());
  tx.next();
}

// ip daddr ADDRESS queue num N bypass
void add_port_rule(nft::Transaction& tx, const std::string& table, const in_addr& address,
                   uint16_t queue_num) {
  add_rule(tx, table, "ports",
           {nft::network_load(16, 4, NFT_REG_1), nft::cmp_eq(NFT_REG_1, &address, 4),
            nft::nfqueue_target(queue_num)});
}

// meta mark & kCeMark == kCeMark ip ecn set ce: the ECN bits are the low two
// of byte 1; nft loads bytes 0-1 and rewrites them, as `nft` itself does.
void add_ce_rule(nft::Transaction& tx, const std::string& table) {
  const uint32_t mark = kCeMark;
  const uint32_t none = 0;
  const uint8_t keep[2] = {0xff, 0xfc};
  const uint8_t set_ce[2] = {0x00, 0x03};
  add_rule(tx, table, "ce",
           {nft::meta_load(NFT_META_MARK, NFT_REG_1), nft::bitwise(NFT_REG_1, &mark, &none, 4),
            nft::cmp_eq(NFT_REG_1, &mark, 4), nft::network_load(0, 2, NFT_REG_1),
            nft::bitwise(NFT_REG_1, keep, set_ce, 2),
            nft::network_write_fixing_ipv4_checksum(0, 2, NFT_REG_1)});
}

}  // namespace

std::string switch_table_name(uint16_t queue_num) {
  return "fabriclab_switch_" + std::to_string(queue_num);
}

NftSwitchRules::NftSwitchRules(int netns_fd, const std::vector<std::string>& port_addresses,
                               uint16_t queue_num)
    : netns_fd_(netns_fd), table_(switch_table_name(queue_num)) {
  std::vector<in_addr> addresses;
  for (const std::string& text : port_addresses) {
    in_addr a{};
    if (inet_pton(AF_INET, text.c_str(), &a) != 1)
      throw InputError("switch port '" + text + "': expected an IPv4 address");
    addresses.push_back(a);
  }
  if (addresses.empty()) throw InputError("a switch needs at least one port");

  ScopedNetns in_switch(netns_fd);
  const std::string before = read_setting(kBridgeCallIptables);
  if (before.empty())
    throw std::runtime_error(
        "the switch's namespace has no " + std::string(kBridgeCallIptables) +
        ": this kernel lacks br_netfilter (CONFIG_BRIDGE_NETFILTER), through which bridged "
        "packets reach the queue");
  if (before != "1") {
    if (!write_setting(kBridgeCallIptables, "1"))
      throw std::runtime_error(std::string("cannot set ") + kBridgeCallIptables + " to 1");
    bridge_call_iptables_before_ = before;
  }
  socket_ = nft::open_nft_socket();
  nft::Transaction tx(1);
  nft::add_table(tx, table_, NFPROTO_IPV4, true);
  nft::add_base_chain(tx, table_, NFPROTO_IPV4, "ports", NF_INET_FORWARD, 0);
  nft::add_base_chain(tx, table_, NFPROTO_IPV4, "ce", NF_INET_POST_ROUTING, 0);
  for (const in_addr& a : addresses) add_port_rule(tx, table_, a, queue_num);
  add_ce_rule(tx, table_);
  if (int err = tx.commit(socket_).error; err != 0) {
    mnl_socket_close(socket_);
    socket_ = nullptr;
    if (!bridge_call_iptables_before_.empty())
      write_setting(kBridgeCallIptables, bridge_call_iptables_before_);
    std::string msg = "nftables: cannot build the switch's queue rules: " + std::string(std::strerror(err));
    if (err == EEXIST || err == EPERM)
      msg += " (table '" + table_ + "' exists: another run's switch queue; `fabriclab cleanup`)";
    throw std::runtime_error(msg);
  }
}

NftSwitchRules::~NftSwitchRules() {
  try {
    ScopedNetns in_switch(netns_fd_);
    nft::Transaction tx(1);
    nft::add_table(tx, table_, NFPROTO_IPV4, false);
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
