#include "runner/process/stop_signals.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>

namespace fabriclab::runner {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<bool> g_stop{false};
std::atomic<int> g_first_signal{0};
std::atomic<int> g_count{0};
int g_pipe[2] = {-1, -1};
bool g_installed = false;
struct sigaction g_previous[sizeof(kSignals) / sizeof(kSignals[0])];

void mark_stop(int signal) {
  int none = 0;
  g_first_signal.compare_exchange_strong(none, signal);
  if (!g_stop.exchange(true) && g_pipe[1] >= 0) {
    const int saved_errno = errno;
    (void)!::write(g_pipe[1], "s", 1);  // async-signal-safe; one byte, never drained
    errno = saved_errno;
  }
}

void on_signal(int signal) {
  g_count.fetch_add(1);
  mark_stop(signal);
}

}  // namespace

void StopSignals::install() {
  if (g_installed) return;
  if (g_pipe[0] < 0) (void)!::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK);
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    ::sigaction(kSignals[i], &action, &g_previous[i]);
  }
  g_installed = true;
  if (g_stop.load()) (void)!::write(g_pipe[1], "s", 1);
}

void StopSignals::uninstall() {
  if (!g_installed) return;
  for (size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
  }
  g_installed = false;
}

bool StopSignals::stop_requested() { return g_stop.load(); }
int StopSignals::stop_signal() { return g_first_signal.load(); }
int StopSignals::signal_count() { return g_count.load(); }
int StopSignals::stop_fd() { return g_pipe[0]; }
void StopSignals::request_stop() { mark_stop(0); }

void StopSignals::reset() {
  g_stop.store(false);
  g_first_signal.store(0);
  g_count.store(0);
  if (g_pipe[0] >= 0) {
    char drain[64];
    while (::read(g_pipe[0], drain, sizeof(drain)) > 0) {
    }
  }
}

}  // namespace fabriclab::runner
