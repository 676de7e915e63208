// What the kernel says a lab device's traffic goes through, besides the
// device's MTU: its root qdisc and the metrics of the routes out of it
// (initcwnd, initrwnd, rtt...). Read back over rtnetlink, in the device's
// namespace, for run.json's `network` (network_settings.h): a lab run should
// say what queue and what route its TCP ran with, not assume the defaults.
//
// Errors: throws KernelError/std::runtime_error if the dumps fail.
// Thread safety: uses its own rtnetlink socket; call from any one thread.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fabriclab::runner {

struct RouteState {
  std::string destination;  // "10.77.0.0/24"
  // Route metrics the route carries (`ip route` prints them: "initcwnd 10");
  // empty when the route uses the kernel's defaults.
  std::map<std::string, unsigned> metrics;
};

struct DeviceState {
  std::string root_qdisc;  // "noqueue", "htb", "netem"...; "" when none is reported
  std::vector<RouteState> routes;  // main table routes out of the device
};

// In the namespace `netns_fd` (< 0: the caller's), for `device`.
DeviceState read_device_state(int netns_fd, const std::string& label, const std::string& device);

}  // namespace fabriclab::runner
