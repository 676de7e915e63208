#include "runner/rdma/rxe_device.h"

#include <spdlog/spdlog.h>

#include <exception>

#include "runner/rdma/rdma_links.h"

namespace fabriclab::runner::rdma {

std::string rxe_device_name(const std::string& netdev) { return "fabriclab_" + netdev; }

RxeDevice::RxeDevice(const std::string& netdev, Ledger* ledger) : netdev_(netdev), ledger_(ledger) {
  const std::string existing = rdma_device_on(netdev);
  if (!existing.empty()) {
    name_ = existing;
    spdlog::info("RDMA device {} already on {}: used as it is", name_, netdev);
    return;
  }
  name_ = rxe_device_name(netdev);
  // Recorded before it exists: a SIGKILL between the two leaves an entry
  // whose device is absent, which cleanup reports and drops.
  if (ledger_)
    entry_ = ledger_->record({{"kind", "rdma_link"}, {"name", name_}, {"netdev", netdev}});
  try {
    add_rxe_link(name_, netdev);
  } catch (...) {
    if (ledger_) ledger_->forget(entry_);
    throw;
  }
  created_ = true;
  spdlog::debug("rdma link add {} type rxe netdev {}", name_, netdev);
}

RxeDevice::~RxeDevice() {
  if (!created_) return;
  try {
    delete_rdma_link(name_);
    if (ledger_) ledger_->forget(entry_);
  } catch (const std::exception& e) {
    spdlog::warn("cannot remove RDMA device {} ({}); `fabriclab cleanup` will: {}", name_, netdev_,
                 e.what());
  }
}

std::string remove_rxe_device(const std::string& name, const std::string& netdev, bool dry_run) {
  const std::string what = "RDMA device " + name + " on " + netdev;
  bool present = false, elsewhere = false;
  for (const RdmaDevice& device : list_rdma_devices()) {
    if (device.name != name) continue;
    present = true;
    // No GID (interface down) reads as "": not evidence of another interface.
    elsewhere = !device.netdev.empty() && device.netdev != netdev;
  }
  if (!present) return "no " + what + " (already gone)";
  if (elsewhere) return what + ": now on another interface, left alone";
  if (dry_run) return what + ": would be removed";
  delete_rdma_link(name);
  return what + ": removed";
}

}  // namespace fabriclab::runner::rdma
