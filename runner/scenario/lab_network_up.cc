#include "runner/scenario/lab_network_up.h"

#include <spdlog/fmt/fmt.h>

#include "common/fault_point.h"
#include "runner/cast/console.h"
#include "runner/scenario/lab_run.h"

namespace fabriclab::runner {

// Members go in reverse order: the fabric settings before the backend that
// applied them, both before the namespaces, the ledger last.
LabNetworkUp::LabNetworkUp(const LabDefinition& lab,
                           const std::vector<const ScenarioDefinition*>& scenarios,
                           netem::BackendKind backend, const std::string& run_id, Console& console)
    : ledger_(run_id),
      topology_(Topology::build(
          {lab.ranks, run_id, "10.77.0.0", lab.fabric.kind, lab.fabric.segmentation_offload},
          ledger_)),
      network_(std::make_unique<NamespaceNetwork>(*topology_)) {
  console.print(topology_->describe() + "\n");
  fault_point("topology_built");
  backend_ = backend_for(scenarios, lab.fabric.link_settings, backend, &backend_why_);

  // The fabric-scope settings, in force for the whole lab, set before
  // anything reads the network back. The log names the backend after the
  // ranks' own settings and before the links it shapes.
  for (const std::string& key : link_setting_keys(SettingScope::kFabric)) {
    const auto value = lab.fabric.link_settings.find(key);
    if (value == lab.fabric.link_settings.end()) continue;
    const LinkSettingKind& setting = *find_link_setting(key);
    fabric_.push_back(setting.apply_to_fabric(value->second, *topology_, *network_,
                                              setting.needs_backend() ? backend_.get() : nullptr));
    if (!fabric_.back().record.is_null()) fabric_links_[key] = fabric_.back().record;
  }
  for (const AppliedToFabric& a : fabric_)
    if (a.record.is_null()) console.print(a.line + "\n");
  if (backend_)
    console.print(fmt::format("impairments: {} backend ({})\n", backend_->name(), backend_why_));
  for (const AppliedToFabric& a : fabric_)
    if (!a.record.is_null()) console.print(a.line + "\n");

  // Read back, not assumed: what the ranks' kernels will actually do.
  settings_ = read_network_settings(*topology_);
  console.print("network (read back from the rank namespaces):\n" +
                describe_network_settings(settings_));
}

LabNetworkUp::~LabNetworkUp() = default;

}  // namespace fabriclab::runner
