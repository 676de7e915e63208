// The netem backend: the kernel's sch_netem, configured over rtnetlink.
//
// What apply() builds (every handle in fabriclab's reserved major, 0xfab0):
//   no peers:   netem at the root, handle fab0: (or under --parent P with
//               handle fab2:)
//   with peers: htb root fab0: default 1, classes fab0:1 (unimpaired) and
//               fab0:2 (impaired) with netem fab2: as its leaf, and one u32
//               filter per peer address sending it to fab0:2 (peer_filter.h).
// A spec of only `rate` on a kernel without sch_netem gets a tbf in netem's
// place, same handles (tbf_qdisc.h; RateShaper).
// `limit` is derived from rate x delay when the spec gives none (netem/spec_limit.h).
//
// Ownership: the Applied handle deletes what apply() created (the root qdisc
// fab0:, or the leaf fab2: under a parent), after checking it is still
// fabriclab's; it never deletes a qdisc with another handle. release() keeps
// it in place. Nothing is half-applied: if a step fails, the steps before it
// are undone before apply() throws.
//
// Errors: InputError for options that do not fit together; std::runtime_error
// with plain words and the remedy (kernel_error.h) for kernel refusals.
// Thread safety: a backend and its handles are used from one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "netem/impairment.h"
#include "netem/netlink/qdisc_list.h"
#include "netem/netlink/qdisc_message.h"

namespace fabriclab::netem::netlink {

enum class ApplyMode { kAdd, kChange, kReplace };

// What shapes a spec of only `rate` (and `limit`): sch_netem's own rate, or a
// token bucket filter (tbf_qdisc.h). kAuto: tbf when the kernel has no
// sch_netem (netlink_probe.h, asked once per backend), else netem.
enum class RateShaper { kAuto, kNetem, kTbf };

struct NetlinkOptions {
  ApplyMode mode = ApplyMode::kAdd;
  std::string parent;  // "" = root; else a tc class id such as "1:10"
  RateShaper rate_shaper = RateShaper::kAuto;
};

// One message of a plan, with what it does in words.
struct PlannedMessage {
  std::string action;         // "add netem qdisc fab0: at root of veth0"
  std::string detail;         // "delay 100ms limit 166667" (may be "")
  std::string kind;           // qdisc kind it creates ("netem", "htb"), "" otherwise
  bool creates_root = false;  // creates fabriclab's root: undo it if a later step fails
  Message bytes;
  std::string what() const { return detail.empty() ? action : action + ": " + detail; }
};

class NetlinkBackend : public Backend {
 public:
  explicit NetlinkBackend(NetlinkOptions options = {});
  std::string name() const override { return "netem"; }
  std::unique_ptr<Applied> apply(const Target& target, const Spec& spec) override;
  // The root qdisc fab0: and all below it (netlink_leftovers.h).
  Leftovers remove_leftovers(const Target& target, bool dry_run) override;

  // The messages apply() sends, in order, for a device with `ifindex`
  // (--dry-run prints them; nothing is sent). Throws InputError like apply().
  std::vector<PlannedMessage> plan(const Target& target, const Spec& spec, int ifindex) const;

  // True when `spec` goes on a tbf instead of netem (RateShaper).
  bool shapes_with_tbf(const Spec& spec) const;

 private:
  NetlinkOptions options_;
  mutable int netem_known_absent_ = -1;  // -1: not asked yet; the probe's answer, cached
};

// Removes fabriclab's impairment from target.device: the root qdisc if its
// handle is fab0:. With `force`, removes whatever root qdisc is there (the
// kernel then restores the device's default). Returns what was done, in
// words ("nothing to clear" included). Errors as apply().
std::string clear_impairment(const Target& target, bool force);

// The qdiscs of target.device, read back from the kernel.
std::vector<QdiscInfo> show_qdiscs(const Target& target);

// Resolves target.device in its namespace without changing anything (one
// RTM_GETLINK); 0 when it cannot (no device, no namespace, no privilege).
int lookup_ifindex(const Target& target);

}  // namespace fabriclab::netem::netlink
