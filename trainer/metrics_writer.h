// Writes the trainer's metrics as JSON Lines, one event per line, in the
// format defined once in doc/metrics.md (schema version kMetricsVersion).
//
// Each line is flushed as it is written: the runner tails the file live, and
// a rank that dies must leave every completed step behind. Not thread-safe.
// With an empty path the writer discards everything (no file is created).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace fabriclab::trainer {

// 2: the runner's `counters` changed (recordings/FORMAT.md); `step` gained
// tx_bytes/rx_bytes. The file shares one version with the runner's events.
constexpr int kMetricsVersion = 2;

class MetricsWriter {
 public:
  // Opens `path` for appending ("-" = stdout). Throws InputError if it cannot.
  MetricsWriter(const std::string& path, int rank);
  ~MetricsWriter();
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  // Adds "v", "event", "rank" and "ts" (Unix time, seconds) to `fields`.
  // Throws std::runtime_error naming the file when the line cannot be
  // written (a full disk).
  void write(const std::string& event, nlohmann::json fields);

 private:
  std::FILE* file_ = nullptr;
  bool owned_ = false;
  int rank_;
  std::string path_;
};

// Seconds since the Unix epoch, with microseconds.
double unix_time_s();

}  // namespace fabriclab::trainer
