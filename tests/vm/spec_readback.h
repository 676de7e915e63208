// Comparing an applied netem spec with what a kernel reports back, for the
// VM tests (tests/vm/), which run on a kernel that has sch_netem.
//
// Two independent read-backs are checked against the spec parsed from the
// words: fabriclab's own (RTM_GETQDISC decoded by netem_options.h) and
// iproute2's (`tc -s -j qdisc show`). An encoding bug (a wrong attribute, a
// wrong scale) shows in both; a bug the encoder and our decoder share shows in
// tc's.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "netem/netlink/netem_options.h"
#include "netem/spec.h"

namespace fabriclab::netem::vmtest {

// `spec` as the kernel holds it: the limit the backend derives when none is
// given, the gap tc sends by default, and none of the "word was present"
// flags (the kernel dumps every attribute whether it was sent or not), and no
// distribution names (the kernel never dumps its tables), and no duplicate
// correlation unless tc would have sent it.
Spec as_kernel_holds(const Spec& spec);

// "" when our read-back `decoded` matches `spec`, else what differs.
std::string our_readback_mismatch(const Spec& spec, const netlink::DecodedNetem& decoded);

// "" when the `options` object of tc's JSON for a netem qdisc matches `spec`,
// else what differs (field by field, in tc's units: seconds, fractions).
std::string tc_readback_mismatch(const Spec& spec, const nlohmann::json& options);

}  // namespace fabriclab::netem::vmtest
