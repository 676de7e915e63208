// Turns SIGINT, SIGTERM and SIGHUP into an orderly stop of the runner
// instead of an abrupt death: the handler only sets a flag and writes a byte
// to a self-pipe; the orchestration loop polls stop_requested() (or waits on
// stop_fd() with poll()) and unwinds -- ranks stopped, impairments removed,
// namespaces deleted, ledger closed -- through the ordinary destructors.
//
// A second signal while stopping is counted, not fatal: teardown should not
// be cut short. To force an end anyway, SIGKILL the runner; then `fabriclab
// cleanup` removes what the ledger recorded.
//
// Launched children get default dispositions back (process.h), so they are
// not affected by these handlers.
//
// Thread safety: install()/uninstall() once, from the main thread;
// stop_requested(), stop_signal() and stop_fd() from anywhere.
#pragma once

namespace fabriclab::runner {

class StopSignals {
 public:
  // Installs the handlers (SA_RESTART) and creates the pipe; idempotent.
  static void install();
  // Restores the previous dispositions; the pipe stays for pending pollers.
  static void uninstall();
  // True once any of the signals arrived (or request_stop() was called).
  static bool stop_requested();
  // The first signal that asked to stop (SIGINT, ...), or 0.
  static int stop_signal();
  // How many stop signals arrived in total.
  static int signal_count();
  // Readable (POLLIN) once a stop was requested; never drained, so every
  // poller sees it. -1 before install().
  static int stop_fd();
  // Same as receiving a signal, for code paths that decide to stop (signal 0).
  static void request_stop();
  // Clears the request (tests; a runner that goes on with the next lab).
  static void reset();
};

}  // namespace fabriclab::runner
