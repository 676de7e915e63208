// Where a scenario's ranks are launched (runner/scenario/job_places.h),
// against a fake lab network of four hosts: the first N hosts without a
// placement; with one, several ranks per host numbered as torchrun numbers
// a node's ranks, and MASTER_ADDR at rank 0's host.
#include "runner/scenario/job_places.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fabriclab::runner {
namespace {

class FourHosts : public LabNetwork {
 public:
  int world_size() const override { return 4; }
  std::string master_addr() const override { return "10.77.1.1"; }
  std::vector<LocalRank> local_ranks() const override {
    std::vector<LocalRank> hosts;
    for (int i = 0; i < 4; ++i)
      hosts.push_back({i, i, 4, 100 + i, "fl-x-r" + std::to_string(i), "10.77.1." + std::to_string(i + 1)});
    return hosts;
  }
  std::vector<netem::Target> impairment_targets(const std::vector<int>&, netem::Direction) const override {
    return {};
  }
  std::vector<CounterSource> counter_sources() const override { return {}; }
};

TEST(JobPlaces, WithoutAPlacementRankKRunsOnHostK) {
  const JobPlaces job = place_job(FourHosts(), 2, {});
  EXPECT_EQ(job.world, 2);
  EXPECT_EQ(job.master_addr, "10.77.1.1");
  ASSERT_EQ(job.local.size(), 2u);
  EXPECT_EQ(job.local[1].rank, 1);
  EXPECT_EQ(job.local[1].netns_fd, 101);
  EXPECT_EQ(place_job(FourHosts(), 0, {}).world, 4) << "0 ranks: every host";
}

TEST(JobPlaces, RanksOnOneHostShareItsNamespaceAndAddress) {
  const JobPlaces job = place_job(FourHosts(), 0, {2, 2, 0, 2});
  EXPECT_EQ(job.world, 4);
  EXPECT_EQ(job.master_addr, "10.77.1.3") << "rank 0 is on r2";
  ASSERT_EQ(job.local.size(), 4u);
  for (int rank : {0, 1, 3}) {
    const LocalRank& local = job.local[static_cast<size_t>(rank)];
    EXPECT_EQ(local.rank, rank);
    EXPECT_EQ(local.netns_fd, 102);
    EXPECT_EQ(local.bind_addr, "10.77.1.3");
    EXPECT_EQ(local.local_world_size, 3);
  }
  EXPECT_EQ(job.local[0].local_rank, 0);
  EXPECT_EQ(job.local[1].local_rank, 1);
  EXPECT_EQ(job.local[3].local_rank, 2);
  EXPECT_EQ(job.local[2].netns_fd, 100);
  EXPECT_EQ(job.local[2].local_rank, 0);
  EXPECT_EQ(job.local[2].local_world_size, 1);
}

TEST(JobPlaces, AHostTheNetworkLacksIsRefused) {
  EXPECT_THROW(place_job(FourHosts(), 0, {0, 7}), std::invalid_argument);
}

}  // namespace
}  // namespace fabriclab::runner
