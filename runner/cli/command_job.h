// One rank of the `command` workload (runner/workload/command_workload.h):
// `fabriclab job --metrics PATH [--steps N] -- ARGV...`, launched by the
// scenario runner like any rank, runs ARGV as its child and relays what it
// reports into the workload contract's events (doc/metrics.md):
//
//   start   written before ARGV starts: world_size, steps (N; 0 unknown),
//           command (ARGV)
//   step    one per line ARGV writes to FABRICLAB_STEPS_FD (fd 3; also
//           FABRICLAB_STEPS_FILE=/dev/fd/3): a JSON object in metrics.jsonl's
//           step format with at least an integer `step` >= 1; the relay adds
//           v, event, rank, ts (unless given) and the lab interface's
//           tx/rx bytes and packets since the previous line (unless given)
//   final   when ARGV exits 0: steps (the last reported), wall_s; a command
//           that reported no step gets one first, the whole job: step 1,
//           step_ms its run time, whole_job true (so a silent job still has a
//           wall time and bytes; it must end within the scenario's stall_s)
//
// ARGV's environment: the rank's (torchrun's RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, FABRICLAB_BIND_ADDR), plus
// GLOO_SOCKET_IFNAME (the interface holding FABRICLAB_BIND_ADDR, unless set)
// and PYTHONPATH with the folder of the `fabriclab_metrics` helper first
// (python_helper_dir()). ARGV shares the rank's process group, so the
// runner's stop reaches it, and gets PR_SET_PDEATHSIG from the relay.
//
// Exit: ARGV's own code; 128+N when a signal N ended it; 127 (with a line
// saying why on stderr, the rank's log) when it cannot be started. Lines
// that are not step reports are skipped with a warning on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::cli {

struct CommandJobOptions {
  std::string metrics_path;
  int64_t planned_steps = 0;
  std::vector<std::string> argv;
};

int run_command_job(const CommandJobOptions& options);

// The folder holding trainer/python's files (fabriclab_metrics.py, the DDP
// example): beside this binary's source tree (build/fabriclab ->
// ../trainer/python), or the package's /usr/share/fabriclab/python;
// FABRICLAB_PYTHON overrides both.
std::string python_helper_dir();

}  // namespace fabriclab::cli
