#include "runner/link/host_links_setting.h"

#include <stdexcept>

#include "netem/spec_parse.h"
#include "runner/link/fabric_links.h"
#include "runner/link/impair_setting.h"
#include "runner/topology/fabric.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {
namespace {

class HostLinksSetting : public FabricOnlySettingKind {
 public:
  const char* key() const override { return "host_links"; }
  bool allowed_in(SettingScope scope) const override { return scope == SettingScope::kFabric; }
  HostModePolicy in_host_mode(SettingScope, const SettingValue& value) const override {
    return {HostModeAction::kRefuse,
            "shapes every rank's link to its switch (host_links = \"" + value.text() +
                "\"); host mode leaves the machines' NICs as they are"};
  }

  SettingValue parse(const std::string& text) const override {
    SettingValue value = parse_impairment(text);
    if (!netem::shapes_without_sch_netem(value.parsed<netem::Spec>()))
      throw std::invalid_argument("expected a rate alone, like \"rate 1gbit\" (the hosts' NIC speed)");
    return value;
  }
  void check_fabric(const FabricGraph& graph) const override {
    if (graph.links.empty()) throw std::invalid_argument("this fabric has no links");
  }
  std::string conflict_with(const LinkSettingKind& scenario_kind) const override {
    if (&scenario_kind != &impair_setting()) return "";
    return "[topology] host_links already shapes every host's link; a scenario's impair would "
           "meet it on the same device";
  }
  std::string describe_on_fabric(const SettingValue& value) const override {
    return "host links (every host's link, both ways): " + value.text();
  }
  // Its own shaper, not the run's backend.
  bool needs_backend() const override { return false; }

  AppliedToFabric apply_to_fabric(const SettingValue& value, const Topology& topology,
                                  const LabNetwork&, netem::Backend*) const override {
    std::shared_ptr<netem::Backend> shaper =
        netem::make_backend(netem::BackendKind::kNetem, nullptr);  // the kernel's tbf
    return shape_fabric_links(key(), value, topology.links(), *shaper, shaper);
  }
};

}  // namespace

const LinkSettingKind& host_links_setting() {
  static const HostLinksSetting instance;
  return instance;
}

}  // namespace fabriclab::runner
