#include "netem/userspace/userspace_leftovers.h"

#include <libmnl/libmnl.h>
#include <libnftnl/common.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/scoped_netns.h"
#include "netem/userspace/nft_queue_rules.h"

namespace fabriclab::netem::userspace {
namespace {

struct SocketClose {
  void operator()(mnl_socket* s) const { mnl_socket_close(s); }
};
struct TableFree {
  void operator()(nftnl_table* t) const { nftnl_table_free(t); }
};

// The kernel's answer (0 or an errno) to one nftables request about table
// `name`: NFT_MSG_GETTABLE (does it exist?) or, in a batch of its own as
// nf_tables requires for changes, NFT_MSG_DELTABLE. A socket per request, so
// no late reply to one request is read as the answer to the next.
int table_request(uint16_t type, int family, const std::string& name) {
  std::unique_ptr<mnl_socket, SocketClose> owned(mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC));
  if (!owned || mnl_socket_bind(owned.get(), 0, MNL_SOCKET_AUTOPID) < 0) return errno;
  mnl_socket* socket = owned.get();
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
  std::unique_ptr<nftnl_table, TableFree> table(nftnl_table_alloc());
  nftnl_table_set_str(table.get(), NFTNL_TABLE_NAME, name.c_str());
  const uint32_t seq = 1;
  mnl_nlmsg_batch* batch = mnl_nlmsg_batch_start(buf.data(), buf.size());
  const bool change = type == NFT_MSG_DELTABLE;
  if (change) {
    nftnl_batch_begin(static_cast<char*>(mnl_nlmsg_batch_current(batch)), 0);
    mnl_nlmsg_batch_next(batch);
  }
  nlmsghdr* nlh = nftnl_nlmsg_build_hdr(static_cast<char*>(mnl_nlmsg_batch_current(batch)), type,
                                        static_cast<uint16_t>(family), NLM_F_ACK, seq);
  nftnl_table_nlmsg_build_payload(nlh, table.get());
  mnl_nlmsg_batch_next(batch);
  if (change) {
    nftnl_batch_end(static_cast<char*>(mnl_nlmsg_batch_current(batch)), 2);
    mnl_nlmsg_batch_next(batch);
  }
  int rc = 0;
  if (mnl_socket_sendto(socket, mnl_nlmsg_batch_head(batch), mnl_nlmsg_batch_size(batch)) < 0) {
    rc = errno;
  } else {
    const ssize_t n = mnl_socket_recvfrom(socket, buf.data(), buf.size());
    if (n < 0)
      rc = errno;
    else if (mnl_cb_run(buf.data(), n, seq, mnl_socket_get_portid(socket), nullptr, nullptr) < 0)
      rc = errno;
  }
  mnl_nlmsg_batch_stop(batch);
  return rc;
}

// True when no nftables table can exist: nf_tables is a module of this
// kernel (in its modules.dep) and not loaded (not in /proc/modules). Asking
// would have the kernel load nfnetlink and nf_tables on demand just to say
// "no such table" -- on a host that never used nftables, a cleanup (or a
// guardian, at the moment it should be quick) has no reason to. Built in, or
// no module tree to tell: false, and the kernel is asked.
bool nf_tables_module_not_loaded() {
  utsname u{};
  if (uname(&u) != 0) return false;
  std::ifstream dep(std::string("/lib/modules/") + u.release + "/modules.dep");
  std::string line;
  bool is_module = false;
  while (!is_module && std::getline(dep, line)) {
    // "kernel/net/netfilter/nf_tables.ko[.xz]: kernel/net/netfilter/nfnetlink.ko ..."
    const std::string path = line.substr(0, line.find(':'));
    const std::string name = path.substr(path.rfind('/') + 1);  // npos + 1 == 0
    is_module = name == "nf_tables.ko" || name.rfind("nf_tables.ko.", 0) == 0;
  }
  if (!is_module) return false;
  std::ifstream modules("/proc/modules");
  while (std::getline(modules, line))
    if (line.rfind("nf_tables ", 0) == 0) return false;
  return true;
}

}  // namespace

Leftovers remove_leftovers(const Target& target, bool dry_run) {
  Leftovers result;
  const std::string& device = target.device;
  if (nf_tables_module_not_loaded()) {
    result.actions.push_back("no fabriclab nft table for " + device + " (nf_tables not loaded)");
    return result;
  }
  // Sockets belong to the namespace they are opened in.
  ScopedNetns inside =
      target.netns_fd >= 0 ? ScopedNetns(target.netns_fd) : ScopedNetns(target.netns);
  bool found = false;
  for (Direction direction : {Direction::kEgress, Direction::kIngress}) {
    const std::string name = nft_table_name(device, direction);
    for (int family : {NFPROTO_IPV4, NFPROTO_IPV6}) {
      const std::string what =
          std::string("nft table ") + (family == NFPROTO_IPV4 ? "ip " : "ip6 ") + name;
      const int exists = table_request(NFT_MSG_GETTABLE, family, name);
      if (exists == ENOENT) continue;
      if (exists != 0) {
        result.ok = false;
        result.actions.push_back(what + ": cannot tell whether it exists (" +
                                 std::strerror(exists) + ")");
        continue;
      }
      found = true;
      if (dry_run) {
        result.actions.push_back(what + ": would remove");
        result.removed.push_back(result.actions.back());
        continue;
      }
      const int rc = table_request(NFT_MSG_DELTABLE, family, name);
      if (rc == 0) {
        result.actions.push_back(what + ": removed");
        result.removed.push_back(result.actions.back());
      } else {
        result.ok = false;
        result.actions.push_back(
            what + ": not removed (" + std::strerror(rc) + ")" +
            (rc == EPERM ? "; it belongs to a fabriclab runner that is still running" : ""));
      }
    }
  }
  if (!found) result.actions.push_back("no fabriclab nft table for " + device);
  return result;
}

}  // namespace fabriclab::netem::userspace
