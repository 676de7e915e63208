// A test hook for fault injection: with FABRICLAB_FAULT_AT=<point> in its
// environment, the process SIGKILLs itself the first time it reaches the
// named point -- a deterministic "killed right here", where a test's sleep
// before `kill -9` would land anywhere. Without the variable (every real
// run) fault_point() is one comparison with an empty string.
//
// Points, in the order a run reaches them (namespace mode / host mode):
//   topology_built      the lab network exists, nothing else yet (namespaces)
//   impairment_applied  a scenario's link settings are on, no rank runs yet
//   ranks_launched      the scenario's ranks were started
//   mid_scenario        every rank of the scenario has reported 2 steps
//   ranks_stopped       teardown: ranks stopped, link settings still on
//   teardown            teardown: one namespace removed, the others not yet
//                       (namespaces)
// tests/runner/cli/fault_matrix_test.cc kills a run at each of them and
// checks that `fabriclab cleanup` leaves nothing of it.
//
// The process writes "fault point <point>: SIGKILL" to stderr first, so a
// test can tell the point was reached from a kill that came earlier.
//
// With FABRICLAB_FAULT_STOP=1 as well, it SIGSTOPs itself first (every
// thread, the userspace backend's workers too) and the SIGKILL follows only
// once it is continued (SIGCONT). That window is for a test to read the
// kernel state the point has made (namespaces, nft tables, qdiscs, ranks)
// before the kill lands, and then check that `fabriclab cleanup` removed
// exactly those objects (tests/support/kernel_state.h).
#pragma once

namespace fabriclab {

inline constexpr const char* kFaultAtVariable = "FABRICLAB_FAULT_AT";
inline constexpr const char* kFaultStopVariable = "FABRICLAB_FAULT_STOP";

// SIGKILLs the calling process if FABRICLAB_FAULT_AT names `point` (after a
// SIGSTOP if FABRICLAB_FAULT_STOP=1).
void fault_point(const char* point);

}  // namespace fabriclab
