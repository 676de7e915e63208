#include "runner/rdma/softroce_support.h"

#include <sys/stat.h>
#include <sys/utsname.h>

#include <fstream>

namespace fabriclab::runner::rdma {
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

}  // namespace

SoftRoceSupport softroce_support(const std::string& sys_module, const std::string& modules_root) {
  utsname u{};
  ::uname(&u);
  const std::string modules = modules_root + "/" + u.release;
  if (exists(sys_module + "/rdma_rxe")) return {true, "rdma_rxe is loaded"};
  if (lists_rxe(modules + "/modules.builtin")) return {true, "rdma_rxe is built into the kernel"};
  if (lists_rxe(modules + "/modules.dep"))
    return {true,
            "rdma_rxe is a module of this kernel (loaded on demand by the first `rdma link add`)"};
  return {false, exists(modules) ? "no rdma_rxe module under " + modules
                                 : "cannot tell: no " + modules};
}

std::string roce_needs(const std::string& lab_id) {
  return "it needs two hosts (machines or VMs) whose kernel has SoftRoCE, rdma_rxe "
         "(CONFIG_RDMA_RXE: Debian's and Ubuntu's stock kernels have it), with "
         "ibverbs-providers installed, and runs in host mode: `fabriclab run " +
         lab_id +
         " --hosts A,B --iface IF` on each host (rxe cannot send from a network namespace). "
         "Without two such machines: the VM pair of tests/vm (`sudo tests/vm/vm-pair -- "
         "/bin/sh tests/vm/roce-lab.sh build`, after `sudo scripts/setup.sh --tests`; "
         "tests/vm/README.md, doc/roce.md)";
}

}  // namespace fabriclab::runner::rdma
