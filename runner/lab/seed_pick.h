// Randomized exercises: what the runner randomizes per run (e.g. which rank's
// link is slow) is derived from the run's seed (run.json "seed") and a label
// naming the choice, so the grader can derive the same answer later.
//
//   seed_pick(seed, label, n) = splitmix64(seed XOR fnv1a64(label)) mod n
//
// fnv1a64 over the label's bytes (offset 14695981039346656037, prime
// 1099511628211); splitmix64 as in Vigna's reference (add 0x9E3779B97F4A7C15,
// then the two xor-shift-multiply rounds). The runner MUST use this function
// when it randomizes a lab, with the label the exercise names. Pure function.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner {

uint64_t seed_pick(uint64_t seed, const std::string& label, uint64_t n);

}  // namespace fabriclab::runner
