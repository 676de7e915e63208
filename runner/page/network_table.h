// The conditions' network table: the lab network's settings as read back
// from inside the rank namespaces (run.json "network", recordings/FORMAT.md):
// ranks and namespaces (or the host, in host mode), device, MTU, root qdisc,
// routes with their metrics, and the TCP sysctls. Namespaces whose settings
// are the same share a row, as the run's own start-up lines do, so four
// ranks with one configuration read as one.
// Lenient and escaped as conditions_section.h says. Pure, thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab::runner::page {

// <h3> and <table id="fl-network">; "" when run.json has no network.
std::string network_table(const nlohmann::json& manifest);

}  // namespace fabriclab::runner::page
