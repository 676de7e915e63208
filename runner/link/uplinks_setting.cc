#include "runner/link/uplinks_setting.h"

#include <stdexcept>

#include "netem/spec_parse.h"
#include "runner/link/fabric_links.h"
#include "runner/link/impair_setting.h"
#include "runner/topology/fabric.h"
#include "runner/topology/topology.h"

namespace fabriclab::runner {
namespace {

class UplinksSetting : public FabricOnlySettingKind {
 public:
  const char* key() const override { return "uplinks"; }
  bool allowed_in(SettingScope scope) const override { return scope == SettingScope::kFabric; }
  HostModePolicy in_host_mode(SettingScope, const SettingValue& value) const override {
    return {HostModeAction::kRefuse,
            "shapes the links between its routers (uplinks = \"" + value.text() +
                "\"); host mode has only the machines' own network"};
  }

  SettingValue parse(const std::string& text) const override { return parse_impairment(text); }
  void check_fabric(const FabricGraph& graph) const override {
    bool has_uplinks = false;
    for (const FabricLink& link : graph.links)
      for (const FabricNode& node : graph.switches) has_uplinks = has_uplinks || node.name == link.a;
    if (!has_uplinks)
      throw std::invalid_argument("kind \"" + graph.kind +
                                  "\" has no links between routers (leaf_spine has)");
  }
  bool shapes_without_sch_netem(const SettingValue& value) const override {
    return netem::shapes_without_sch_netem(value.parsed<netem::Spec>());
  }
  std::string describe_on_fabric(const SettingValue& value) const override {
    return "uplinks (every link between two routers, both ways): " + value.text();
  }
  bool needs_backend() const override { return true; }

  AppliedToFabric apply_to_fabric(const SettingValue& value, const Topology& topology,
                                  const LabNetwork&, netem::Backend* backend) const override {
    return shape_fabric_links(key(), value, topology.router_links(), *backend);
  }
};

}  // namespace

const LinkSettingKind& uplinks_setting() {
  static const UplinksSetting instance;
  return instance;
}

}  // namespace fabriclab::runner
