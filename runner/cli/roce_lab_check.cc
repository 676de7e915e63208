#include "runner/cli/roce_lab_check.h"

#include "runner/rdma/softroce_support.h"

namespace fabriclab::cli {

bool runs_over_roce(const runner::LabDefinition& lab) {
  for (const runner::ScenarioDefinition& s : lab.scenarios)
    if (s.workload.param("transport") == "roce") return true;
  return false;
}

int check_roce_lab(const runner::LabDefinition& lab, std::ostream& out) {
  const runner::rdma::SoftRoceSupport rxe = runner::rdma::softroce_support();
  out << "lab " << lab.id << " runs over RoCE in host mode only: check builds no namespaces "
      << "for it (rxe cannot send from one; doc/roce.md)\n";
  if (!rxe.available) {
    out << "  SoftRoCE: " << rxe.said << "\n  lab " << lab.id
        << " cannot run on this host: " << runner::rdma::roce_needs(lab.id) << "\n";
    return 1;
  }
  out << "  SoftRoCE: " << rxe.said << "\n  this host can carry the lab's RoCE; run it with "
      << "`fabriclab run " << lab.id << " --hosts A,B --iface IF` on each of two such hosts\n";
  return 0;
}

}  // namespace fabriclab::cli
