#include "netem/spec.h"

namespace fabriclab::netem {

bool Spec::operator==(const Spec& o) const {
  return delay_us == o.delay_us && jitter_us == o.jitter_us && delay_corr == o.delay_corr &&
         distribution == o.distribution && loss == o.loss && loss_corr == o.loss_corr &&
         limit_packets == o.limit_packets;
}

}  // namespace fabriclab::netem
