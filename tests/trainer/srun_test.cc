// A real `srun` (Debian's slurm-wlm: slurmctld and slurmd on one node, in a
// network namespace) starts four ranks of `fabriclab train`; they find their
// rendezvous in srun's variables alone and train together.
#include <gtest/gtest.h>

#include "common/build_paths.h"
#include "tests/trainer/metrics_reader.h"
#include "tests/trainer/slurm_cluster.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::testing {
namespace {

using namespace std::chrono_literals;

TEST(Srun, FourRanksStartedByARealSrunTrainTogether) {
  const std::string reason = SlurmCluster::skip_reason();
  if (!reason.empty()) SKIP_OR_FAIL_IN_CI(reason);
  SlurmCluster cluster;
  RecordProperty("slurm_start_s", std::to_string(cluster.start_seconds()));
  // As in a batch script: srun starts a shell per task that execs the rank,
  // naming its metrics file after SLURM_PROCID. MASTER_PORT is the script's
  // own export; the master is the first (only) host of SLURM_JOB_NODELIST.
  const std::string metrics = cluster.dir() + "/rank$SLURM_PROCID.jsonl";
  const RunResult r = cluster.srun(
      "--ntasks=4 --export=ALL,MASTER_PORT=29500 /bin/sh -c 'exec " +
          std::string(fabriclab::build_paths::fabriclab_binary()) +
          " train --data synthetic --steps 20 --batch 32 --timeout 60 --metrics " + metrics + "'",
      180s);
  ASSERT_TRUE(r.status.exited) << "srun hung:\n" << r.output;
  ASSERT_EQ(r.status.code, 0) << r.output;

  std::string digest;
  for (int rank = 0; rank < 4; ++rank) {
    const std::string path = cluster.dir() + "/rank" + std::to_string(rank) + ".jsonl";
    const auto starts = read_events(path, "start");
    ASSERT_EQ(starts.size(), 1u) << path << "\n" << r.output;
    EXPECT_EQ(starts[0]["launcher"], "slurm");
    EXPECT_EQ(starts[0]["rank"], rank);
    EXPECT_EQ(starts[0]["world_size"], 4);
    EXPECT_EQ(starts[0]["local_rank"], rank) << "one node: SLURM_LOCALID is the rank";
    EXPECT_EQ(read_events(path, "step").size(), 20u);
    const auto final_event = read_events(path, "final").at(0);
    if (rank == 0) digest = final_event["param_digest"];
    EXPECT_EQ(final_event["param_digest"], digest) << "rank " << rank << " diverged";
  }
}

}  // namespace
}  // namespace fabriclab::testing
