// The table of workloads by name (workload.h). Add a workload here.
#include <stdexcept>

#include "runner/workload/allreduce_workload.h"
#include "runner/workload/command_workload.h"
#include "runner/workload/train_workload.h"
#include "runner/workload/workload.h"

namespace fabriclab::runner {

namespace {

const std::vector<const Workload*>& entries() {
  static const std::vector<const Workload*> table = {&train_workload(), &allreduce_workload(),
                                                    &command_workload()};
  return table;
}

}  // namespace

std::string WorkloadDefinition::param(const std::string& key, const std::string& fallback) const {
  const auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

const Workload& find_workload(const std::string& kind) {
  for (const Workload* w : entries()) {
    if (kind == w->name()) return *w;
  }
  std::string known;
  for (const std::string& name : workload_kinds()) known += (known.empty() ? "" : ", ") + name;
  throw std::invalid_argument("unknown workload '" + kind + "' (known: " + known + ")");
}

std::vector<std::string> workload_kinds() {
  std::vector<std::string> names;
  for (const Workload* w : entries()) names.push_back(w->name());
  return names;
}

}  // namespace fabriclab::runner
