#include "runner/report/result/result_field.h"

namespace fabriclab::runner::report {

bool ResultField::names(const std::string& key) const {
  if (!per_flow) return key == name;
  const std::string tail = suffix();
  return key.size() > tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_figure(FieldKind kind) {
  return kind == FieldKind::kNumber || kind == FieldKind::kCount || kind == FieldKind::kRank;
}

}  // namespace fabriclab::runner::report
