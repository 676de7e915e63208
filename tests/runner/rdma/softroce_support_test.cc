// Whether this machine can make a SoftRoCE device (runner/rdma/
// softroce_support.h), against a fake /sys/module and /lib/modules laid out
// as Debian's 6.1 lays them out; and the refusal's wording, which names what
// a RoCE lab needs and where to get it (issue 35: this build machine has no
// rdma_rxe, the VM pair has).
#include <sys/utsname.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"
#include "runner/rdma/softroce_support.h"

namespace fabriclab::runner::rdma {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class SoftRoce : public ::testing::Test {
 protected:
  TempDir root{"fabriclab-softroce"};
  std::string sys() const { return (root.path() / "sys" / "module").string(); }
  std::string modules() const { return (root.path() / "lib" / "modules").string(); }
  fs::path release() const {
    utsname u{};
    ::uname(&u);
    return fs::path(modules()) / u.release;
  }
};

TEST_F(SoftRoce, NoModuleTreeCannotTell) {
  const SoftRoceSupport s = softroce_support(sys(), modules());
  EXPECT_FALSE(s.available);
  EXPECT_NE(s.said.find("cannot tell: no " + release().string()), std::string::npos) << s.said;
}

TEST_F(SoftRoce, ATreeWithoutRxeSaysSo) {
  write(release() / "modules.dep", "kernel/net/sched/sch_netem.ko:\n");
  const SoftRoceSupport s = softroce_support(sys(), modules());
  EXPECT_FALSE(s.available);
  EXPECT_EQ(s.said, "no rdma_rxe module under " + release().string());
}

TEST_F(SoftRoce, AModuleOfThisKernelLoadsOnDemand) {
  write(release() / "modules.dep",
        "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko: kernel/drivers/infiniband/core/ib_core.ko\n");
  const SoftRoceSupport s = softroce_support(sys(), modules());
  EXPECT_TRUE(s.available);
  EXPECT_NE(s.said.find("a module of this kernel"), std::string::npos) << s.said;
}

TEST_F(SoftRoce, CompressedModuleAndBuiltInAndLoaded) {
  write(release() / "modules.builtin", "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko\n");
  EXPECT_EQ(softroce_support(sys(), modules()).said, "rdma_rxe is built into the kernel");
  fs::create_directories(fs::path(sys()) / "rdma_rxe");
  EXPECT_EQ(softroce_support(sys(), modules()).said, "rdma_rxe is loaded");
  fs::remove_all(root.path());
  write(release() / "modules.dep", "kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz:\n");
  EXPECT_TRUE(softroce_support(sys(), modules()).available);
}

TEST(RoceNeeds, NamesTheHostsTheVmPairAndTheDoc) {
  const std::string needs = roce_needs("14");
  for (const char* word : {"rdma_rxe", "ibverbs-providers", "--hosts A,B --iface IF",
                           "fabriclab run 14", "tests/vm/vm-pair", "doc/roce.md"})
    EXPECT_NE(needs.find(word), std::string::npos) << word << " not in: " << needs;
}

}  // namespace
}  // namespace fabriclab::runner::rdma
