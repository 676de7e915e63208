// run.json's `rdma` (runner/scenario/rdma_summary.h): the hosts' counters
// summed and go-back-N's price derived, with figures of the shape the VM
// pair measured (doc/roce.md).
#include "runner/scenario/rdma_summary.h"

#include <gtest/gtest.h>

namespace fabriclab::runner {
namespace {

nlohmann::json host_event(const std::string& host, uint64_t sent, uint64_t rcvd, uint64_t naks) {
  return {{"event", "rdma_counters"},
          {"host", host},
          {"device", "fabriclab_eth0"},
          {"counters",
           {{"sent_pkts", sent}, {"rcvd_pkts", rcvd}, {"rcvd_seq_err", naks},
            {"completer_retry_err", 3}}}};
}

TEST(RdmaSummary, NoRdmaEventsNoSummary) {
  EXPECT_TRUE(rdma_summary({{{"event", "step"}}}, nullptr).is_null());
}

TEST(RdmaSummary, SumsHostsAndDerivesLostAndResentAgainstTheBaseline) {
  const nlohmann::json clean =
      rdma_summary({host_event("10.99.0.1", 5262, 5262, 0), host_event("10.99.0.2", 5262, 5262, 0)},
                   nullptr);
  EXPECT_EQ(clean["sent_pkts"], 10524u);
  EXPECT_EQ(clean["lost_pkts"], 0u);
  EXPECT_FALSE(clean.contains("resent_pkts"));  // no baseline: nothing to resend against
  const nlohmann::json loss = rdma_summary(
      {host_event("10.99.0.1", 16841, 15934, 57), host_event("10.99.0.2", 16044, 16722, 53),
       {{"event", "step"}}},
      clean);
  EXPECT_EQ(loss["hosts"].size(), 2u);
  EXPECT_EQ(loss["sent_pkts"], 32885u);
  EXPECT_EQ(loss["rcvd_pkts"], 32656u);
  EXPECT_EQ(loss["lost_pkts"], 229u);  // each host's sent that the other never received
  EXPECT_EQ(loss["naks"], 110u);
  EXPECT_EQ(loss["ack_timeouts"], 6u);
  EXPECT_EQ(loss["resent_pkts"], 32885u - 10524u);
  EXPECT_NEAR(loss["resent_per_lost"].get<double>(), (32885.0 - 10524.0) / 229.0, 1e-9);
}

TEST(RdmaSummary, NothingLostGivesNoRatio) {
  const nlohmann::json base = {{"sent_pkts", 100}};
  const nlohmann::json s = rdma_summary({host_event("a", 110, 110, 0)}, base);
  EXPECT_EQ(s["resent_pkts"], 10u);
  EXPECT_TRUE(s["resent_per_lost"].is_null());
}

}  // namespace
}  // namespace fabriclab::runner
