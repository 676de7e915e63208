// Bytes on the wire per rank and step against a ring allreduce's 2(N-1)/N x S
// (runner/report/wire_bytes.h).
#include "runner/report/result/parts.h"
#include "runner/report/result/scenario_events.h"

namespace fabriclab::runner::report {
namespace {

using nlohmann::json;

// wire_bytes.h computes them (its table shows their inputs too); a
// scenario without steps has none.
void compute_wire_bytes(const ScenarioEvents& in, ScenarioResult& result) {
  if (!has_steps(in.events)) return;
  result.tx_bytes_per_step = in.wire.tx_bytes_per_step;
  result.ring_bytes = in.wire.ring_bytes;
  result.wire_overhead = in.wire.wire_overhead;
  result.wire_bytes_per_param = in.wire.wire_bytes_per_param;
}

}  // namespace

ResultPart wire_bytes_part() {
  using K = FieldKind;
  using R = ScenarioResult;
  return {"wire_bytes",
          "",
          {
              field("tx_bytes_per_step", "bytes", K::kNumber,
                    "bytes each rank's lab device sent per step, measured", &R::tx_bytes_per_step),
              field("ring_bytes", "bytes", K::kNumber,
                    "2(N-1)/N x S: the ring's payload per rank and step", &R::ring_bytes),
              field("wire_overhead", "ratio", K::kNumber, "tx_bytes_per_step / ring_bytes - 1",
                    &R::wire_overhead),
              field("wire_bytes_per_param", "bytes", K::kNumber, "tx_bytes_per_step / params",
                    &R::wire_bytes_per_param),
          },
          compute_wire_bytes};
}

}  // namespace fabriclab::runner::report
