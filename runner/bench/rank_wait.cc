#include "runner/bench/rank_wait.h"

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

#include "runner/process/stop_signals.h"

namespace fabriclab::runner::bench {

std::string tail_of(const std::string& path, size_t max_chars) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > max_chars ? "..." + text.substr(text.size() - max_chars) : text;
}

void wait_for_ranks(std::vector<Process>& ranks, const std::vector<std::string>& logs,
                    std::chrono::steady_clock::time_point deadline,
                    const std::string& timeout_message, std::chrono::milliseconds poll,
                    const std::function<void()>& on_stop) {
  for (;;) {
    size_t done = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      const auto status = ranks[r].poll();
      if (!status) continue;
      if (!status->success()) {
        terminate_all(ranks);
        throw std::runtime_error(ranks[r].label() + " " + status->describe() + "; its output:\n" +
                                 tail_of(logs[r]));
      }
      ++done;
    }
    if (done == ranks.size()) return;
    if (on_stop && StopSignals::stop_requested()) {
      terminate_all(ranks);
      on_stop();
    }
    if (std::chrono::steady_clock::now() > deadline) {
      terminate_all(ranks);
      throw std::runtime_error(timeout_message);
    }
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace fabriclab::runner::bench
