#include "runner/link/queue_setting.h"

#include <spdlog/fmt/fmt.h>

#include <functional>
#include <stdexcept>

#include "common/input_error.h"
#include "netem/queue/port_spec.h"
#include "netem/switch.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {
namespace {

class AppliedQueue : public AppliedLinkSetting {
 public:
  AppliedQueue(std::unique_ptr<netem::Switch> worker, std::string description)
      : worker_(std::move(worker)), description_(std::move(description)) {}
  std::string describe() const override { return description_; }
  uint64_t drops() const override {
    uint64_t dropped = 0;
    for (const netem::PortCounters& port : worker_->counters().ports) dropped += port.dropped;
    return dropped;
  }

 private:
  std::unique_ptr<netem::Switch> worker_;
  std::string description_;
};

class QueueSetting : public LinkSettingKind {
 public:
  const char* key() const override { return "queue"; }

  void validate(const std::string& value) const override {
    try {
      netem::parse_port_spec(value);
    } catch (const InputError& e) {
      throw std::invalid_argument(std::string("not a valid queue: ") + e.what());
    }
  }

  bool needs_backend() const override { return false; }

  std::vector<std::unique_ptr<AppliedLinkSetting>> apply(const std::string& value,
                                                         const std::vector<int>& link_ranks,
                                                         const LabNetwork& network,
                                                         netem::Backend*) const override {
    const std::optional<SwitchPlace> place = network.switch_place();
    if (!place)
      throw std::runtime_error(
          "queue: this lab network has no switch of this runner's to queue at (a queue models "
          "a switch port: [topology] kind = \"switch\", in namespaces)");
    const netem::PortSpec spec = netem::parse_port_spec(value);
    std::vector<netem::SwitchPortSetting> ports;
    std::string toward;
    for (int rank : link_ranks) {
      ports.push_back({place->rank_addresses.at(static_cast<size_t>(rank)), spec});
      toward += (toward.empty() ? "r" : ", r") + std::to_string(rank);
    }
    auto worker = netem::make_userspace_switch(place->netns_fd, ports, place->rank_addresses,
                                               std::hash<std::string>()(value));
    const std::string description = fmt::format("{} in {}, port toward {}: {}", worker->describe(),
                                                place->netns, toward, netem::print_port_spec(spec));
    std::vector<std::unique_ptr<AppliedLinkSetting>> applied;
    applied.push_back(std::make_unique<AppliedQueue>(std::move(worker), description));
    return applied;
  }
};

}  // namespace

const LinkSettingKind& queue_setting() {
  static const QueueSetting instance;
  return instance;
}

}  // namespace fabriclab::runner
