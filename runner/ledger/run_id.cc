#include "runner/ledger/run_id.h"

#include <cstdio>
#include <random>

namespace fabriclab::runner {

std::string make_run_id() {
  std::random_device random;
  char id[8];
  std::snprintf(id, sizeof(id), "%06x", static_cast<unsigned>(random()) & 0xffffffu);
  return id;
}

bool is_valid_run_id(const std::string& id) {
  if (id.empty() || id.size() > 8) return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

}  // namespace fabriclab::runner
