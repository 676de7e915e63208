// A fabric uplink that fails while the job runs (lab.toml `link_fault` with
// `links = ["tor0-spine0"]` and a detection time, runner/lab/
// link_fault_spec.h). At a step or a time of the job the uplink's upper end
// -- the spine's port -- is set down by rtnetlink, so the ToR's end loses
// its carrier (an optic failing). Linux keeps forwarding over a next hop
// whose link is down (net.ipv4.conf.*.ignore_routes_with_linkdown is 0):
// like a router waiting for BFD, the ToR keeps hashing flows onto the dead
// uplink, and the other ToR keeps sending the rack's traffic to a spine that
// can no longer reach it. `detect` later the runner, standing in for BFD and
// the routing protocol, replaces each ToR's ECMP route that used the link
// with the same route over the links left (routed_fabric.h,
// UplinkReroute): every flow hashes onto the surviving spine. The link
// comes up after the fault's length, and `detect` after that the full
// routes are put back (and the spine's own, which the kernel flushed when
// its port went down).
//
// Events (recordings/FORMAT.md): `link_down`, `route_withdrawn`, `link_up`,
// `route_restored`, each with every uplink's byte counters at that moment,
// and at the end `uplink_phases`: each uplink's bytes per phase of the
// fault (before, blackhole, rerouted, recovering, after).
//
// Cleanup: finish() and the destructor set a port still down up again and
// restore the routes; a run killed mid-fault leaves them in namespaces that
// `fabriclab cleanup` removes with the rest (the ledger has them).
// Errors: poll() throws std::runtime_error when the kernel refuses a change;
// the runner fails the scenario with it.
// Thread safety: one owner, one thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/lab/link_fault_spec.h"
#include "runner/scenario/scenario_fault.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

class NetnsLinks;

class UplinkFault : public ScenarioFault {
 public:
  // `places`: the uplinks that fail (LabNetwork::uplink_fault_place);
  // `uplinks`: every uplink's counter source (LabNetwork::counter_sources()
  // with `uplink`), read at each change. Reads the counters once now: the
  // start of the `before` phase.
  UplinkFault(const LinkFaultSpec& spec, std::vector<UplinkFaultPlace> places,
              std::vector<CounterSource> uplinks);
  ~UplinkFault() override;  // the port up and the routes back if the fault is still on
  UplinkFault(const UplinkFault&) = delete;
  UplinkFault& operator=(const UplinkFault&) = delete;

  std::vector<Event> poll(Clock::time_point now, int64_t steps_done,
                          int64_t any_rank_steps) override;
  Clock::duration due_in(Clock::time_point now) const override;
  std::vector<Event> finish() override;

 private:
  enum class Phase { kWaiting, kDown, kWithdrawn, kUp, kDone };
  void set_ports(bool up);
  nlohmann::json change_routes(const std::vector<RouteChange> UplinkFaultPlace::*which);
  nlohmann::json links_json() const;
  // Every uplink's {up, down} bytes now, and the same appended to the phase marks.
  nlohmann::json mark(const std::string& phase_end);
  Event phases_event() const;
  Event link_up_event(int64_t steps_done, bool cut_short);
  Event restored_event(int64_t steps_done, bool cut_short);

  LinkFaultSpec spec_;
  FaultStart start_;
  std::vector<UplinkFaultPlace> places_;
  std::vector<CounterSource> uplinks_;
  std::map<std::string, std::unique_ptr<NetnsLinks>> sockets_;  // by namespace name
  Phase phase_ = Phase::kWaiting;
  Clock::time_point down_at_{};
  Clock::time_point up_at_{};
  // The counters at each phase's end, in order: {"name", {link: {up, down}}, ts}.
  struct Mark {
    std::string phase;  // the phase that ends here
    std::map<std::string, std::pair<uint64_t, uint64_t>> bytes;  // link -> up, down
    Clock::time_point at;
  };
  std::vector<Mark> marks_;
};

}  // namespace fabriclab::runner
