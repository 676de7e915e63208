// What the scenario runner's live line and watchdog know about one rank,
// taken from the events it writes (doc/metrics.md), and the job's progress
// over its ranks: the step every rank has finished is the slowest's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/scenario/metrics_tail.h"

namespace fabriclab::runner {

struct RankState {
  int rank = 0;  // global rank
  std::unique_ptr<MetricsTail> tail;
  std::string log_path;
  int64_t last_step = 0;
  double last_loss = 0;
  double last_step_ms = 0;
  double last_busbw = -1;  // GB/s of the last size; -1: not an allreduce sweep
  int64_t planned_steps = 0;
  bool started = false;   // its `start` event came: it has joined the job (rendezvous done)
  bool finished = false;  // its `final` event came: it only has to exit
  // Its steps after the first (the first carries the warm-up): time in
  // them, and time of it blocked in the allreduce -- the share the per-rank
  // table reports after the run, live.
  double stepped_ms = 0;
  double waited_ms = 0;

  // Takes one of its events (step, start, final; others leave it as it is).
  void take(const nlohmann::json& event);
};

// The step every rank has finished (0 with no ranks).
int64_t steps_done(const std::vector<RankState>& states);

// What the watchdog counts as progress: every rank's steps, plus one for each
// rank that reported its start (its rendezvous over the impaired link is
// done), so a slow start-up and a slow first step are judged apart.
int64_t progress_made(const std::vector<RankState>& states);

}  // namespace fabriclab::runner
