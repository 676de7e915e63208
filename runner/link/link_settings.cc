// The table of per-link settings (link_setting.h). Add a setting here.
#include <numeric>
#include <stdexcept>

#include "runner/link/host_links_setting.h"
#include "runner/link/impair_setting.h"
#include "runner/link/link_setting.h"
#include "runner/link/queue_setting.h"
#include "runner/link/sysctl_setting.h"
#include "runner/link/uplinks_setting.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

namespace {

// In this order lab.toml's keys are listed and a fabric's settings applied.
const std::vector<const LinkSettingKind*>& entries() {
  static const std::vector<const LinkSettingKind*> table = {
      &impair_setting(), &sysctl_setting(), &queue_setting(), &host_links_setting(),
      &uplinks_setting()};
  return table;
}

}  // namespace

AppliedToFabric LinkSettingKind::apply_to_fabric(const SettingValue& value, const Topology&,
                                                 const LabNetwork& network,
                                                 netem::Backend* backend) const {
  std::vector<int> every_rank(static_cast<size_t>(network.world_size()));
  std::iota(every_rank.begin(), every_rank.end(), 0);
  AppliedToFabric applied;
  applied.handles = apply(value, every_rank, network, backend);
  applied.line = std::string("lab network settings ([topology] ") + key() + "): " + value.text();
  return applied;
}

std::vector<std::unique_ptr<AppliedLinkSetting>> FabricOnlySettingKind::apply(
    const SettingValue&, const std::vector<int>&, const LabNetwork&, netem::Backend*) const {
  throw std::logic_error(std::string(key()) + " is a [topology] setting: apply_to_fabric");
}

const LinkSettingKind* find_link_setting(const std::string& key) {
  for (const LinkSettingKind* kind : entries()) {
    if (key == kind->key()) return kind;
  }
  return nullptr;
}

const LinkSettingKind* find_link_setting(const std::string& key, SettingScope scope) {
  const LinkSettingKind* kind = find_link_setting(key);
  return kind && kind->allowed_in(scope) ? kind : nullptr;
}

std::vector<std::string> link_setting_keys(SettingScope scope) {
  std::vector<std::string> keys;
  for (const LinkSettingKind* kind : entries())
    if (kind->allowed_in(scope)) keys.push_back(kind->key());
  return keys;
}

}  // namespace fabriclab::runner
