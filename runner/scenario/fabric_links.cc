#include "runner/scenario/fabric_links.h"

#include "netem/spec_parse.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

std::vector<std::unique_ptr<netem::Applied>> apply_on_links(const std::string& words,
                                                            const std::vector<Link>& links,
                                                            netem::Backend& backend) {
  std::vector<std::unique_ptr<netem::Applied>> applied;
  if (words.empty()) return applied;
  const netem::Spec spec = netem::parse_spec(words);
  const netem::Direction direction = backend.link_direction();
  const bool egress = direction == netem::Direction::kEgress;
  for (const Link& link : links) {
    // a -> b and b -> a: held as they leave, or as they arrive.
    applied.push_back(backend.apply(target_on(egress ? link.a : link.b, {}, direction), spec));
    applied.push_back(backend.apply(target_on(egress ? link.b : link.a, {}, direction), spec));
  }
  return applied;
}

}  // namespace fabriclab::runner
