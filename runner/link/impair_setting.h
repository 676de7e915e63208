// `impair`: tc-netem words (netem/spec_parse.h) applied through the
// impairment backend on every target the lab network gives for the links
// (LabNetwork::impairment_targets: the sender's egress, or the receivers'
// ingress filtered by sender address, as the backend prefers).
#pragma once

#include "runner/link/link_setting.h"

namespace fabriclab::runner {

const LinkSettingKind& impair_setting();

// tc-netem words parsed as `impair` parses them (a netem::Spec), for the
// fabric-scope kinds that take the same words (host_links, uplinks).
SettingValue parse_impairment(const std::string& text);

}  // namespace fabriclab::runner
