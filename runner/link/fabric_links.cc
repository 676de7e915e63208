#include "runner/link/fabric_links.h"

#include <spdlog/fmt/fmt.h>

#include "runner/topology/lab_network.h"

namespace fabriclab::runner {
namespace {

class ShapedLink : public AppliedLinkSetting {
 public:
  ShapedLink(std::shared_ptr<netem::Backend> owner, std::unique_ptr<netem::Applied> applied)
      : owner_(std::move(owner)), applied_(std::move(applied)) {}
  std::string describe() const override { return applied_->describe(); }
  uint64_t drops() const override { return applied_->stats().drops; }

 private:
  std::shared_ptr<netem::Backend> owner_;     // declared first: outlives applied_
  std::unique_ptr<netem::Applied> applied_;
};

}  // namespace

AppliedToFabric shape_fabric_links(const char* key, const SettingValue& value,
                                   const std::vector<Link>& links, netem::Backend& backend,
                                   std::shared_ptr<netem::Backend> owner) {
  AppliedToFabric shaped;
  const netem::Spec& spec = value.parsed<netem::Spec>();
  const std::string& words = value.text();
  const netem::Direction direction = backend.link_direction();
  const bool egress = direction == netem::Direction::kEgress;
  nlohmann::json where = nlohmann::json::array();
  const auto hold = [&](const Endpoint& device) {
    shaped.handles.push_back(
        std::make_unique<ShapedLink>(owner, backend.apply(target_on(device, {}, direction), spec)));
    where.push_back(shaped.handles.back()->describe());
  };
  for (const Link& link : links) {
    // a -> b and b -> a: held as they leave, or as they arrive.
    hold(egress ? link.a : link.b);
    hold(egress ? link.b : link.a);
  }
  shaped.record = {{"spec", words}, {"applied", where}};
  shaped.line = fmt::format("{} ([topology] {}, both ways): {} on {} devices", key, key, words,
                            where.size());
  return shaped;
}

}  // namespace fabriclab::runner
