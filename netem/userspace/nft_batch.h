// The pieces of an nftables ruleset built through libnftnl, shared by the
// userspace backend's rule sets (nft_queue_rules.h: a device's traffic to an
// NFQUEUE; nft_switch_rules.h: a switch's ports and its CE marking): one
// atomic transaction, tables owned by their netlink socket, and the
// expressions those rules are made of.
//
// Why libnftnl and not libnftables: nft_queue_rules.h says (the xtables
// NFQUEUE target, which the native `queue` statement cannot replace here).
// Errors: Transaction::commit() reports the kernel's errno; the rest throw
// std::runtime_error. Not thread-safe.
#pragma once

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::netem::userspace::nft {

// An nftables transaction: BEGIN, messages, END, sent in one sendmsg; the
// kernel applies all of it or none of it.
class Transaction {
 public:
  explicit Transaction(uint32_t first_seq);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Returns the header to fill; last_seq() is its sequence number.
  nlmsghdr* add(uint16_t type, uint16_t family, uint16_t flags);
  void next();
  uint32_t last_seq() const { return last_seq_; }

  struct Outcome {
    int error = 0;            // first errno the kernel reported, 0 if none
    uint32_t failed_seq = 0;  // the message it was about
  };
  // Sends and collects the replies.
  Outcome commit(mnl_socket* socket);

 private:
  std::vector<char> buf_;
  mnl_nlmsg_batch* batch_ = nullptr;
  uint32_t seq_;
  uint32_t last_seq_ = 0;
};

struct TableFree {
  void operator()(nftnl_table* t) const { nftnl_table_free(t); }
};
struct ChainFree {
  void operator()(nftnl_chain* c) const { nftnl_chain_free(c); }
};
struct RuleFree {
  void operator()(nftnl_rule* r) const { nftnl_rule_free(r); }
};

// NEWTABLE owned by the socket that commits it (NFT_TABLE_F_OWNER: the kernel
// deletes it when that socket closes), or DELTABLE.
void add_table(Transaction& tx, const std::string& name, int family, bool create);
// A base chain: type filter, `hook` (NF_INET_*) at `priority`, policy accept.
void add_base_chain(Transaction& tx, const std::string& table, int family, const std::string& name,
                    uint32_t hook, int32_t priority);
// True when a table `name` of `family` exists (whoever owns it).
bool table_exists(mnl_socket* socket, const std::string& name, int family);
// A NETLINK_NETFILTER socket, bound, in the calling thread's namespace.
mnl_socket* open_nft_socket();

// Expressions (the rule that gets them owns them).
nftnl_expr* meta_load(uint32_t key, uint32_t dreg);  // NFT_META_*
nftnl_expr* cmp_eq(uint32_t sreg, const void* data, uint32_t len);
nftnl_expr* network_load(uint32_t offset, uint32_t len, uint32_t dreg);
// reg = (reg & mask) ^ xor_value, over `len` bytes.
nftnl_expr* bitwise(uint32_t reg, const void* mask, const void* xor_value, uint32_t len);
// Writes `len` bytes of `sreg` at `offset` of the network header and fixes
// the IPv4 header checksum (its 16 bits at offset 10).
nftnl_expr* network_write_fixing_ipv4_checksum(uint32_t offset, uint32_t len, uint32_t sreg);
// The xtables NFQUEUE target, revision 3, as iptables-nft sends it, with
// `bypass` (accept while no listener is bound).
nftnl_expr* nfqueue_target(uint16_t queue_num);
// The native `queue num N bypass` (nft_queue, CONFIG_NFT_QUEUE): the kernel
// loads it by itself (module alias nft-expr-queue) where it is a module.
nftnl_expr* native_queue(uint16_t queue_num);

}  // namespace fabriclab::netem::userspace::nft
