#include "runner/topology/network_settings.h"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "common/scoped_netns.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {
namespace {

// /proc/sys/net shows the namespace of the calling thread (net sysctls are
// looked up through current->nsproxy), so this runs inside ScopedNetns.
std::optional<std::string> read_sysctl(const std::string& name) {
  std::string path = "/proc/sys/" + name;
  for (char& c : path) c = c == '.' ? '/' : c;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string value, word;
  for (std::istringstream words(std::string(std::istreambuf_iterator<char>(in), {}));
       words >> word;)
    value += (value.empty() ? "" : " ") + word;
  return value;
}

// A socket belongs to the namespace it was created in, so SIOCGIFMTU sees
// the namespace's devices (/sys/class/net would show the runner's).
std::optional<int> read_mtu(const std::string& device) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  ifreq request{};
  std::strncpy(request.ifr_name, device.c_str(), IFNAMSIZ - 1);
  const bool ok = ::ioctl(fd, SIOCGIFMTU, &request) == 0;
  ::close(fd);
  return ok ? std::optional<int>(request.ifr_mtu) : std::nullopt;
}

// "qdisc noqueue, route 10.77.0.0/24 (no metrics: kernel defaults)".
std::string describe_device_state(const DeviceState& state) {
  std::string text = "qdisc " + (state.root_qdisc.empty() ? "none" : state.root_qdisc);
  for (const RouteState& route : state.routes) {
    std::string metrics;
    for (const auto& [name, value] : route.metrics)
      metrics += (metrics.empty() ? "" : " ") + name + " " + std::to_string(value);
    text += ", route " + route.destination + " (" +
            (metrics.empty() ? "no metrics: kernel defaults" : metrics) + ")";
  }
  return text;
}

bool same_settings(const NetworkSettings& a, const NetworkSettings& b) {
  return a.device == b.device && a.mtu_bytes == b.mtu_bytes && a.sysctls == b.sysctls &&
         describe_device_state(a.device_state) == describe_device_state(b.device_state);
}

std::string short_name(const std::string& sysctl) { return sysctl.substr(sysctl.rfind('.') + 1); }

}  // namespace

const std::vector<std::string>& lab_sysctl_names() {
  static const std::vector<std::string> kNames = {"net.ipv4.tcp_slow_start_after_idle",
                                                  "net.ipv4.tcp_congestion_control",
                                                  "net.ipv4.tcp_ecn",
                                                  "net.ipv4.tcp_sack",
                                                  "net.ipv4.tcp_recovery",
                                                  "net.ipv4.tcp_early_retrans",
                                                  "net.ipv4.tcp_rmem",
                                                  "net.ipv4.tcp_wmem",
                                                  "net.ipv4.tcp_min_rtt_wlen"};
  return kNames;
}

NetworkSettings read_network_settings(int netns_fd, const std::string& device) {
  NetworkSettings settings;
  settings.device = device;
  ScopedNetns inside(netns_fd);
  if (!device.empty()) settings.mtu_bytes = read_mtu(device);
  for (const std::string& name : lab_sysctl_names())
    settings.sysctls.emplace_back(name, read_sysctl(name));
  if (!device.empty()) settings.device_state = read_device_state(netns_fd, device, device);
  return settings;
}

std::vector<NetworkSettings> read_network_settings(const Topology& topology) {
  std::vector<NetworkSettings> all;
  for (const RankNetwork& rank : topology.ranks()) {
    NetworkSettings settings = read_network_settings(rank.netns_fd, rank.device);
    settings.netns = rank.netns;
    settings.ranks = {rank.rank};
    all.push_back(std::move(settings));
  }
  return all;
}

nlohmann::json network_settings_json(const std::vector<NetworkSettings>& settings) {
  nlohmann::json list = nlohmann::json::array();
  for (const NetworkSettings& s : settings) {
    nlohmann::json sysctls = nlohmann::json::object();
    for (const auto& [name, value] : s.sysctls)
      sysctls[name] = value ? nlohmann::json(*value) : nlohmann::json();
    nlohmann::json entry = {{"ranks", s.ranks}};
    if (!s.netns.empty()) entry["netns"] = s.netns;
    if (!s.host.empty()) entry["host"] = s.host;
    entry["device"] = s.device;
    entry["mtu"] = s.mtu_bytes ? nlohmann::json(*s.mtu_bytes) : nlohmann::json();
    if (!s.device.empty()) {
      entry["qdisc"] = s.device_state.root_qdisc;
      nlohmann::json routes = nlohmann::json::array();
      for (const RouteState& route : s.device_state.routes)
        routes.push_back({{"to", route.destination}, {"metrics", route.metrics}});
      entry["routes"] = std::move(routes);
    }
    entry["sysctls"] = std::move(sysctls);
    list.push_back(std::move(entry));
  }
  return list;
}

std::string describe_network_settings(const std::vector<NetworkSettings>& settings) {
  std::ostringstream out;
  std::vector<bool> shown(settings.size(), false);
  for (size_t i = 0; i < settings.size(); ++i) {
    if (shown[i]) continue;
    std::string names;
    for (size_t j = i; j < settings.size(); ++j) {
      if (shown[j] || !same_settings(settings[i], settings[j])) continue;
      shown[j] = true;
      names += (names.empty() ? "" : ", ") +
               (settings[j].netns.empty() ? "host " + settings[j].host : settings[j].netns);
    }
    const NetworkSettings& s = settings[i];
    out << "  " << names << ": ";
    if (s.device.empty()) {
      out << "no lab device (lo only)";
    } else {
      out << s.device << " mtu " << (s.mtu_bytes ? std::to_string(*s.mtu_bytes) : "?") << ", "
          << describe_device_state(s.device_state);
    }
    // Three sysctls a line keep the block within 100 columns.
    for (size_t k = 0; k < s.sysctls.size(); ++k) {
      const std::string value = s.sysctls[k].second ? *s.sysctls[k].second : "?";
      out << (k % 3 == 0 ? "\n    " : "  ") << short_name(s.sysctls[k].first) << "="
          << (value.find(' ') == std::string::npos ? value : "\"" + value + "\"");
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace fabriclab::runner
