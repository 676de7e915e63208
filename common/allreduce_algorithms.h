// The allreduce algorithms a lab (and `fabriclab bench allreduce
// --algorithm`) can ask Gloo for, and how many sequential message
// exchanges each makes on N ranks: the "steps" of the alpha-beta model
// time = alpha x steps + bytes / bandwidth (runner/report/alpha_beta_fit.h).
// Shared by the workload's check, the rank that runs it and the report that
// fits it, so all three agree on the names and the counts.
//
//   ring              gloo::allreduce (what the workload ran before it had
//                     this parameter, and still the default): reduce-scatter
//                     then allgather around a ring, 2(N-1) steps
//   ring_chunked      Gloo's AllreduceRingChunked: the same two passes over
//                     2N chunks, two in flight, 2(N-1) steps
//   halving_doubling  Gloo's AllreduceHalvingDoubling: recursive halving
//                     (reduce-scatter), then doubling (allgather), 2 log2 N
//   bcube             Gloo's AllreduceBcube with its default base 2: groups
//                     of two per step, 2 ceil(log2 N) steps
//
// For N not a power of two, halving_doubling adds the exchanges between its
// binary blocks; the count above is then a lower bound.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace fabriclab {

inline const std::vector<std::string>& allreduce_algorithm_names() {
  static const std::vector<std::string> names = {"ring", "ring_chunked", "halving_doubling",
                                                 "bcube"};
  return names;
}

inline const char* default_allreduce_algorithm() { return "ring"; }

inline bool is_allreduce_algorithm(const std::string& name) {
  for (const std::string& known : allreduce_algorithm_names())
    if (known == name) return true;
  return false;
}

// "ring, ring_chunked, halving_doubling or bcube": for error messages.
inline std::string allreduce_algorithm_list() {
  const std::vector<std::string>& names = allreduce_algorithm_names();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

// Sequential exchanges of one allreduce on `ranks` ranks; 0 for an unknown
// name or fewer than two ranks.
inline int allreduce_latency_steps(const std::string& name, int ranks) {
  if (ranks < 2) return 0;
  const int log2_ranks = static_cast<int>(std::ceil(std::log2(ranks)));
  if (name == "ring" || name == "ring_chunked") return 2 * (ranks - 1);
  if (name == "halving_doubling" || name == "bcube") return 2 * log2_ranks;
  return 0;
}

}  // namespace fabriclab
