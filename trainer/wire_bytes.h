// The bytes a rank sends and receives on its lab interface during one step,
// measured, not computed: the delta of the interface's counters
// (common/proc_net_dev.h, /proc/self/net/dev -- this process's network
// namespace, which in a lab is the rank's own). Everything on that device is
// counted: the gradient payload with its TCP/IP headers, ACKs,
// retransmissions, the rendezvous store's traffic, ARP; and, where ranks
// share a device (host mode, several ranks per host), the other ranks' too.
// doc/metrics.md defines the `step` fields it fills.
//
// Not thread-safe; one per rank.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/proc_net_dev.h"

namespace fabriclab::trainer {

// The interface whose counters measure this rank's traffic, as Gloo binds:
// `iface` when given, else the interface holding the address `bind_addr`
// (FABRICLAB_BIND_ADDR) in this namespace. "" -- not measured -- when that
// interface is a loopback one (ranks on one machine, 1-rank labs), when no
// interface holds the address (a host name, a typo), or when neither is given
// (Gloo then picks by the host name; counting a guess would mislead).
std::string lab_interface(const std::string& iface, const std::string& bind_addr);

// The counters file stays open from read to read (DeviceCounterReader): two
// reads a step.
class WireBytes {
 public:
  // `device` "" = nothing measured. `proc_net_dev` is for tests.
  explicit WireBytes(std::string device, std::string proc_net_dev = "/proc/self/net/dev");

  const std::string& device() const { return device_; }
  // Marks the start of an interval (a step).
  void start();
  // {"tx_bytes", "rx_bytes", "tx_packets", "rx_packets"} since start(); {}
  // when nothing is measured; all null when the counters could not be read.
  nlohmann::json since_start() const;

 private:
  std::string device_;
  mutable DeviceCounterReader counters_;  // reading moves no counter
  std::optional<DeviceCounters> start_;
};

}  // namespace fabriclab::trainer
