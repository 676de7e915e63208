#include "runner/scenario/rank_state.h"

#include <algorithm>

namespace fabriclab::runner {

void RankState::take(const nlohmann::json& event) {
  const std::string kind = event.value("event", "");
  if (kind == "step") {
    last_step = event.value("step", int64_t{0});
    last_loss = event.value("loss", 0.0);
    last_step_ms = event.value("step_ms", 0.0);
    last_busbw = event.value("busbw", -1.0);
    if (last_step > 1) {
      stepped_ms += last_step_ms;
      waited_ms += event.value("comm_ms", 0.0);
    }
  } else if (kind == "start") {
    started = true;
    planned_steps = event.value("steps", int64_t{0});
  } else if (kind == "final") {
    finished = true;
  }
}

int64_t steps_done(const std::vector<RankState>& states) {
  int64_t done = states.empty() ? 0 : states.front().last_step;
  for (const RankState& st : states) done = std::min(done, st.last_step);
  return done;
}

int64_t progress_made(const std::vector<RankState>& states) {
  int64_t progress = 0;
  for (const RankState& st : states) progress += st.last_step + (st.started ? 1 : 0);
  return progress;
}

}  // namespace fabriclab::runner
