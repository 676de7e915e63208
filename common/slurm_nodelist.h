// Slurm's compressed host lists, as SLURM_JOB_NODELIST gives them:
//   "node07"                  -> node07
//   "node[01-04,07]"          -> node01 node02 node03 node04 node07
//   "a[1-2]-b[3-4],gpu9"      -> a1-b3 a1-b4 a2-b3 a2-b4 gpu9
// A range keeps its lower bound's zero padding ("[08-10]" -> 08 09 10).
// The order is Slurm's: items left to right, each bracket group's values
// in order, the rightmost group varying fastest.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace fabriclab {

// std::invalid_argument naming the list, the position and what was expected
// for a malformed list (empty, an empty item, an unclosed or nested bracket,
// a range that runs backwards, letters in a range), or one of more than
// 65,536 hosts.
std::vector<std::string> expand_slurm_nodelist(const std::string& list);

}  // namespace fabriclab
