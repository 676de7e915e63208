// `fabriclab doctor`'s RDMA lines (issue 35): can this kernel make a SoftRoCE
// device (rdma_rxe loaded, built in, or a module modprobe would load), and
// which RDMA devices exist. Neither is required: only RoCE runs need them.
// Read from the file system alone, so doctor never makes the kernel load
// ib_core or rdma_rxe (which opening an RDMA netlink socket would).
#include <string>

#include "runner/cli/doctor_checks.h"
#include "runner/rdma/rdma_links.h"
#include "runner/rdma/softroce_support.h"

namespace fabriclab::cli {
namespace {

CheckResult rdma_rxe() {
  const runner::rdma::SoftRoceSupport rxe = runner::rdma::softroce_support();
  if (rxe.available) return {CheckStatus::kOk, rxe.said, ""};
  return {CheckStatus::kWarn, "SoftRoCE unavailable: " + rxe.said + " (RoCE runs need it)",
          "a kernel with CONFIG_RDMA_RXE (Debian's and Ubuntu's stock kernels have it); "
          "tests/vm boots one"};
}

CheckResult rdma_devices() {
  const auto devices = runner::rdma::list_rdma_devices();
  if (devices.empty()) return {CheckStatus::kOk, "none (RoCE runs create one: fabriclab rxe)", ""};
  std::string said;
  for (const runner::rdma::RdmaDevice& d : devices) {
    said += (said.empty() ? "" : ", ") + d.name;
    if (!d.netdev.empty()) said += " on " + d.netdev;
    if (!d.link_layer.empty()) said += " (" + d.link_layer + ")";
  }
  return {CheckStatus::kOk, said, ""};
}

const DoctorRegistrar rxe_check{{"rdma_rxe", false, rdma_rxe}};
const DoctorRegistrar devices_check{{"RDMA devices", false, rdma_devices}};

}  // namespace
}  // namespace fabriclab::cli
