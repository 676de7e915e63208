// Processes recorded by an earlier run that is gone (runner SIGKILLed): how
// `fabriclab cleanup` stops what they left without ever hitting a process
// that merely reuses a recorded pid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace fabriclab::runner {

// Kills what a process recorded by an earlier run left (for `fabriclab
// cleanup`), with SIGKILL: the process group of the recorded leader if pid
// and start time still match (a reused pid is never hit); if the leader is
// gone, any process still in its group that carries the run's marker
// FABRICLAB_RUN_ID=<run_id> in its environment (launch() sets it when given a
// ledger; children inherit it). Returns a sentence saying what happened.
std::string kill_recorded_process(pid_t pid, uint64_t start_ticks, const std::string& run_id,
                                  const std::string& label, bool dry_run);

}  // namespace fabriclab::runner
