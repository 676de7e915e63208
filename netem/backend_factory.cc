// make_backend() and parse_backend_kind() (declared in impairment.h).
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "common/input_error.h"
#include "netem/backend_probe.h"
#include "netem/impairment.h"
#include "netem/netlink/netlink_backend.h"
#include "netem/netlink/tbf_qdisc.h"
#include "netem/userspace/userspace_backend.h"

namespace fabriclab::netem {

BackendKind parse_backend_kind(const std::string& word) {
  if (word == "netem") return BackendKind::kNetem;
  if (word == "userspace") return BackendKind::kUserspace;
  if (word == "auto") return BackendKind::kAuto;
  throw InputError("unknown backend '" + word + "'; expected netem, userspace or auto");
}

bool shapes_without_sch_netem(const Spec& spec) { return netlink::is_rate_only(spec); }

void Applied::change(const Spec& /*spec*/) {
  throw std::runtime_error("this impairment backend cannot change an impairment in place");
}

std::unique_ptr<Backend> make_backend(BackendKind kind, std::string* why) {
  return make_backend(kind, BackendOptions{}, why);
}

std::unique_ptr<Backend> make_backend(BackendKind kind, const BackendOptions& options,
                                      std::string* why) {
  auto say = [&](const std::string& s) {
    if (why) *why = s;
  };
  switch (kind) {
    case BackendKind::kNetem:
      say("netem backend (asked for): the kernel's sch_netem through netlink");
      return std::make_unique<netlink::NetlinkBackend>();
    case BackendKind::kUserspace:
      say("userspace backend (asked for): NFQUEUE, delays and drops decided in this process");
      return make_userspace_backend(options);
    case BackendKind::kAuto:
      break;
  }
  BackendProbe netem = probe_backend(BackendKind::kNetem);
  if (netem.availability == Availability::kNo) {
    say("userspace backend (auto): this kernel has no sch_netem -- " + netem.why);
    return make_userspace_backend(options);
  }
  say(std::string("netem backend (auto): ") +
      (netem.availability == Availability::kYes
           ? "this kernel has sch_netem -- "
           : "could not tell whether this kernel has sch_netem, trying it -- ") +
      netem.why);
  return std::make_unique<netlink::NetlinkBackend>();
}

}  // namespace fabriclab::netem
