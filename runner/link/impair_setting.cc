#include "runner/link/impair_setting.h"

#include "common/input_error.h"
#include "netem/spec_parse.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

namespace {

class AppliedImpairment : public AppliedLinkSetting {
 public:
  AppliedImpairment(std::unique_ptr<netem::Applied> applied, netem::Backend* backend,
                    netem::Target target)
      : applied_(std::move(applied)), backend_(backend), target_(std::move(target)) {}
  std::string describe() const override { return applied_->describe(); }
  netem::Applied* impairment() override { return applied_.get(); }
  uint64_t drops() const override { return applied_->stats().drops; }
  // What the backend finds of its own on the device when it lists it from
  // the kernel (a dry run of its leftovers sweep: netem's root qdisc, the
  // userspace backend's nft table).
  std::string read_back() const override {
    const netem::Leftovers found = backend_->remove_leftovers(target_, /*dry_run=*/true);
    std::string text;
    for (const std::string& line : found.actions) text += (text.empty() ? "" : "; ") + line;
    if (!found.ok || found.removed.empty())
      throw std::runtime_error("not on " + target_.device + " as the kernel lists it: " + text);
    return text;
  }

 private:
  std::unique_ptr<netem::Applied> applied_;
  netem::Backend* backend_;
  netem::Target target_;
};

class ImpairSetting : public LinkSettingKind {
 public:
  const char* key() const override { return "impair"; }
  bool allowed_in(SettingScope scope) const override { return scope == SettingScope::kScenario; }
  // On the machines' lab interface (host_network.h), as on a veth.
  HostModePolicy in_host_mode(SettingScope, const SettingValue&) const override { return {}; }

  SettingValue parse(const std::string& text) const override { return parse_impairment(text); }

  bool needs_backend() const override { return true; }
  // The least delay every frame gets, which `check` holds a ping's round
  // trip to: with jitter a frame may get less than `delay` (uniformly down
  // to delay - jitter; a distribution table reaches several jitters below,
  // so then nothing is certain: lab 10's pareto tail measured 3.2 ms round
  // trips over two 2 ms links).
  double added_delay_ms(const SettingValue& value) const override {
    const netem::Spec& spec = value.parsed<netem::Spec>();
    if (spec.jitter_us == 0) return static_cast<double>(spec.delay_us) / 1000.0;
    const bool uniform = spec.distribution == netem::Distribution::kNone ||
                         spec.distribution == netem::Distribution::kUniform;
    if (!uniform || spec.jitter_us >= spec.delay_us) return 0;
    return static_cast<double>(spec.delay_us - spec.jitter_us) / 1000.0;
  }
  bool shapes_without_sch_netem(const SettingValue& value) const override {
    return netem::shapes_without_sch_netem(value.parsed<netem::Spec>());
  }

  std::vector<std::unique_ptr<AppliedLinkSetting>> apply(const SettingValue& value,
                                                         const std::vector<int>& link_ranks,
                                                         const LabNetwork& network,
                                                         netem::Backend* backend) const override {
    const netem::Spec& spec = value.parsed<netem::Spec>();
    std::vector<std::unique_ptr<AppliedLinkSetting>> applied;
    for (const netem::Target& target :
         network.impairment_targets(link_ranks, backend->link_direction())) {
      applied.push_back(
          std::make_unique<AppliedImpairment>(backend->apply(target, spec), backend, target));
    }
    return applied;  // on a throw above, the ones applied so far are removed here
  }
};

}  // namespace

SettingValue parse_impairment(const std::string& text) {
  try {
    return SettingValue(text, std::make_shared<const netem::Spec>(netem::parse_spec(text)));
  } catch (const InputError& e) {
    throw std::invalid_argument(std::string("not a valid netem spec: ") + e.what());
  }
}

const LinkSettingKind& impair_setting() {
  static const ImpairSetting instance;
  return instance;
}

}  // namespace fabriclab::runner
