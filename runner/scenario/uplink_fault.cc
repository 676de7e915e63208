#include "runner/scenario/uplink_fault.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "runner/scenario/netns_counters.h"
#include "runner/topology/netns_links.h"

namespace fabriclab::runner {
namespace {

ScenarioFault::Clock::duration seconds(double s) {
  return std::chrono::duration_cast<ScenarioFault::Clock::duration>(std::chrono::duration<double>(s));
}

// "tor1: 10.77.1.0/24 via 10.78.3.0 (to-spine1)", as `ip route` would say it.
std::string describe(const RouteChange& c) {
  std::string via;
  for (const NetnsLinks::NextHop& hop : c.hops)
    via += (via.empty() ? "" : ", ") + hop.gateway + " (" + hop.device + ")";
  return c.router + ": " + c.destination + "/" + std::to_string(c.prefix_len) + " via " + via;
}

}  // namespace

UplinkFault::UplinkFault(const LinkFaultSpec& spec, std::vector<UplinkFaultPlace> places,
                         std::vector<CounterSource> uplinks)
    : spec_(spec), start_(spec), places_(std::move(places)), uplinks_(std::move(uplinks)) {
  const auto socket_for = [this](int fd, const std::string& netns) {
    if (!sockets_.count(netns)) sockets_[netns] = std::make_unique<NetnsLinks>(fd, netns);
  };
  for (const UplinkFaultPlace& place : places_) {
    socket_for(place.down.netns_fd, place.down.netns);
    for (const RouteChange& c : place.withdraw) socket_for(c.netns_fd, c.netns);
    for (const RouteChange& c : place.restore) socket_for(c.netns_fd, c.netns);
  }
  mark("start");
}

UplinkFault::~UplinkFault() {
  if (phase_ == Phase::kWaiting || phase_ == Phase::kDone) return;
  try {
    if (phase_ != Phase::kUp) set_ports(true);
    change_routes(&UplinkFaultPlace::restore);
  } catch (const std::exception& e) {
    spdlog::warn("uplink fault: could not set the uplink and its routes back: {}", e.what());
  }
}

void UplinkFault::set_ports(bool up) {
  for (const UplinkFaultPlace& place : places_) {
    NetnsLinks& links = *sockets_.at(place.down.netns);
    if (up)
      links.set_up(place.down.device);
    else
      links.set_down(place.down.device);
  }
}

nlohmann::json UplinkFault::change_routes(const std::vector<RouteChange> UplinkFaultPlace::*which) {
  nlohmann::json routes = nlohmann::json::array();
  for (const UplinkFaultPlace& place : places_) {
    for (const RouteChange& c : place.*which) {
      sockets_.at(c.netns)->replace_route(c.destination, c.prefix_len, c.hops);
      routes.push_back(describe(c));
    }
  }
  return routes;
}

nlohmann::json UplinkFault::links_json() const {
  nlohmann::json links = nlohmann::json::array();
  for (const UplinkFaultPlace& place : places_) links.push_back(place.down.link);
  return links;
}

nlohmann::json UplinkFault::mark(const std::string& phase_end) {
  Mark m{phase_end, {}, Clock::now()};
  nlohmann::json bytes = nlohmann::json::object();
  for (const CounterSource& source : uplinks_) {
    const std::optional<DeviceCounters> c = read_device_counters_in(source.netns_fd, source.device);
    if (!c) continue;  // counters are for the report only
    m.bytes[source.link] = {c->tx_bytes, c->rx_bytes};
    bytes[source.link] = {{"up", c->tx_bytes}, {"down", c->rx_bytes}};
  }
  marks_.push_back(std::move(m));
  return bytes;
}

UplinkFault::Event UplinkFault::phases_event() const {
  nlohmann::json phases = nlohmann::json::array();
  for (size_t i = 1; i < marks_.size(); ++i) {
    const Mark& from = marks_[i - 1];
    const Mark& to = marks_[i];
    nlohmann::json bytes = nlohmann::json::object();
    for (const auto& [link, now] : to.bytes) {
      const auto was = from.bytes.find(link);
      if (was == from.bytes.end()) continue;
      const auto delta = [](uint64_t b, uint64_t a) { return b >= a ? b - a : 0; };
      bytes[link] = {{"up", delta(now.first, was->second.first)},
                     {"down", delta(now.second, was->second.second)}};
    }
    phases.push_back({{"phase", to.phase}, {"s", seconds_between(from.at, to.at)}, {"bytes", bytes}});
  }
  return {"uplink_phases", {{"links", links_json()}, {"phases", phases}}};
}

UplinkFault::Event UplinkFault::link_up_event(int64_t steps_done, bool cut_short) {
  nlohmann::json fields = {{"links", links_json()},
                           {"down_s", seconds_between(down_at_, up_at_)},
                           {"steps_done", steps_done},
                           {"uplink_bytes", mark("rerouted")}};
  if (cut_short) {
    fields["cut_short"] = true;
    fields.erase("steps_done");
  }
  return {"link_up", fields};
}

UplinkFault::Event UplinkFault::restored_event(int64_t steps_done, bool cut_short) {
  nlohmann::json fields = {{"links", links_json()},
                           {"routes", change_routes(&UplinkFaultPlace::restore)},
                           {"after_up_s", seconds_between(up_at_, Clock::now())},
                           {"steps_done", steps_done},
                           {"uplink_bytes", mark("recovering")}};
  if (cut_short) {
    fields["cut_short"] = true;
    fields.erase("steps_done");
  }
  return {"route_restored", fields};
}

std::vector<UplinkFault::Event> UplinkFault::poll(Clock::time_point now, int64_t steps_done,
                                                  int64_t any_rank_steps) {
  std::vector<Event> events;
  const bool due = start_.due(now, steps_done, any_rank_steps);
  switch (phase_) {
    case Phase::kWaiting: {
      if (!due) break;
      set_ports(false);
      down_at_ = Clock::now();
      phase_ = Phase::kDown;
      spdlog::info("uplink fault: {} down", links_json().dump());
      events.push_back({"link_down",
                        {{"links", links_json()},
                         {"planned_down_s", spec_.length_s},
                         {"detect_s", spec_.detect_s},
                         {"fault", print_link_fault(spec_)},
                         {"steps_done", steps_done},
                         {"uplink_bytes", mark("before")}}});
      break;
    }
    case Phase::kDown:
      if (now - down_at_ < seconds(spec_.detect_s)) break;
      phase_ = Phase::kWithdrawn;
      events.push_back({"route_withdrawn",
                        {{"links", links_json()},
                         {"routes", change_routes(&UplinkFaultPlace::withdraw)},
                         {"after_down_s", seconds_between(down_at_, Clock::now())},
                         {"steps_done", steps_done},
                         {"uplink_bytes", mark("blackhole")}}});
      break;
    case Phase::kWithdrawn:
      if (now - down_at_ < seconds(spec_.length_s)) break;
      set_ports(true);
      up_at_ = Clock::now();
      phase_ = Phase::kUp;
      events.push_back(link_up_event(steps_done, false));
      break;
    case Phase::kUp:
      if (now - up_at_ < seconds(spec_.detect_s)) break;
      phase_ = Phase::kDone;
      events.push_back(restored_event(steps_done, false));
      break;
    case Phase::kDone:
      break;
  }
  return events;
}

UplinkFault::Clock::duration UplinkFault::due_in(Clock::time_point now) const {
  Clock::time_point due;
  switch (phase_) {
    case Phase::kDown: due = down_at_ + seconds(spec_.detect_s); break;
    case Phase::kWithdrawn: due = down_at_ + seconds(spec_.length_s); break;
    case Phase::kUp: due = up_at_ + seconds(spec_.detect_s); break;
    default: return Clock::duration::max();
  }
  return std::max(Clock::duration::zero(), due - now);
}

std::vector<UplinkFault::Event> UplinkFault::finish() {
  std::vector<Event> events;
  if (phase_ == Phase::kWaiting) return events;  // it never went down: nothing to tell
  if (phase_ == Phase::kDown) mark("blackhole");  // cut short before the routers learnt of it
  if (phase_ == Phase::kDown || phase_ == Phase::kWithdrawn) {
    set_ports(true);
    up_at_ = Clock::now();
    events.push_back(link_up_event(0, true));
    phase_ = Phase::kUp;
  }
  if (phase_ == Phase::kUp) {
    events.push_back(restored_event(0, true));
    phase_ = Phase::kDone;
  }
  mark("after");
  events.push_back(phases_event());
  return events;
}

}  // namespace fabriclab::runner
