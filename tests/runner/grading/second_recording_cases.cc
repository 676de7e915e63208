#include "tests/runner/grading/second_recording_cases.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/build_paths.h"

namespace fabriclab::runner::grading::testing {

namespace fs = std::filesystem;

// The reference with these scenarios' measurements moved under each other's
// names (X <- Y: X now holds what Y measured) and a seed that draws other
// ranks. Each was picked so that every run-dependent exercise's expected
// value moves:
const std::vector<LabCase>& lab_cases() {
  static const std::vector<LabCase> cases = {
    // One scenario, nothing to swap: the model learned less, every eval 4
    // points lower (step 800: 0.8509 -> 0.8109, outside the 0.005).
    {"01", {{}, -0.04}},
    // latency holds the stalled run, loss latency's, both loss's: latency's
    // slowdown, loss over latency, how both ended (completed now) and
    // latency's net ms and round trips move; part 2 swapped: the default
    // run's net ms is 641 (3.2 round trips, not 4.1).
    {"02",
     {{{"latency", "both"},
       {"loss", "latency"},
       {"both", "loss"},
       {"long-steps", "long-steps-linux"},
       {"long-steps-linux", "long-steps"}}}},
    // large-4 holds small-2 (2 ranks: 4.21 B/param, overhead 5.3%): the
    // 175B syncs move (22.0 -> 14.7 s), the overhead by more than its 0.002
    // (0.0466 -> 0.0533), and large-4 / large-2 per parameter is 1.0, so
    // why-more-ranks' right option is "same", no longer "ring".
    {"03", {{{"large-4", "small-2"}, {"small-2", "large-4"}}}},
    // The sweeps swapped (busbw 0.0235 -> 0.00608, x base 0.26 -> 3.9) and a
    // seed that slows another rank than r2.
    {"04", {{{"clean", "slow"}, {"slow", "clean"}}}},
    // The cases rotated: the slow worker is now case-a, the lossy link
    // case-b (its others' wait 0.41, x clean 1.02); and another seed.
    {"05", {{{"case-a", "case-b"}, {"case-b", "case-c"}, {"case-c", "case-a"}}}},
    // The two slowdowns swapped: idle s, $ and the worst stall all move.
    {"06", {{{"long-link", "flaky-link"}, {"flaky-link", "long-link"}}}},
    // The sweeps swapped point for point (loss-5 has no nosack twin and stays):
    // SACK's curve doubles where nosack's did, nosack's never ("none").
    {"07",
     {{{"loss-0", "nosack-0"},
       {"nosack-0", "loss-0"},
       {"loss-0p1", "nosack-0p1"},
       {"nosack-0p1", "loss-0p1"},
       {"loss-0p5", "nosack-0p5"},
       {"nosack-0p5", "loss-0p5"},
       {"loss-1", "nosack-1"},
       {"nosack-1", "loss-1"},
       {"loss-2", "nosack-2"},
       {"nosack-2", "loss-2"}}}},
    // The port modes rotated: "ecn" retransmitted 979 and marked nothing,
    // "lossless" paused nothing and its victim waited 0.7 ms, p99 reordered:
    // no mode cut the retransmissions tenfold without pausing (none), and
    // no one paid for pauses (nobody).
    {"08", {{{"taildrop", "lossless"}, {"ecn", "taildrop"}, {"lossless", "ecn"}}}},
    // Placements swapped in pairs. same-host <-> cross-spine: same-host
    // carries 422 MB (same-host-bytes: "fabric", not "loopback"), cross-spine
    // is the fastest (switch-hops: "not-slower"; x same-host 0.13), the p50
    // order moves; same-tor <-> ecmp-a: ecmp-a has no tenant and no hot
    // spine (tenant-spine: no option right); ecmp-b <-> ecmp-c: only ecmp-c
    // collided (tenant 79 Mb/s), where ecmp-a and ecmp-b had.
    {"09",
     {{{"same-host", "cross-spine"},
       {"cross-spine", "spine-fail"},
       {"same-tor", "ecmp-a"},
       {"ecmp-a", "same-tor"},
       {"ecmp-b", "ecmp-c"},
       {"ecmp-c", "ecmp-b"},
       // spine-fail takes same-host's run (and cross-spine spine-fail's): no
       // uplink failed, so no rerouted_slowdown (half-the-spines) and no
       // shares (flows-back: none).
       {"spine-fail", "same-host"}}}},
    // ring-5ms holds hd-1ms's sweep (halving-doubling at 1 ms) and hd-5ms
    // bcube-5ms's: ring-5ms's alpha (12.3 -> 1.9 ms) and crossover (2 MiB ->
    // 104 KiB) move, and with them the 5 ms / 1 ms ratio (4.47 -> 0.23); its
    // round trips now cost less than hd-5ms's (pick-small: ring), and its
    // busbw at its largest size 0.0186 against hd-5ms's 0.0143 (pick-large:
    // ring, not either). Swapping ring-5ms with hd-1ms alone left
    // pick-large at "either" (0.0186 against 0.0174, since the 64 MiB sweep).
    {"11",
     {{{"ring-5ms", "hd-1ms"},
       {"hd-1ms", "ring-5ms"},
       {"hd-5ms", "bcube-5ms"},
       {"bcube-5ms", "hd-5ms"}}}},
    // reimaged <-> fixed: reimaged now paused nothing (paused-ms 0), its
    // queue p99 is an answering node's (prediction), it cost less than
    // clean or about as much (minutes-lost), and fixed paused (the-fix: no
    // longer "marks-not-pauses"); another seed, another node.
    {"12", {{{"reimaged", "fixed"}, {"fixed", "reimaged"}}}},
    // The 16-rank job's clean and tail runs swapped: tail-16's median step
    // is the clean one (its ratios to tail-2 and clean-16 move), it has no
    // slowest-of-16 figure or prediction (which-model: neither).
    {"10", {{{"tail-16", "clean-16"}, {"clean-16", "tail-16"}}}},
    // flap-2s holds clean's run, flap-3s flap-1s's, flap-1s flap-2s's,
    // clean flap-3s's:
    // flap-2s has no link fault (no stall to predict, no recovery_s;
    // why-longer: "none"), flap-3s backed off twice (backoff-3s 4 -> 2;
    // the reference's flap-2s backed off four times too, so it would not
    // move it); another seed, another rank.
    {"13",
     {{{"flap-2s", "clean"},
       {"flap-3s", "flap-1s"},
       {"flap-1s", "flap-2s"},
       {"clean", "flap-3s"}}}},
    // roce-0 and roce-0p5 swapped (the RoCE sweep's base moves); roce-1
    // holds tcp-0p5's measurements (a TCP run: no resent_per_lost, "none";
    // why-roce-pays: "other"; its busbw another share of roce-0's than 0.39), tcp-1 roce-1's (a RoCE run: next to no TCP retransmissions
    // per drop), tcp-0p5 tcp-1's; roce-2 and tcp-2 swapped (x base 5.12 and
    // 4.90 instead of 5.92 and 4.24).
    {"14",
     {{{"roce-0", "roce-0p5"},
       {"roce-0p5", "roce-0"},
       {"roce-1", "tcp-0p5"},
       {"tcp-0p5", "tcp-1"},
       {"tcp-1", "roce-1"},
       {"roce-2", "tcp-2"},
       {"tcp-2", "roce-2"}}}},
};
  return cases;
}

void PrintTo(const LabCase& c, std::ostream* out) { *out << "lab " << c.id; }

std::string reference_recording(const std::string& lab_id) {
  const fs::path root = fabriclab::build_paths::source_dir();
  for (const auto& entry : fs::directory_iterator(root / "recordings")) {
    if (entry.path().filename().string().rfind(lab_id + "-", 0) == 0 &&
        fs::exists(entry.path() / "run.json"))
      return entry.path().string();
  }
  return "";
}



Expected expected_of(const Exercise& ex, const LabDefinition& lab, const GradedRun& rec) {
  try {
    return {false, derive(ex, lab, rec)};
  } catch (const std::exception&) {
    return {true, {}};  // the grader fails the exercise saying why
  }
}

void PrintTo(Moved m, std::ostream* out) {
  *out << (m == Moved::kYes  ? "moved"
           : m == Moved::kNo ? "not moved"
                             : "moved within the tolerance");
}

Moved compare(const Exercise& ex, const Expected& first, const Expected& second) {
  if (first.error || second.error) return first.error == second.error ? Moved::kNo : Moved::kYes;
  const Value& a = first.value;
  const Value& b = second.value;
  if (a.type != b.type) return Moved::kYes;
  switch (a.type) {
    case Value::Type::kNull:
      return Moved::kNo;
    case Value::Type::kNumber: {
      // The grader's own rule (grader.cc): within the tolerance of the expected value.
      const double allowed = std::max({ex.tolerance.absolute,
                                       ex.tolerance.relative_percent / 100 * std::fabs(b.number),
                                       1e-9 * std::max(1.0, std::fabs(b.number))});
      const double moved = std::fabs(a.number - b.number);
      if (moved <= 1e-9 * std::max(1.0, std::fabs(b.number))) return Moved::kNo;
      return moved > allowed ? Moved::kYes : Moved::kUnclear;
    }
    case Value::Type::kText:
      return a.text == b.text ? Moved::kNo : Moved::kYes;
    case Value::Type::kList: {
      if (a.list == b.list) return Moved::kNo;
      if (ex.kind != Kind::kChoice) return Moved::kYes;  // an ordering: another order
      // Several options may be right; a student's key fails only when none
      // right before is right now.
      for (const std::string& key : a.list) {
        if (std::find(b.list.begin(), b.list.end(), key) != b.list.end()) return Moved::kUnclear;
      }
      return Moved::kYes;
    }
  }
  return Moved::kUnclear;
}


}  // namespace fabriclab::runner::grading::testing
