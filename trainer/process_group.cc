#include "trainer/process_group.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace fabriclab::trainer {
namespace {

bool is_loopback(const std::string& addr) {
  return addr == "localhost" || addr == "::1" || addr.rfind("127.", 0) == 0;
}

}  // namespace

c10::intrusive_ptr<c10d::Store> connect_store(const Rendezvous& rv) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(rv.master_port);
  options.isServer = rv.rank == 0 && !rv.agent_store_attempt;
  options.numWorkers = rv.world_size;
  options.waitWorkers = true;
  options.timeout = rv.timeout;
  auto store = c10::make_intrusive<c10d::TCPStore>(rv.master_addr, options);
  if (!rv.agent_store_attempt) return store;
  // The agent's store outlives a failed attempt: a restarted group's keys
  // must not meet the last one's, hence one prefix per attempt.
  return c10::make_intrusive<c10d::PrefixStore>(agent_store_prefix(*rv.agent_store_attempt),
                                                store);
}

c10::intrusive_ptr<c10d::ProcessGroup> make_process_group(const Rendezvous& rv, int channels) {
  validate(rv);
  if (rv.world_size == 1) return {};

  spdlog::info("rank {}: rendezvous at {}:{} ({} ranks, timeout {} s{})", rv.rank, rv.master_addr,
               rv.master_port, rv.world_size, rv.timeout.count() / 1000.0,
               rv.agent_store_attempt ? ", torchrun's agent hosts the store, attempt " +
                                            std::to_string(*rv.agent_store_attempt)
                                      : "");
  auto store = connect_store(rv);

  auto options = c10d::ProcessGroupGloo::Options::create(rv.timeout);
  if (!rv.iface.empty()) {
    for (const auto& name : iface_names(rv.iface))
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
  } else if (!rv.bind_addr.empty()) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(rv.bind_addr));
  } else if (is_loopback(rv.master_addr)) {
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else {
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  // More channels: the same devices again, each a context of its own.
  const size_t devices = options->devices.size();
  for (int c = 1; c < channels; ++c)
    for (size_t d = 0; d < devices; ++d) options->devices.push_back(options->devices[d]);
  // One thread per channel runs the collectives (one by default: with 2
  // cores the other runs backward).
  options->threads = std::max(1, channels);
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rv.rank, rv.world_size, options);
}

}  // namespace fabriclab::trainer
