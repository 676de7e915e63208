// `fabriclab doctor`'s RDMA lines (issue 35): can this kernel make a SoftRoCE
// device (rdma_rxe loaded, built in, or a module modprobe would load), and
// which RDMA devices exist. Neither is required: only RoCE runs need them.
// Read from the file system alone, so doctor never makes the kernel load
// ib_core or rdma_rxe (which opening an RDMA netlink socket would).
#include <sys/stat.h>
#include <sys/utsname.h>

#include <fstream>
#include <string>

#include "runner/cli/doctor_checks.h"
#include "runner/rdma/rdma_links.h"

namespace fabriclab::cli {
namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// True when a line of `path` names rdma_rxe.ko (modules.dep, modules.builtin).
bool lists_rxe(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::string file = line.substr(0, line.find(':'));
    const std::string name = file.substr(file.rfind('/') + 1);  // npos + 1 == 0
    if (name == "rdma_rxe.ko" || name.rfind("rdma_rxe.ko.", 0) == 0) return true;
  }
  return false;
}

CheckResult rdma_rxe() {
  utsname u{};
  ::uname(&u);
  const std::string modules = std::string("/lib/modules/") + u.release;
  if (exists("/sys/module/rdma_rxe")) return {CheckStatus::kOk, "rdma_rxe is loaded", ""};
  if (lists_rxe(modules + "/modules.builtin"))
    return {CheckStatus::kOk, "rdma_rxe is built into the kernel", ""};
  if (lists_rxe(modules + "/modules.dep"))
    return {CheckStatus::kOk,
            "rdma_rxe is a module of this kernel (loaded on demand by the first `rdma link add`)",
            ""};
  const std::string where =
      exists(modules) ? "no rdma_rxe module under " + modules : "cannot tell: no " + modules;
  return {CheckStatus::kWarn, "SoftRoCE unavailable: " + where + " (RoCE runs need it)",
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
