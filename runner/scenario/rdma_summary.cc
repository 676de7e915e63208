#include "runner/scenario/rdma_summary.h"

#include <cstdint>

namespace fabriclab::runner {

namespace {
uint64_t count(const nlohmann::json& counters, const char* name) {
  return counters.contains(name) && counters[name].is_number_integer() && counters[name] >= 0
             ? counters[name].get<uint64_t>()
             : 0;
}
}  // namespace

nlohmann::json rdma_summary(const std::vector<nlohmann::json>& events,
                            const nlohmann::json& baseline) {
  nlohmann::json hosts = nlohmann::json::array();
  uint64_t sent = 0, rcvd = 0, naks = 0, timeouts = 0;
  for (const nlohmann::json& event : events) {
    if (event.value("event", "") != "rdma_counters") continue;
    const nlohmann::json counters = event.value("counters", nlohmann::json::object());
    hosts.push_back({{"host", event.value("host", "")},
                     {"device", event.value("device", "")},
                     {"counters", counters}});
    sent += count(counters, "sent_pkts");
    rcvd += count(counters, "rcvd_pkts");
    naks += count(counters, "rcvd_seq_err");
    timeouts += count(counters, "completer_retry_err");
  }
  if (hosts.empty()) return nullptr;
  nlohmann::json summary = {{"hosts", hosts},        {"sent_pkts", sent},
                            {"rcvd_pkts", rcvd},     {"lost_pkts", sent >= rcvd ? sent - rcvd : 0},
                            {"naks", naks},          {"ack_timeouts", timeouts}};
  if (baseline.is_object() && baseline.contains("sent_pkts")) {
    const uint64_t needed = baseline["sent_pkts"].get<uint64_t>();
    const uint64_t resent = sent >= needed ? sent - needed : 0;
    summary["resent_pkts"] = resent;
    const uint64_t lost = summary["lost_pkts"].get<uint64_t>();
    summary["resent_per_lost"] =
        lost > 0 ? nlohmann::json(static_cast<double>(resent) / static_cast<double>(lost))
                 : nlohmann::json();
  }
  return summary;
}

}  // namespace fabriclab::runner
