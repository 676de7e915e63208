#include "trainer/rendezvous.h"

#include <net/if.h>
#include <signal.h>

#include <algorithm>

#include "common/input_error.h"

namespace fabriclab::trainer {

std::string agent_store_prefix(int attempt) { return "/worker/attempt_" + std::to_string(attempt); }

std::vector<std::string> iface_names(const std::string& iface) {
  std::vector<std::string> names;
  size_t begin = 0;
  while (begin <= iface.size()) {
    const size_t end = std::min(iface.find(',', begin), iface.size());
    if (end > begin) names.push_back(iface.substr(begin, end - begin));
    begin = end + 1;
  }
  return names;
}

void validate(const Rendezvous& rv) {
  if (rv.world_size < 1) {
    throw InputError("WORLD_SIZE must be >= 1, got " + std::to_string(rv.world_size) +
                     " (from --world-size or the launcher's environment)");
  }
  if (rv.rank < 0 || rv.rank >= rv.world_size) {
    throw InputError("RANK must be in [0, WORLD_SIZE=" + std::to_string(rv.world_size) +
                     "), got " + std::to_string(rv.rank) +
                     " (from --rank and --world-size or the launcher's environment)");
  }
  if (rv.world_size > 1 && rv.master_addr.empty()) {
    throw InputError("WORLD_SIZE=" + std::to_string(rv.world_size) +
                     " needs MASTER_ADDR (environment or --master-addr)");
  }
  if (rv.master_port < 1 || rv.master_port > 65535) {
    throw InputError("MASTER_PORT must be in 1..65535, got " + std::to_string(rv.master_port) +
                     " (from --master-port or the environment)");
  }
  if (rv.timeout.count() <= 0) throw InputError("--timeout must be positive");
  // Gloo's own error for a missing interface is an enforce failure deep in
  // the rendezvous; say which name and where it came from instead.
  if (rv.world_size > 1) {
    if (!rv.iface.empty() && iface_names(rv.iface).empty()) {
      throw InputError(rv.iface_from + "=" + rv.iface + ": expected interface names");
    }
    for (const auto& name : iface_names(rv.iface)) {
      if (if_nametoindex(name.c_str()) == 0) {
        throw InputError(rv.iface_from + "=" + rv.iface + ": no interface '" + name +
                         "' in this network namespace (expected one `ip link` lists)");
      }
    }
  }
}

void ignore_broken_pipes() { ::signal(SIGPIPE, SIG_IGN); }

}  // namespace fabriclab::trainer
