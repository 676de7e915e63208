// What the model learned: its last loss and accuracy (null for a workload that trains nothing).
#include <map>
#include <optional>
#include <utility>

#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// final_loss: the mean over ranks of each one's loss at its highest step;
// accuracy: the last eval's.
void compute_training(const ScenarioEvents& in, ScenarioResult& result) {
  std::map<int, std::pair<int, std::optional<double>>> last;  // rank -> (step, loss)
  for (const json& event : in.events) {
    const std::string kind = event_kind(event);
    if (kind == "eval") result.accuracy = number_field(event, "accuracy");
    if (kind != "step") continue;
    const int rank = static_cast<int>(number_field(event, "rank"));
    const int step = static_cast<int>(number_field(event, "step"));
    const std::optional<double> loss =
        event.contains("loss") ? std::optional<double>(number_field(event, "loss")) : std::nullopt;
    auto& [last_step, last_loss] = last[rank];
    if (step >= last_step) last_step = step, last_loss = loss;
  }
  double loss_sum = 0;
  int ranks = 0;
  for (const auto& [rank, step_loss] : last) {
    if (step_loss.first > 0 && step_loss.second) loss_sum += *step_loss.second, ++ranks;
  }
  if (ranks > 0) result.final_loss = loss_sum / ranks;
}

}  // namespace

ResultPart training_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {
      "training",
      "",
      {
          field("final_loss", "", K::kNumber, "mean over ranks of each rank's last step's loss",
                &R::final_loss),
          field("accuracy", "share", K::kNumber, "the last eval event's accuracy", &R::accuracy),
      },
      compute_training};
}

}  // namespace fabriclab::runner::report
