#include "netem/userspace/nft_queue_rules.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
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

namespace fabriclab::netem::userspace {

namespace {

// Egress: postrouting after filter (0) and srcnat (100), as close to the
// device's qdisc as netfilter gets. Ingress: prerouting before conntrack
// (-200) and everything else, as if the packet were still on the wire.
constexpr int32_t kEgressPriority = 1000;
constexpr int32_t kIngressPriority = -300;

const char* chain_name(Direction d) { return d == Direction::kEgress ? "egress" : "ingress"; }
constexpr size_t kBatchBytes = 64 * 1024;

// An nftables transaction: BEGIN, messages, END, sent in one sendmsg; the
// kernel applies all of it or none of it.
class Transaction {
 public:
  explicit Transaction(uint32_t first_seq) : buf_(kBatchBytes), seq_(first_seq) {
    batch_ = mnl_nlmsg_batch_start(buf_.data(), buf_.size());
    nftnl_batch_begin(static_cast<char*>(mnl_nlmsg_batch_current(batch_)), seq_++);
    mnl_nlmsg_batch_next(batch_);
  }
  ~Transaction() { mnl_nlmsg_batch_stop(batch_); }

  // Returns the header to fill; last_seq() is its sequence number.
  nlmsghdr* add(uint16_t type, uint16_t family, uint16_t flags) {
    last_seq_ = seq_;
    nlmsghdr* nlh = nftnl_nlmsg_build_hdr(static_cast<char*>(mnl_nlmsg_batch_current(batch_)), type,
                                          family, flags | NLM_F_ACK, seq_++);
    return nlh;
  }
  void next() { mnl_nlmsg_batch_next(batch_); }
  uint32_t last_seq() const { return last_seq_; }

  struct Outcome {
    int error = 0;            // first errno the kernel reported, 0 if none
    uint32_t failed_seq = 0;  // the message it was about
  };

  // Sends and collects the replies.
  Outcome commit(mnl_socket* socket) {
    Outcome outcome;
    nftnl_batch_end(static_cast<char*>(mnl_nlmsg_batch_current(batch_)), seq_++);
    mnl_nlmsg_batch_next(batch_);
    if (mnl_socket_sendto(socket, mnl_nlmsg_batch_head(batch_), mnl_nlmsg_batch_size(batch_)) < 0) {
      outcome.error = errno;
      return outcome;
    }
    // The kernel processes the batch inside sendmsg, so every ack and error
    // is already queued on the socket: read until none is left.
    std::vector<char> reply(MNL_SOCKET_BUFFER_SIZE * 4);
    for (;;) {
      ssize_t n = ::recv(mnl_socket_get_fd(socket), reply.data(), reply.size(), MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        break;  // EAGAIN: nothing left
      }
      int len = static_cast<int>(n);
      for (auto* nlh = reinterpret_cast<const nlmsghdr*>(reply.data()); mnl_nlmsg_ok(nlh, len);
           nlh = mnl_nlmsg_next(nlh, &len)) {
        if (nlh->nlmsg_type != NLMSG_ERROR) continue;
        auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
        if (err->error != 0 && outcome.error == 0) {  // error 0 is an ack
          outcome.error = -err->error;
          outcome.failed_seq = nlh->nlmsg_seq;
        }
      }
    }
    return outcome;
  }

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

void add_table(Transaction& tx, const std::string& name, int family, bool create) {
  std::unique_ptr<nftnl_table, TableFree> t(nftnl_table_alloc());
  nftnl_table_set_str(t.get(), NFTNL_TABLE_NAME, name.c_str());
  if (create) {
    // Owned by our netlink socket: the kernel deletes the table when the
    // socket closes, so even a crashed or killed fabriclab leaves no rule.
    nftnl_table_set_u32(t.get(), NFTNL_TABLE_FLAGS, NFT_TABLE_F_OWNER);
  }
  nlmsghdr* nlh = tx.add(create ? NFT_MSG_NEWTABLE : NFT_MSG_DELTABLE, family,
                         create ? (NLM_F_CREATE | NLM_F_EXCL) : 0);
  nftnl_table_nlmsg_build_payload(nlh, t.get());
  tx.next();
}

void add_chain(Transaction& tx, const std::string& table, int family, Direction direction) {
  const bool egress = direction == Direction::kEgress;
  std::unique_ptr<nftnl_chain, ChainFree> c(nftnl_chain_alloc());
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TABLE, table.c_str());
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_NAME, chain_name(direction));
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TYPE, "filter");
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_HOOKNUM,
                      egress ? NF_INET_POST_ROUTING : NF_INET_PRE_ROUTING);
  nftnl_chain_set_s32(c.get(), NFTNL_CHAIN_PRIO, egress ? kEgressPriority : kIngressPriority);
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_POLICY, NF_ACCEPT);
  nlmsghdr* nlh = tx.add(NFT_MSG_NEWCHAIN, family, NLM_F_CREATE);
  nftnl_chain_nlmsg_build_payload(nlh, c.get());
  tx.next();
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

  nftnl_expr* meta = nftnl_expr_alloc("meta");
  nftnl_expr_set_u32(meta, NFTNL_EXPR_META_KEY, egress ? NFT_META_OIFNAME : NFT_META_IIFNAME);
  nftnl_expr_set_u32(meta, NFTNL_EXPR_META_DREG, NFT_REG_1);
  add_expr(r.get(), meta);
  char ifname[IFNAMSIZ] = {};  // exact match: the whole zero-padded name
  std::strncpy(ifname, device.c_str(), IFNAMSIZ - 1);
  nftnl_expr* cmp = nftnl_expr_alloc("cmp");
  nftnl_expr_set_u32(cmp, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
  nftnl_expr_set_u32(cmp, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
  nftnl_expr_set(cmp, NFTNL_EXPR_CMP_DATA, ifname, IFNAMSIZ);
  add_expr(r.get(), cmp);

  if (peer != nullptr) {
    unsigned char addr[16];
    const bool v4 = family == NFPROTO_IPV4;
    inet_pton(v4 ? AF_INET : AF_INET6, peer->c_str(), addr);
    nftnl_expr* payload = nftnl_expr_alloc("payload");
    nftnl_expr_set_u32(payload, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
    // IPv4 saddr/daddr at 12/16, IPv6 at 8/24.
    const uint32_t offset = v4 ? (egress ? 16 : 12) : (egress ? 24 : 8);
    nftnl_expr_set_u32(payload, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
    nftnl_expr_set_u32(payload, NFTNL_EXPR_PAYLOAD_LEN, v4 ? 4 : 16);
    nftnl_expr_set_u32(payload, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
    add_expr(r.get(), payload);
    nftnl_expr* eq = nftnl_expr_alloc("cmp");
    nftnl_expr_set_u32(eq, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
    nftnl_expr_set_u32(eq, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
    nftnl_expr_set(eq, NFTNL_EXPR_CMP_DATA, addr, v4 ? 4 : 16);
    add_expr(r.get(), eq);
  }

  // The xtables target, revision 3, as iptables-nft sends it; its info is
  // XT_ALIGN(sizeof(xt_NFQ_info_v3)) = 8 bytes, owned by the expression.
  auto* info = static_cast<xt_NFQ_info_v3*>(std::calloc(1, 8));
  info->queuenum = queue_num;
  info->queues_total = 1;
  info->flags = NFQ_FLAG_BYPASS;
  nftnl_expr* target = nftnl_expr_alloc("target");
  nftnl_expr_set_str(target, NFTNL_EXPR_TG_NAME, "NFQUEUE");
  nftnl_expr_set_u32(target, NFTNL_EXPR_TG_REV, 3);
  nftnl_expr_set(target, NFTNL_EXPR_TG_INFO, info, 8);
  add_expr(r.get(), target);

  nlmsghdr* nlh = tx.add(NFT_MSG_NEWRULE, family, NLM_F_CREATE | NLM_F_APPEND);
  nftnl_rule_nlmsg_build_payload(nlh, r.get());
  tx.next();
}

// True when a table `name` of `family` exists (whoever owns it).
bool table_exists(mnl_socket* socket, const std::string& name, int family) {
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE * 4);
  std::unique_ptr<nftnl_table, TableFree> t(nftnl_table_alloc());
  nftnl_table_set_str(t.get(), NFTNL_TABLE_NAME, name.c_str());
  const uint32_t seq = 0x7ab1e;
  nlmsghdr* nlh = nftnl_nlmsg_build_hdr(buf.data(), NFT_MSG_GETTABLE, family, NLM_F_ACK, seq);
  nftnl_table_nlmsg_build_payload(nlh, t.get());
  if (mnl_socket_sendto(socket, nlh, nlh->nlmsg_len) < 0) return false;
  ssize_t n = mnl_socket_recvfrom(socket, buf.data(), buf.size());
  if (n < 0) return false;
  // The table itself (NEWTABLE) comes back if it exists, else ENOENT.
  return mnl_cb_run(buf.data(), n, seq, mnl_socket_get_portid(socket), nullptr, nullptr) >= 0;
}

mnl_socket* open_nft_socket() {
  mnl_socket* s = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
  if (s == nullptr) {
    throw std::runtime_error(std::string("nftables: cannot open netlink socket: ") +
                             std::strerror(errno));
  }
  if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
    int err = errno;
    mnl_socket_close(s);
    throw std::runtime_error(std::string("nftables: cannot bind netlink socket: ") +
                             std::strerror(err));
  }
  return s;
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
