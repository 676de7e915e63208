// A process named so that it cannot be confused with a later one that reuses
// its pid: the pid plus its start time (field 22 of /proc/<pid>/stat, clock
// ticks since boot). What the ledger records for the runner and every rank.
// In common/ because the ledger (which records it) and the process and
// cleanup code (which check it) all need it, and the ledger depends on
// nothing else in the runner.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace fabriclab {

struct ProcessIdentity {
  pid_t pid = 0;
  uint64_t start_ticks = 0;
};

// Start time of `pid`, or nullopt if there is no such process (or it is a
// zombie: dead, waiting to be reaped).
std::optional<uint64_t> process_start_ticks(pid_t pid);

// This process.
ProcessIdentity self_identity();

// True if a live process with this pid and this start time exists.
bool is_running(const ProcessIdentity& process);

}  // namespace fabriclab
