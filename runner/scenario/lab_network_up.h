// The lab network a run or a check stands on, up: the topology built (and
// recorded in the ledger), the impairment backend the scenarios need chosen,
// the lab's fabric-scope settings ([topology]: sysctls, the fabric's own
// links) applied, and the ranks' network settings read back from their
// namespaces. `fabriclab run` (lab_run.h) runs scenarios on it; `fabriclab
// check` (lab_check.h) applies and reads back each scenario's settings.
//
// Ownership: everything is removed by the destructor, the fabric settings
// while their namespaces still exist, then the namespaces; a constructor
// that throws leaves nothing either.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/impairment.h"
#include "runner/lab/lab_definition.h"
#include "runner/ledger/ledger.h"
#include "runner/link/link_setting.h"
#include "runner/topology/lab_network.h"
#include "runner/topology/network_settings.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {

class Console;

class LabNetworkUp {
 public:
  // Prints the topology, the backend and its reason, the fabric settings
  // and the read-back network settings to `console`.
  LabNetworkUp(const LabDefinition& lab, const std::vector<const ScenarioDefinition*>& scenarios,
               netem::BackendKind backend, const std::string& run_id, Console& console);
  ~LabNetworkUp();
  LabNetworkUp(const LabNetworkUp&) = delete;
  LabNetworkUp& operator=(const LabNetworkUp&) = delete;

  Ledger& ledger() { return ledger_; }
  const NamespaceNetwork& network() const { return *network_; }
  netem::Backend* backend() const { return backend_.get(); }  // null: nothing impairs anything
  const std::string& backend_why() const { return backend_why_; }
  // run.json's `fabric_links`: each shaped fabric link's setting.
  const nlohmann::json& fabric_links() const { return fabric_links_; }
  const std::vector<NetworkSettings>& settings() const { return settings_; }

 private:
  Ledger ledger_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<NamespaceNetwork> network_;
  std::string backend_why_;
  std::unique_ptr<netem::Backend> backend_;
  std::vector<AppliedToFabric> fabric_;  // cleared before the namespaces go
  nlohmann::json fabric_links_ = nlohmann::json::object();
  std::vector<NetworkSettings> settings_;
};

}  // namespace fabriclab::runner
