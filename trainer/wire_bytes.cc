#include "trainer/wire_bytes.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

namespace fabriclab::trainer {
namespace {

// The numeric form of an interface address, "" for other families.
std::string address_text(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address == nullptr) return "";
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof text);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
              sizeof text);
  }
  return text;
}

}  // namespace

std::string lab_interface(const std::string& iface, const std::string& bind_addr) {
  if (iface.empty() && bind_addr.empty()) return "";
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string found;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    const bool match =
        !iface.empty() ? iface == entry->ifa_name : address_text(entry->ifa_addr) == bind_addr;
    if (!match) continue;
    if ((entry->ifa_flags & IFF_LOOPBACK) == 0) found = entry->ifa_name;
    break;
  }
  ::freeifaddrs(list);
  return found;
}

WireBytes::WireBytes(std::string device, std::string proc_net_dev)
    : device_(std::move(device)), counters_(std::move(proc_net_dev), device_) {}

void WireBytes::start() {
  if (!device_.empty()) start_ = counters_.read();
}

nlohmann::json WireBytes::since_start() const {
  if (device_.empty()) return nlohmann::json::object();
  const auto now = counters_.read();
  if (!start_ || !now) {
    return {{"tx_bytes", nullptr}, {"rx_bytes", nullptr}, {"tx_packets", nullptr},
            {"rx_packets", nullptr}};
  }
  const DeviceCounters delta = counters_since(*now, *start_);
  return {{"tx_bytes", delta.tx_bytes},
          {"rx_bytes", delta.rx_bytes},
          {"tx_packets", delta.tx_packets},
          {"rx_packets", delta.rx_packets}};
}

}  // namespace fabriclab::trainer
