// The network and TCP settings a lab's ranks run with, read back from inside
// their namespaces once the lab network is built (never assumed from what we
// set): the lab device's MTU, root qdisc and route metrics, and the TCP sysctls that decide what a lost or
// delayed packet costs (lab 02). A run writes them into run.json's `network`
// and shows them once at its start (recordings/FORMAT.md), so a run can be
// explained later and a replay shows what it ran with.
//
// A scenario's own `sysctl` link setting changes some of these for that
// scenario only; its scenario's `applied` lines say so. These are the values
// between scenarios.
//
// Errors: a value that cannot be read (a kernel without that sysctl) is
// nullopt / null, never a guess. Thread safety: the read enters the namespace
// on the calling thread only (common/scoped_netns.h); the rest is pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/topology/device_state.h"

namespace fabriclab::runner {

class Topology;

struct NetworkSettings {
  std::string netns;  // the namespace read ("fl-3fa2c1-r0"); "" in host mode
  std::string host;   // host mode: the host's lab address; "" otherwise
  std::vector<int> ranks;
  std::string device;  // the lab device; "" when there is none (1 rank: lo only)
  std::optional<int> mtu_bytes;
  DeviceState device_state;  // its root qdisc and routes (device_state.h)
  // By full name ("net.ipv4.tcp_ecn"), in lab_sysctl_names() order; the value
  // as `sysctl -n` prints it, whitespace made single spaces ("4096 131072 6291456").
  std::vector<std::pair<std::string, std::optional<std::string>>> sysctls;
};

// The sysctls recorded: net.ipv4.tcp_slow_start_after_idle,
// tcp_congestion_control, tcp_ecn, tcp_sack, tcp_recovery, tcp_early_retrans,
// tcp_rmem, tcp_wmem, tcp_min_rtt_wlen (all per network namespace).
const std::vector<std::string>& lab_sysctl_names();

// Reads the settings of the namespace `netns_fd` (-1: the runner's own, host
// mode; read only, nothing is changed) for its lab `device`.
NetworkSettings read_network_settings(int netns_fd, const std::string& device);

// Every rank namespace of `topology`, in rank order.
std::vector<NetworkSettings> read_network_settings(const Topology& topology);

// run.json's network.namespaces: [{"ranks": [0], "netns": ..., "device": ...,
// "mtu": 1500, "qdisc": "noqueue", "routes": [{"to": "10.77.0.0/24",
// "metrics": {}}], "sysctls": {"net.ipv4.tcp_ecn": "2", ...}}, ...].
nlohmann::json network_settings_json(const std::vector<NetworkSettings>& settings);

// For the run's output: namespaces with the same settings share one block.
std::string describe_network_settings(const std::vector<NetworkSettings>& settings);

}  // namespace fabriclab::runner
