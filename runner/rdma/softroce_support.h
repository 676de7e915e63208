// Can this machine make a SoftRoCE (rdma_rxe) device, and what a RoCE lab
// needs where it cannot (issue 35, doc/roce.md). Read from the file system
// alone -- /sys/module, the running kernel's modules.builtin and modules.dep
// -- so asking never makes the kernel load ib_core or rdma_rxe (opening an
// RDMA netlink socket would). `fabriclab doctor`'s rdma_rxe line, `fabriclab
// check` of a RoCE lab and host mode's refusal before a RoCE run all read it.
#pragma once

#include <string>

namespace fabriclab::runner::rdma {

struct SoftRoceSupport {
  bool available = false;
  // "rdma_rxe is loaded", "... a module of this kernel (...)", or why not:
  // "no rdma_rxe module under /lib/modules/6.18.0", "cannot tell: no ...".
  std::string said;
};

// `modules_root`: where the kernel's module trees are (tests give a folder
// of their own); the running kernel's release is appended.
SoftRoceSupport softroce_support(const std::string& sys_module = "/sys/module",
                                 const std::string& modules_root = "/lib/modules");

// What a RoCE run needs and where to get it, for a refusal's second half:
// two hosts whose kernel has rdma_rxe, host mode, the VM pair of tests/vm.
std::string roce_needs(const std::string& lab_id);

}  // namespace fabriclab::runner::rdma
