#include "runner/link/queue_setting.h"

#include <spdlog/fmt/fmt.h>

#include <functional>
#include <stdexcept>

#include "common/input_error.h"
#include "netem/backend_probe.h"
#include "netem/queue/port_spec.h"
#include "netem/switch.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {
namespace {

class AppliedQueue : public AppliedLinkSetting {
 public:
  AppliedQueue(std::unique_ptr<netem::Switch> worker, std::string description,
               std::vector<int> port_ranks, std::vector<std::string> policies)
      : worker_(std::move(worker)),
        description_(std::move(description)),
        port_ranks_(std::move(port_ranks)),
        policies_(std::move(policies)) {}
  std::string describe() const override { return description_; }
  uint64_t drops() const override {
    uint64_t dropped = 0;
    for (const netem::PortCounters& port : worker_->counters().ports) dropped += port.dropped;
    return dropped;
  }

  // Per port, by the rank it leads to; the deepest since the previous sample
  // as window_max_bytes, and the time the port held each rank's link paused.
  nlohmann::json sample() override {
    const netem::SwitchCounters counters = worker_->counters();
    const std::vector<uint64_t> window = worker_->take_window_max();
    nlohmann::json ports = nlohmann::json::object();
    for (size_t i = 0; i < counters.ports.size() && i < port_ranks_.size(); ++i) {
      const netem::PortCounters& c = counters.ports[i];
      ports["r" + std::to_string(port_ranks_[i])] = {
          {"policy", policies_[i]},
          {"packets", c.packets},
          {"bytes", c.bytes},
          {"dropped", c.dropped},
          {"unmarkable", c.unmarkable},
          {"marked", c.marked},
          {"pauses", c.pauses},
          {"paused_ms", static_cast<double>(c.paused_ns) / 1e6},
          {"depth_bytes", c.depth_bytes},
          {"depth_max_bytes", c.depth_max_bytes},
          {"depth_p50_bytes", c.depth_p50_bytes},
          {"depth_p99_bytes", c.depth_p99_bytes},
          {"window_max_bytes", i < window.size() ? window[i] : 0}};
    }
    return ports;
  }

 private:
  std::unique_ptr<netem::Switch> worker_;
  std::string description_;
  std::vector<int> port_ranks_;        // port i leads to rank port_ranks_[i]
  std::vector<std::string> policies_;  // "taildrop", "ecn", "lossless"
};

class QueueSetting : public LinkSettingKind {
 public:
  const char* key() const override { return "queue"; }
  bool allowed_in(SettingScope scope) const override { return scope == SettingScope::kScenario; }
  // The switch the ranks share exists only in namespace mode.
  HostModePolicy in_host_mode(SettingScope, const SettingValue& value) const override {
    return {HostModeAction::kRefuse,
            "a queue at the switch port the ranks share (queue = \"" + value.text() + "\")"};
  }

  SettingValue parse(const std::string& text) const override {
    try {
      return SettingValue(text, std::make_shared<const netem::PortSpec>(netem::parse_port_spec(text)));
    } catch (const InputError& e) {
      throw std::invalid_argument(std::string("not a valid queue: ") + e.what());
    }
  }

  bool needs_backend() const override { return false; }

  // The switch's ports queue bridged packets in our process: through
  // nftables' bridge family, or br_netfilter where the kernel lacks that
  // (netem/backend_probe.h says which, or what to run).
  std::string host_refusal(const SettingValue&) const override {
    std::string why;
    if (netem::probe_switch_queue(&why) == netem::Availability::kNo)
      return "its switch queue cannot run here: " + why;
    return "";
  }

  std::vector<std::unique_ptr<AppliedLinkSetting>> apply(const SettingValue& value,
                                                         const std::vector<int>& link_ranks,
                                                         const LabNetwork& network,
                                                         netem::Backend*) const override {
    const std::optional<SwitchPlace> place = network.switch_place();
    if (!place)
      throw std::runtime_error(
          "queue: this lab network has no switch of this runner's to queue at (a queue models "
          "a switch port: [topology] kind = \"switch\", in namespaces)");
    const netem::PortSpec& spec = value.parsed<netem::PortSpec>();
    std::vector<netem::SwitchPortSetting> ports;
    std::string toward;
    std::vector<std::string> policies;
    for (int rank : link_ranks) {
      ports.push_back({place->rank_addresses.at(static_cast<size_t>(rank)), spec});
      policies.push_back(netem::policy_name(spec.policy));
      toward += (toward.empty() ? "r" : ", r") + std::to_string(rank);
    }
    auto worker = netem::make_userspace_switch(place->netns_fd, ports, place->rank_addresses,
                                               std::hash<std::string>()(value.text()));
    const std::string description = fmt::format("{} in {}, port toward {}: {}", worker->describe(),
                                                place->netns, toward, netem::print_port_spec(spec));
    std::vector<std::unique_ptr<AppliedLinkSetting>> applied;
    applied.push_back(std::make_unique<AppliedQueue>(std::move(worker), description, link_ranks,
                                                   std::move(policies)));
    return applied;
  }
};

}  // namespace

const LinkSettingKind& queue_setting() {
  static const QueueSetting instance;
  return instance;
}

}  // namespace fabriclab::runner
