#include "netem/userspace/nft_batch.h"

#include <libnftnl/common.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace fabriclab::netem::userspace::nft {
namespace {

constexpr size_t kBatchBytes = 64 * 1024;

}  // namespace

Transaction::Transaction(uint32_t first_seq) : buf_(kBatchBytes), seq_(first_seq) {
  batch_ = mnl_nlmsg_batch_start(buf_.data(), buf_.size());
  nftnl_batch_begin(static_cast<char*>(mnl_nlmsg_batch_current(batch_)), seq_++);
  mnl_nlmsg_batch_next(batch_);
}

Transaction::~Transaction() { mnl_nlmsg_batch_stop(batch_); }

nlmsghdr* Transaction::add(uint16_t type, uint16_t family, uint16_t flags) {
  last_seq_ = seq_;
  return nftnl_nlmsg_build_hdr(static_cast<char*>(mnl_nlmsg_batch_current(batch_)), type, family,
                               flags | NLM_F_ACK, seq_++);
}

void Transaction::next() { mnl_nlmsg_batch_next(batch_); }

Transaction::Outcome Transaction::commit(mnl_socket* socket) {
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

void add_base_chain(Transaction& tx, const std::string& table, int family, const std::string& name,
                    uint32_t hook, int32_t priority) {
  std::unique_ptr<nftnl_chain, ChainFree> c(nftnl_chain_alloc());
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TABLE, table.c_str());
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_NAME, name.c_str());
  nftnl_chain_set_str(c.get(), NFTNL_CHAIN_TYPE, "filter");
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_HOOKNUM, hook);
  nftnl_chain_set_s32(c.get(), NFTNL_CHAIN_PRIO, priority);
  nftnl_chain_set_u32(c.get(), NFTNL_CHAIN_POLICY, NF_ACCEPT);
  nlmsghdr* nlh = tx.add(NFT_MSG_NEWCHAIN, static_cast<uint16_t>(family), NLM_F_CREATE);
  nftnl_chain_nlmsg_build_payload(nlh, c.get());
  tx.next();
}

nftnl_expr* meta_load(uint32_t key, uint32_t dreg) {
  nftnl_expr* e = nftnl_expr_alloc("meta");
  nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
  nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
  return e;
}

nftnl_expr* cmp_eq(uint32_t sreg, const void* data, uint32_t len) {
  nftnl_expr* e = nftnl_expr_alloc("cmp");
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, sreg);
  nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
  nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
  return e;
}

nftnl_expr* network_load(uint32_t offset, uint32_t len, uint32_t dreg) {
  nftnl_expr* e = nftnl_expr_alloc("payload");
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
  return e;
}

nftnl_expr* bitwise(uint32_t reg, const void* mask, const void* xor_value, uint32_t len) {
  nftnl_expr* e = nftnl_expr_alloc("bitwise");
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, reg);
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, reg);
  nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
  nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
  nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, xor_value, len);
  return e;
}

nftnl_expr* network_write_fixing_ipv4_checksum(uint32_t offset, uint32_t len, uint32_t sreg) {
  nftnl_expr* e = nftnl_expr_alloc("payload");
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_SREG, sreg);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_CSUM_TYPE, NFT_PAYLOAD_CSUM_INET);
  nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_CSUM_OFFSET, 10);
  return e;
}

nftnl_expr* nfqueue_target(uint16_t queue_num) {
  // Its info is XT_ALIGN(sizeof(xt_NFQ_info_v3)) = 8 bytes, owned by the expression.
  auto* info = static_cast<xt_NFQ_info_v3*>(std::calloc(1, 8));
  info->queuenum = queue_num;
  info->queues_total = 1;
  info->flags = NFQ_FLAG_BYPASS;
  nftnl_expr* e = nftnl_expr_alloc("target");
  nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, "NFQUEUE");
  nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 3);
  nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, info, 8);
  return e;
}

nftnl_expr* native_queue(uint16_t queue_num) {
  nftnl_expr* e = nftnl_expr_alloc("queue");
  nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_NUM, queue_num);
  nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_TOTAL, 1);
  nftnl_expr_set_u16(e, NFTNL_EXPR_QUEUE_FLAGS, NFT_QUEUE_FLAG_BYPASS);
  return e;
}

}  // namespace fabriclab::netem::userspace::nft
