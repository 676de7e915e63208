// A SoftRoCE (rdma_rxe) device on a real interface for as long as a run needs
// it: created on construction, removed on destruction, and written in the
// run's ledger before it is created, so that after a SIGKILL of the runner
// `fabriclab cleanup` removes it (kind "rdma_link", rdma_link_cleanup.h), as
// does host mode's guardian (`cleanup --iface IF`: the device named
// rxe_device_name(IF), runner/cleanup/interface_cleanup.cc).
//
// Its name is fabriclab's own, `fabriclab_<interface>` (as the userspace
// backend's nft tables are `fabriclab_<dev>`): cleanup never removes a
// device it did not create. An interface that already has an RDMA device
// (the machine's own rxe0, a real RoCE NIC) is used as it is and left alone:
// rxe allows one device per interface.
//
// Host mode only: on Debian's 6.1 kernel rxe cannot send from an interface
// in another network namespace (doc/roce.md).
//
// Ownership: the object owns the device it created. Not copyable.
// Errors: the constructor throws KernelError (the kernel refused: e.g.
// EOPNOTSUPP "no rdma_rxe") or std::runtime_error (the ledger could not be
// written; then nothing was created). The destructor never throws: a device
// it cannot remove stays in the ledger, with a warning.
#pragma once

#include <string>

#include "runner/ledger/ledger.h"

namespace fabriclab::runner::rdma {

// "fabriclab_<netdev>": the name fabriclab gives the rxe device it creates.
std::string rxe_device_name(const std::string& netdev);

class RxeDevice {
 public:
  // `ledger` may be null (a tool that records nothing); it must outlive this.
  RxeDevice(const std::string& netdev, Ledger* ledger);
  ~RxeDevice();
  RxeDevice(const RxeDevice&) = delete;
  RxeDevice& operator=(const RxeDevice&) = delete;

  const std::string& name() const { return name_; }  // what verbs programs open (-d)
  const std::string& netdev() const { return netdev_; }
  bool created() const { return created_; }  // false: the interface's own device, used as is

 private:
  std::string netdev_;
  std::string name_;
  bool created_ = false;
  Ledger* ledger_ = nullptr;
  Ledger::EntryId entry_ = 0;
};

// What cleanup does for a ledger entry of kind "rdma_link" (or, with the
// interface alone, for the guardian): deletes the device `name` if it still
// exists and is still on `netdev`. Returns one sentence; throws KernelError
// if the kernel refuses.
std::string remove_rxe_device(const std::string& name, const std::string& netdev, bool dry_run);

}  // namespace fabriclab::runner::rdma
