#include "netem/netlink/netlink_backend.h"

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <stdexcept>

#include "common/input_error.h"
#include "common/rtnl_socket.h"
#include "netem/netlink/kernel_error.h"
#include "netem/spec_limit.h"
#include "netem/netlink/netlink_leftovers.h"
#include "netem/netlink/netlink_probe.h"
#include "netem/netlink/peer_filter.h"
#include "netem/netlink/tbf_qdisc.h"
#include "netem/spec_parse.h"

namespace fabriclab::netem::netlink {

namespace {

std::string where(const Target& t) { return t.netns.empty() ? t.device : t.netns + "/" + t.device; }

QdiscCommand command_for(ApplyMode mode) {
  switch (mode) {
    case ApplyMode::kAdd:
      return QdiscCommand::kAdd;
    case ApplyMode::kChange:
      return QdiscCommand::kChange;
    case ApplyMode::kReplace:
      return QdiscCommand::kReplace;
  }
  return QdiscCommand::kAdd;
}

// What this apply() owns and must remove: the qdisc at (parent, handle).
struct Owned {
  uint32_t parent = TC_H_ROOT;
  uint32_t handle = kRootHandle;
};

Owned owned_for(const NetlinkOptions& o, bool peers) {
  Owned w;
  if (!o.parent.empty() && !peers) {
    w.parent = parse_handle(o.parent);
    w.handle = kLeafHandle;
  }
  return w;
}

std::unique_ptr<RtnlSocket> open_socket(const Target& t) {
  if (t.netns.empty()) return std::make_unique<RtnlSocket>(t.netns_fd, "");
  return std::make_unique<RtnlSocket>(t.netns);
}

// Deletes the qdisc at `owned` if it is still there with fabriclab's handle.
// Returns true if it deleted something.
bool remove_owned(RtnlSocket& sock, int ifindex, const Owned& owned) {
  for (const QdiscInfo& q : list_qdiscs(sock, ifindex)) {
    if (q.parent != owned.parent || q.handle != owned.handle) continue;
    QdiscPlace place{ifindex, owned.parent, owned.handle};
    sock.request(build_delete_qdisc(place, sock.next_seq()), "delete qdisc");
    return true;
  }
  return false;
}

class NetlinkApplied : public Applied {
 public:
  NetlinkApplied(std::unique_ptr<RtnlSocket> sock, Target target, int ifindex, Owned owned,
                 uint32_t netem_parent, uint32_t netem_handle, std::string kind,
                 std::string words)
      : sock_(std::move(sock)),
        target_(std::move(target)),
        ifindex_(ifindex),
        owned_(owned),
        netem_parent_(netem_parent),
        netem_handle_(netem_handle),
        kind_(std::move(kind)),
        words_(std::move(words)) {}

  ~NetlinkApplied() override {
    if (released_) return;
    try {
      if (remove_owned(*sock_, ifindex_, owned_))
        spdlog::debug("netem: removed {} from {}", format_handle(owned_.handle), where(target_));
      else
        spdlog::warn("netem: {} on {} was already gone; nothing to remove",
                     format_handle(owned_.handle), where(target_));
    } catch (const std::exception& e) {
      spdlog::error("netem: could not remove the impairment from {}: {}", where(target_), e.what());
    }
  }

  Stats stats() const override {
    Stats s;
    for (const QdiscInfo& q : list_qdiscs(*sock_, ifindex_)) {
      if (q.handle != netem_handle_ || q.kind != kind_) continue;
      // The qdisc counts a packet when it leaves; a dropped one never leaves
      // and a held one has not yet. Stats::packets is what went into the
      // impairment (as the userspace backend counts it): all three. Seen on
      // a real sch_netem (tests/vm/): loss 10% over 4000 pings, 3592 sent +
      // 408 dropped.
      s.packets = q.stats.packets + q.stats.drops + q.stats.qlen;
      s.bytes = q.stats.bytes;
      s.drops = q.stats.drops;
      s.overlimits = q.stats.overlimits;
      s.backlog_packets = q.stats.qlen;
    }
    return s;
  }

  std::string describe() const override {
    std::string peers;
    for (const std::string& p : target_.peers) peers += (peers.empty() ? " to " : ", ") + p;
    return kind_ + " on " + where(target_) + peers + ": " + words_;
  }

  bool release() override {
    released_ = true;
    return true;
  }

  // A change of the impairing qdisc in place: the kernel swaps its options
  // and keeps its queue and counters (every option sent, so none of the old
  // spec's stays: build_netem_change). A tbf (a rate on a kernel without
  // sch_netem) changes only to another rate; the kernel cannot turn one
  // qdisc kind into another in place.
  void change(const Spec& spec) override {
    const bool tbf = kind_ == "tbf";
    if (tbf && !is_rate_only(spec))
      throw std::runtime_error("the impairment on " + where(target_) +
                               " is a tbf (this kernel has no sch_netem): it can only change "
                               "to another rate, not to '" + print_spec(spec) + "'");
    const Spec s = tbf ? spec : with_limit(spec);
    const QdiscPlace place{ifindex_, netem_parent_, netem_handle_};
    const Message message = tbf ? build_tbf_qdisc(QdiscCommand::kChange, place, tbf_for_rate(spec),
                                                  sock_->next_seq())
                                : build_netem_change(place, s, sock_->next_seq());
    try {
      sock_->request(message, "change " + kind_ + " qdisc");
    } catch (const KernelError& e) {
      throw std::runtime_error(
          explain(e, ErrorContext{"change " + kind_ + " qdisc", target_.device, target_.netns, kind_}));
    }
    words_ = tbf ? tbf_words(tbf_for_rate(spec)) : print_spec(s);
    spdlog::info("{}: changed to {} on {}", kind_, words_, where(target_));
  }

 private:
  std::unique_ptr<RtnlSocket> sock_;
  Target target_;
  int ifindex_;
  Owned owned_;
  uint32_t netem_parent_;  // where the impairing qdisc hangs (root, a parent, or fab0:2)
  uint32_t netem_handle_;  // of the impairing qdisc (netem, or tbf for a rate)
  std::string kind_;       // "netem" or "tbf"
  std::string words_;      // its tc words
  bool released_ = false;
};

}  // namespace

NetlinkBackend::NetlinkBackend(NetlinkOptions options) : options_(std::move(options)) {}

bool NetlinkBackend::shapes_with_tbf(const Spec& spec) const {
  if (!is_rate_only(spec) || options_.rate_shaper == RateShaper::kNetem) return false;
  if (options_.rate_shaper == RateShaper::kTbf) return true;
  if (netem_known_absent_ < 0) {
    std::string why;
    netem_known_absent_ = probe_backend(&why) == Availability::kNo;
    if (netem_known_absent_) spdlog::info("rate: no sch_netem here ({}); shaping with tbf", why);
  }
  return netem_known_absent_ == 1;
}

std::vector<PlannedMessage> NetlinkBackend::plan(const Target& target, const Spec& spec,
                                                 int ifindex) const {
  if (target.device.empty()) throw InputError("no device given; expected e.g. veth0");
  if (target.direction == Direction::kIngress)
    throw InputError(
        "the netem backend impairs what leaves a device (a qdisc on its egress); impair the "
        "sending side's device instead, or use --backend userspace for arriving packets");
  // A rate alone without sch_netem: a token bucket filter where netem would sit.
  const bool tbf = shapes_with_tbf(spec);
  const Spec s = tbf ? spec : with_limit(spec);
  const std::string kind = tbf ? "tbf" : "netem";
  const std::string words = tbf ? tbf_words(tbf_for_rate(spec)) : print_spec(s);
  auto impairing_qdisc = [&](QdiscCommand cmd, const QdiscPlace& place, uint32_t seq) {
    return tbf ? build_tbf_qdisc(cmd, place, tbf_for_rate(spec), seq)
               : build_netem_qdisc(cmd, place, s, seq);
  };
  std::vector<PeerAddress> peers;
  for (const std::string& p : target.peers) peers.push_back(parse_peer_address(p));
  const std::string dev = target.device;
  std::vector<PlannedMessage> out;
  uint32_t seq = 1;

  if (peers.empty()) {
    Owned o = owned_for(options_, false);
    QdiscPlace place{ifindex, o.parent, o.handle};
    std::string verb = options_.mode == ApplyMode::kAdd      ? "add"
                       : options_.mode == ApplyMode::kChange ? "change"
                                                             : "replace";
    out.push_back({verb + " " + kind + " qdisc " + format_handle(o.handle) + " at " +
                       (o.parent == TC_H_ROOT ? "root" : "parent " + format_handle(o.parent)) +
                       " of " + dev,
                   words, kind, false, impairing_qdisc(command_for(options_.mode), place, seq++)});
    return out;
  }

  if (!options_.parent.empty())
    throw InputError(
        "--parent and --peer do not go together: the peer filter builds its own "
        "root (htb fab0:); drop one of them");
  QdiscPlace leaf{ifindex, kImpairedClass, kLeafHandle};
  if (options_.mode == ApplyMode::kChange) {
    out.push_back({"change " + kind + " qdisc fab2: under class fab0:2 of " + dev, words, kind,
                   false, impairing_qdisc(QdiscCommand::kChange, leaf, seq++)});
    return out;
  }
  if (options_.mode == ApplyMode::kReplace)
    throw InputError(
        "--replace does not go with --peer: use --change to alter the impairment, "
        "or `fabriclab netem clear " +
        dev + "` and apply again");
  out.push_back({"add htb qdisc fab0: at root of " + dev, "unclassified traffic to class fab0:1",
                 "htb", true, build_htb_root(ifindex, seq++)});
  out.push_back({"add htb class fab0:1", "unimpaired, the default; 100gbit, never the bottleneck",
                 "", false, build_htb_class(ifindex, kDefaultClass, seq++)});
  out.push_back({"add htb class fab0:2", "impaired; 100gbit", "", false,
                 build_htb_class(ifindex, kImpairedClass, seq++)});
  out.push_back({"add " + kind + " qdisc fab2: under class fab0:2", words, kind, false,
                 impairing_qdisc(QdiscCommand::kAdd, leaf, seq++)});
  for (const PeerAddress& p : peers)
    out.push_back({"add u32 filter on " + dev, "destination " + p.text + " -> class fab0:2", "",
                   false, build_u32_dst_filter(ifindex, p, seq++)});
  return out;
}

std::unique_ptr<Applied> NetlinkBackend::apply(const Target& target, const Spec& spec) {
  // Check the words and peers before touching anything.
  plan(target, spec, 0);

  std::unique_ptr<RtnlSocket> sock;
  ErrorContext ctx{"apply netem", target.device, target.netns, ""};
  int ifindex = 0;
  try {
    sock = open_socket(target);
    ifindex = sock->ifindex(target.device);
  } catch (const KernelError& e) {
    throw std::runtime_error(explain(e, ctx));
  }

  bool peers = !target.peers.empty();
  Owned owned = owned_for(options_, peers);
  if (options_.mode == ApplyMode::kAdd && owned.parent == TC_H_ROOT) {
    if (auto root = root_qdisc(*sock, ifindex); root && root->handle != 0) {
      if (root->handle == kRootHandle)
        throw std::runtime_error(
            "fabriclab's impairment is already on " + where(target) + " (root " + root->kind +
            " fab0:); change it with --change, or remove it first: fabriclab netem clear " +
            target.device);
      throw std::runtime_error(where(target) + " already has a root qdisc (" + root->kind + " " +
                               format_handle(root->handle) +
                               ") that fabriclab did not create; it is left alone. "
                               "Remove it yourself (tc qdisc del dev " +
                               target.device +
                               " root) or clear it with "
                               "`fabriclab netem clear " +
                               target.device + " --force`, then apply again.");
    }
  }

  std::vector<PlannedMessage> steps = plan(target, spec, ifindex);
  bool created_root = false;
  for (PlannedMessage& step : steps) {
    auto* nlh = reinterpret_cast<nlmsghdr*>(step.bytes.data());
    nlh->nlmsg_seq = sock->next_seq();
    try {
      sock->request(step.bytes, step.action);
      created_root = created_root || step.creates_root;
    } catch (const KernelError& e) {
      // Undo what this call created, so nothing is half-applied.
      if (created_root) {
        try {
          remove_owned(*sock, ifindex, Owned{});
        } catch (const std::exception& undo) {
          spdlog::error("netem: could not undo the htb root on {}: {}", where(target), undo.what());
        }
      }
      // explain() says "on DEV in network namespace NS" itself.
      ctx.action = step.action;
      for (const std::string& tail : {" of " + target.device, " on " + target.device})
        if (size_t at = ctx.action.find(tail); at != std::string::npos)
          ctx.action.erase(at, tail.size());
      ctx.kind = step.kind;
      throw std::runtime_error(explain(e, ctx));
    }
  }
  uint32_t netem_handle = peers ? kLeafHandle : owned.handle;
  uint32_t netem_parent = peers ? kImpairedClass : owned.parent;
  const bool tbf = shapes_with_tbf(spec);
  const std::string words = tbf ? tbf_words(tbf_for_rate(spec)) : print_spec(with_limit(spec));
  spdlog::info("{}: {} on {}{}", tbf ? "tbf" : "netem", words, where(target),
               peers ? " (peer filter)" : "");
  return std::make_unique<NetlinkApplied>(std::move(sock), target, ifindex, owned, netem_parent,
                                          netem_handle, tbf ? "tbf" : "netem", words);
}

Leftovers NetlinkBackend::remove_leftovers(const Target& target, bool dry_run) {
  return netlink::remove_leftovers(target, dry_run);
}

std::string clear_impairment(const Target& target, bool force) {
  ErrorContext ctx{"clear the impairment", target.device, target.netns, ""};
  try {
    auto sock = open_socket(target);
    int ifindex = sock->ifindex(target.device);
    auto root = root_qdisc(*sock, ifindex);
    if (!root || root->handle == 0)
      return "nothing to clear on " + where(target) + " (root qdisc: " +
             (root ? root->kind + ", the device's default" : std::string("none")) + ")";
    if (root->handle != kRootHandle && !force)
      throw std::runtime_error("the root qdisc on " + where(target) + " is " + root->kind + " " +
                               format_handle(root->handle) +
                               ", not fabriclab's (fab0:); left alone. Pass --force to "
                               "remove it anyway.");
    QdiscPlace place{ifindex, TC_H_ROOT, root->handle};
    sock->request(build_delete_qdisc(place, sock->next_seq()), "delete root qdisc");
    return "removed root " + root->kind + " " + format_handle(root->handle) + " from " +
           where(target) + " (the device is back to its default qdisc)";
  } catch (const KernelError& e) {
    throw std::runtime_error(explain(e, ctx));
  }
}

std::vector<QdiscInfo> show_qdiscs(const Target& target) {
  ErrorContext ctx{"read the qdiscs", target.device, target.netns, ""};
  try {
    auto sock = open_socket(target);
    return list_qdiscs(*sock, sock->ifindex(target.device));
  } catch (const KernelError& e) {
    throw std::runtime_error(explain(e, ctx));
  }
}

int lookup_ifindex(const Target& target) {
  try {
    auto sock = open_socket(target);
    return sock->ifindex(target.device);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace fabriclab::netem::netlink
