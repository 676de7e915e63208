// A child process the runner launched (a rank, a ping, an iperf3), owned by
// this object: it runs in its own process group, inside the network
// namespace the LaunchSpec names, and dies with the runner.
//
//   Process rank = Process::launch(spec, &ledger);
//   while (!rank.poll()) { ... }        // non-blocking
//   rank.poll()->describe();            // "exited with code 0"
//
// Guarantees:
// - Recorded before it runs: with a ledger, the child waits (before exec)
//   until its pid and start time are in the ledger; the entry is struck when
//   the process has been reaped. Its environment then also carries
//   FABRICLAB_RUN_ID=<run id>, inherited by anything it starts, so cleanup
//   can tell the run's processes from others.
// - Dies with the runner: PR_SET_PDEATHSIG(SIGKILL). Linux delivers it when
//   the THREAD that launched the child exits, so launch from a thread that
//   lives as long as the run (e.g. the main thread), not a short-lived worker.
// - Own process group (pgid == pid): the terminal's Ctrl-C reaches only the
//   runner, which stops ranks in order; signal() and terminate() reach the
//   whole group, and when the leader ends any process left in its group is
//   SIGKILLed before the leader is reaped.
// - Destroying a running Process terminates it: SIGTERM, kDefaultGrace, SIGKILL.
// - Safe in a multi-threaded runner: between fork and exec the child makes
//   only async-signal-safe system calls; everything is prepared before fork.
//
// Thread safety: one owner; not thread-safe. Movable, not copyable.
// Errors: launch() throws std::runtime_error "cannot start <label>: <step>:
// <reason>" when the program cannot be found or executed, the namespace
// cannot be entered, or a redirection file cannot be opened; then nothing
// is left running and nothing stays in the ledger.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "runner/ledger/ledger.h"
#include "runner/process/exit_status.h"
#include "runner/process/launch_spec.h"

namespace fabriclab::runner {

constexpr std::chrono::milliseconds kDefaultGrace{3000};

class Process {
 public:
  // Starts spec.argv. `ledger` may be null (nothing recorded: tests, tools);
  // if not, it must outlive the Process.
  static Process launch(const LaunchSpec& spec, Ledger* ledger = nullptr);

  Process() = default;  // empty: no process
  ~Process();
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& label() const { return label_; }
  // A pidfd: poll() it for POLLIN, which means "has ended" (then call
  // poll() on this object). -1 if the kernel has no pidfd_open (< 5.3).
  int pidfd() const { return pidfd_; }
  // True until the end has been collected by poll()/wait*().
  bool running() const { return pid_ > 0 && !status_; }

  // Non-blocking: the exit status if it has ended (collected once, then
  // remembered), nullopt while it runs.
  std::optional<ExitStatus> poll();
  // Waits up to `timeout` for the end.
  std::optional<ExitStatus> wait_for(std::chrono::milliseconds timeout);
  // Waits for the end, however long it takes.
  ExitStatus wait();
  // Sends `signal` to the process group. No-op once it has ended.
  void signal(int signal);
  // SIGTERM to the group, up to `grace` for it to end, then SIGKILL; returns
  // how it ended. Immediately returns the status if it had already ended.
  ExitStatus terminate(std::chrono::milliseconds grace = kDefaultGrace);

 private:
  void reap(int wait_status);
  void release();

  pid_t pid_ = -1;
  int pidfd_ = -1;
  std::string label_;
  std::optional<ExitStatus> status_;
  Ledger* ledger_ = nullptr;
  Ledger::EntryId ledger_entry_ = 0;
};

// Stops many processes at once: SIGTERM to all, up to `grace` in total for
// them to end, then SIGKILL to the rest. Returns when all have ended.
void terminate_all(std::vector<Process>& processes,
                   std::chrono::milliseconds grace = kDefaultGrace);

// The environment variable launch() adds (with a ledger) to mark a run's
// processes: FABRICLAB_RUN_ID=<run id>.
constexpr const char* kRunIdEnvironmentVariable = "FABRICLAB_RUN_ID";

}  // namespace fabriclab::runner
