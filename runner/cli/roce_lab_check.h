// `fabriclab check` of a lab whose workload runs over RoCE (transport =
// "roce"): check builds the lab in network namespaces, where rxe cannot send
// (doc/roce.md, section 2), so for such a lab it checks what it can on this
// host -- that the kernel can make a SoftRoCE device -- and says how the lab
// runs. Exit status as check's: 0 this host can carry the lab's RoCE, 1 not.
#pragma once

#include <ostream>

#include "runner/lab/lab_definition.h"

namespace fabriclab::cli {

bool runs_over_roce(const runner::LabDefinition& lab);
int check_roce_lab(const runner::LabDefinition& lab, std::ostream& out);

}  // namespace fabriclab::cli
