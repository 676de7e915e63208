// The page's conditions: what the run was made under, from run.json
// (recordings/FORMAT.md): the lab, the run (id, seed, when, how long, mode,
// privileges), the impairment backend and why, kernel, host and versions,
// ranks, fabric and workload with its parameters, the lab's [topology]
// sysctl; each scenario's link settings (tc-netem words and other keys, the
// links they went on, and where each was applied); and the lab network's
// settings as read back from the rank namespaces (network_table.h).
//
// run.json is read leniently here (json_text.h): a field that is absent or
// of another type is shown as it is (JSON text) or left out, never an error.
// Every value is escaped (html_text.h). Pure function, thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab::runner::page {

// <section id="conditions">...</section>
std::string conditions_section(const nlohmann::json& manifest);

}  // namespace fabriclab::runner::page
