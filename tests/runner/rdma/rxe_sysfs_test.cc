// What the RoCE workload reads from sysfs (runner/rdma/rxe_counters.h,
// roce_gid.h), against a fake /sys/class/infiniband laid out as Debian's
// 6.1 kernel lays out rxe's (doc/roce.md, section 1): this build machine has
// no RDMA. The VM pair reads the real one (tests/vm/roce-allreduce.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/temp_dir.h"
#include "runner/rdma/roce_gid.h"
#include "runner/rdma/rxe_counters.h"

namespace fabriclab::runner::rdma {
namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text << "\n";
}

class RxeSysfs : public ::testing::Test {
 protected:
  TempDir sysfs{"fabriclab-rxe-sysfs"};
  std::filesystem::path port() const { return sysfs.path() / "fabriclab_eth0" / "ports" / "1"; }
};

TEST_F(RxeSysfs, CountersAreReadWithoutLifespanAndSubtracted) {
  write(port() / "hw_counters" / "sent_pkts", "14356");
  write(port() / "hw_counters" / "rcvd_seq_err", "0");
  write(port() / "hw_counters" / "lifespan", "10");
  const RdmaCounters before = read_rdma_counters("fabriclab_eth0", 1, sysfs.path().string());
  EXPECT_EQ(before.size(), 2u);
  EXPECT_EQ(before.at("sent_pkts"), 14356u);
  write(port() / "hw_counters" / "sent_pkts", "37660");
  write(port() / "hw_counters" / "rcvd_seq_err", "122");
  write(port() / "hw_counters" / "completer_retry_err", "7");  // absent before: from 0
  const RdmaCounters since = rdma_counters_since(
      read_rdma_counters("fabriclab_eth0", 1, sysfs.path().string()), before);
  EXPECT_EQ(since.at("sent_pkts"), 23304u);
  EXPECT_EQ(since.at("rcvd_seq_err"), 122u);
  EXPECT_EQ(since.at("completer_retry_err"), 7u);
  EXPECT_TRUE(read_rdma_counters("no_such_device", 1, sysfs.path().string()).empty());
}

TEST_F(RxeSysfs, CounterThatWentBackwardsReadsZero) {
  EXPECT_EQ(rdma_counters_since({{"sent_pkts", 5}}, {{"sent_pkts", 9}}).at("sent_pkts"), 0u);
}

TEST_F(RxeSysfs, GidIndexIsTheLabAddresssRoceV2Gid) {
  EXPECT_EQ(ipv4_mapped_gid("10.99.0.2"), "0000:0000:0000:0000:0000:ffff:0a63:0002");
  // GID 0: the link-local IPv6; then one per IPv4 address, in the order added.
  write(port() / "gids" / "0", "fe80:0000:0000:0000:5054:00ff:fe12:3401");
  write(port() / "gids" / "1", "0000:0000:0000:0000:0000:ffff:0a62:0002");  // 10.98.0.2
  write(port() / "gids" / "2", "0000:0000:0000:0000:0000:ffff:0a63:0002");  // 10.99.0.2
  for (int i = 0; i < 3; ++i) write(port() / "gid_attrs" / "types" / std::to_string(i), "RoCE v2");
  EXPECT_EQ(roce_gid_index("fabriclab_eth0", "10.99.0.2", 1, sysfs.path().string()), 2);
  EXPECT_EQ(roce_gid_index("fabriclab_eth0", "10.98.0.2", 1, sysfs.path().string()), 1);
  try {
    roce_gid_index("fabriclab_eth0", "10.99.0.9", 1, sysfs.path().string());
    FAIL() << "no GID for 10.99.0.9";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no RoCE v2 GID for 10.99.0.9"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("2=0000:0000:0000:0000:0000:ffff:0a63:0002"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace fabriclab::runner::rdma
