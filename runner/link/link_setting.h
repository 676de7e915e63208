// Per-link settings: what a scenario sets on its links, each under its own
// key in a `[[scenario]]` table (labs/SCHEMA.md, "Per-link settings"),
// looked up by that key.
//
//   impair = "delay 100ms loss 1%"   tc-netem words, through the impairment
//                                    backend (netem/impairment.h)
//   sysctl = "net.ipv4.tcp_ecn=1"    the ranks' namespaces' kernel settings
//                                    (sysctl_setting.h)
//   queue = "rate 500mbit limit 256kb ecn k 20kb"   the switch's port toward
//                                    each linked rank (queue_setting.h)
//
// and in `[topology]`, for the whole lab (labs/SCHEMA.md, "Topology"):
//
//   sysctl = "..."                   every rank's namespace
//   host_links = "rate 1gbit"        every host's link (host_links_setting.h)
//   uplinks = "delay 1ms"            every link between two routers
//                                    (uplinks_setting.h)
//
// A setting is one file in this folder implementing LinkSettingKind, plus a
// row in link_settings.cc. The scenario runner applies every setting a
// scenario names on the scenario's links (`links`) before launching the
// ranks and removes them, in reverse, when the scenario ends.
//
// A kind owns its whole life, so no other folder names its key: where a lab
// may write it (its scope) and what host mode does with it (its policy) are
// the kind's answers, asked by the lab loader and host mode alike.
//
// Ownership: apply() returns handles; destroying one reverts exactly what it
// set. Thread safety: kinds are immutable singletons; handles have one owner.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "netem/impairment.h"
#include "runner/link/setting_value.h"

namespace fabriclab::runner {

class LabNetwork;
class Topology;
struct FabricGraph;

// One setting in force on one place of the lab network.
class AppliedLinkSetting {
 public:
  virtual ~AppliedLinkSetting() = default;  // reverts it
  // One line for run.json's "applied" and the log.
  virtual std::string describe() const = 0;
  // Packets it dropped since it was applied (0 for settings that never drop).
  virtual uint64_t drops() const = 0;
  // Its own counters for the `counters` event, by place: a queue's ports
  // ({"r0": {"marked": ..., ...}}, recordings/FORMAT.md "queues"); empty for
  // settings that count nothing but drops. Not const: a sample may reset a
  // window (the deepest queue since the previous sample).
  virtual nlohmann::json sample() { return nlohmann::json::object(); }
  // What the kernel holds of it now, read from the kernel rather than from
  // this object (`fabriclab check`); throws std::runtime_error, saying what
  // the kernel has instead, when it is not in place. By default the setting
  // has nothing to read back beyond describe() (a queue lives in our own
  // worker, whose rules are its apply()'s to verify).
  virtual std::string read_back() const { return describe(); }
  // The backend's handle when this setting is an impairment (`impair`), for
  // a link fault that changes it in place and back
  // (runner/scenario/impair_change.h); null for every other setting.
  virtual netem::Applied* impairment() { return nullptr; }
};

// Where a lab writes a setting, and so how long it holds.
enum class SettingScope {
  kScenario,  // a [[scenario]] (or [[scenario.override]]) key: on the scenario's links, for it
  kFabric,    // a [topology] key: on the fabric itself, for the whole lab
};

// What host mode (runner/host/) does with a setting it meets.
enum class HostModeAction {
  kRun,     // applies it, as in namespace mode (on the machines' lab interface)
  kSkip,    // leaves it out, saying why: a scenario that sets it is recorded as
            // skipped; a fabric setting is not applied and the run goes on
  kRefuse,  // cannot give it: the scenario (or, at fabric scope, the lab) is
            // refused before anything starts (exit 2), saying why
};

struct HostModePolicy {
  HostModeAction action = HostModeAction::kRun;
  // For kSkip and kRefuse: why, naming the value, in the words host mode
  // prints (host_mode_fit.h and host_run.cc say where they stand).
  std::string reason;
};

// What a fabric-scope setting set, for the log and run.json.
struct AppliedToFabric {
  std::vector<std::unique_ptr<AppliedLinkSetting>> handles;  // destroying them reverts it
  std::string line;       // the log's line, without a newline
  // run.json's `fabric_links` entry ({"spec": ..., "applied": [...]}); null
  // for a setting that shapes no link (recordings/FORMAT.md).
  nlohmann::json record;
};

class LinkSettingKind {
 public:
  virtual ~LinkSettingKind() = default;
  virtual const char* key() const = 0;  // the lab.toml key
  // True when a lab may write it at `scope`.
  virtual bool allowed_in(SettingScope scope) const = 0;
  // What host mode does with `value` written at `scope`.
  virtual HostModePolicy in_host_mode(SettingScope scope, const SettingValue& value) const = 0;
  // Parses the value as lab.toml wrote it, once, at load; throws
  // std::invalid_argument with a message fit to follow "key 'impair': " (no
  // side effects).
  virtual SettingValue parse(const std::string& text) const = 0;
  // parse(), for a check alone.
  void validate(const std::string& text) const { parse(text); }
  // True when applying it needs the impairment backend.
  virtual bool needs_backend() const = 0;
  // Checks that the fabric a fabric-scope setting is written for has what
  // it sets (links, router links); throws std::invalid_argument like
  // parse(). The lab loader asks before parse().
  virtual void check_fabric(const FabricGraph& /*graph*/) const {}
  // Why a scenario's setting of `scenario_kind` cannot go with this
  // fabric-scope setting ("" = it can), in words fit to follow
  // "key 'impair': ".
  virtual std::string conflict_with(const LinkSettingKind& /*scenario_kind*/) const { return ""; }
  // True when the netem backend applies `value` without sch_netem (a rate
  // alone: the kernel's tbf), which decides the backend "auto" picks.
  virtual bool shapes_without_sch_netem(const SettingValue& /*value*/) const { return false; }
  // What this host would refuse of `value`, known before any namespace
  // exists: a sentence naming the host's setting and how to change it
  // ("" = nothing). `run` and `check` refuse the lab on it before building.
  virtual std::string host_refusal(const SettingValue& /*value*/) const { return ""; }
  // The least delay `value` adds to every packet of a link it is on, in ms
  // (0 for settings that delay nothing, or whose jitter can take a packet's
  // delay to 0): what `fabriclab check` must see in a round trip over it.
  virtual double added_delay_ms(const SettingValue& /*value*/) const { return 0; }
  // A fabric-scope value as `fabriclab topo` shows it; "" = not shown.
  virtual std::string describe_on_fabric(const SettingValue& /*value*/) const { return ""; }
  // Sets `value` on the links of `link_ranks` (a link "rN" carries the
  // traffic rank N sends) where this runner owns them. `backend` is null
  // unless needs_backend(). Throws like netem::Backend::apply; on throw
  // nothing of this call is left.
  virtual std::vector<std::unique_ptr<AppliedLinkSetting>> apply(
      const SettingValue& value, const std::vector<int>& link_ranks, const LabNetwork& network,
      netem::Backend* backend) const = 0;
  // Sets a fabric-scope `value` for the whole lab on `topology` (seen as
  // `network`), through `backend` (null unless needs_backend()). By default
  // apply() on every rank's link. Throws like apply().
  virtual AppliedToFabric apply_to_fabric(const SettingValue& value, const Topology& topology,
                                          const LabNetwork& network,
                                          netem::Backend* backend) const;
};

// A kind a lab writes only in [topology] (host_links, uplinks): the loader
// refuses it in a scenario, so its scenario-side apply() is never called;
// a call is a bug, a std::logic_error naming the kind.
class FabricOnlySettingKind : public LinkSettingKind {
 public:
  std::vector<std::unique_ptr<AppliedLinkSetting>> apply(const SettingValue& value,
                                                         const std::vector<int>& link_ranks,
                                                         const LabNetwork& network,
                                                         netem::Backend* backend) const override;
};

// The setting under `key`, or null.
const LinkSettingKind* find_link_setting(const std::string& key);
// The setting under `key` if a lab may write it at `scope`, or null.
const LinkSettingKind* find_link_setting(const std::string& key, SettingScope scope);
// The keys a lab may write at `scope`, in the table's order.
std::vector<std::string> link_setting_keys(SettingScope scope);

}  // namespace fabriclab::runner
