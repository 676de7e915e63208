#include "trainer/process_group.h"

#include <net/if.h>
#include <spdlog/spdlog.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "common/input_error.h"

namespace fabriclab::trainer {
namespace {

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr == "::1" || addr.rfind("127.", 0) == 0;
}

}  // namespace

void validate(const Rendezvous& rv) {
  if (rv.world_size < 1) {
    throw InputError("WORLD_SIZE must be >= 1, got " + std::to_string(rv.world_size) +
                     " (from --world-size or the launcher's environment)");
  }
  if (rv.rank < 0 || rv.rank >= rv.world_size) {
    throw InputError("RANK must be in [0, WORLD_SIZE=" + std::to_string(rv.world_size) +
                     "), got " + std::to_string(rv.rank) +
                     " (from --rank and --world-size or the launcher's environment)");
  }
  if (rv.world_size > 1 && rv.master_addr.empty()) {
    throw InputError("WORLD_SIZE=" + std::to_string(rv.world_size) +
                     " needs MASTER_ADDR (environment or --master-addr)");
  }
  if (rv.master_port < 1 || rv.master_port > 65535) {
    throw InputError("MASTER_PORT must be in 1..65535, got " + std::to_string(rv.master_port) +
                     " (from --master-port or the environment)");
  }
  if (rv.timeout.count() <= 0) throw InputError("--timeout must be positive");
  // Gloo would find these out only after the rendezvous, as a failure.
  if (!rv.iface.empty() && ::if_nametoindex(rv.iface.c_str()) == 0)
    throw InputError("--iface " + rv.iface + ": no such interface here (expected a name from `ip link`)");
}

c10::intrusive_ptr<c10d::TCPStore> connect_store(const Rendezvous& rv) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(rv.master_port);
  options.isServer = rv.rank == 0;
  options.numWorkers = rv.world_size;
  options.waitWorkers = true;
  options.timeout = rv.timeout;
  return c10::make_intrusive<c10d::TCPStore>(rv.master_addr, options);
}

c10::intrusive_ptr<c10d::ProcessGroup> make_process_group(const Rendezvous& rv) {
  validate(rv);
  if (rv.world_size == 1) return {};

  spdlog::info("rank {}: rendezvous at {}:{} ({} ranks, timeout {} s)", rv.rank, rv.master_addr,
               rv.master_port, rv.world_size, rv.timeout.count() / 1000.0);
  auto store = connect_store(rv);

  auto options = c10d::ProcessGroupGloo::Options::create(rv.timeout);
  if (!rv.iface.empty()) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(rv.iface));
  } else if (!rv.bind_addr.empty()) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(rv.bind_addr));
  } else if (is_loopback(rv.master_addr)) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  // One thread runs the collectives: with 2 cores the other runs backward.
  options->threads = 1;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rv.rank, rv.world_size, options);
}

}  // namespace fabriclab::trainer
