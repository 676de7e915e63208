// The sysctl reader and writer's own contract, without touching a value:
// the path a key maps to, and the errors a missing key gives. Writes into a
// lab namespace are tested where they are made (the topology's forwarding
// and ECMP hash, a scenario's sysctl setting and its refusal).
#include "common/namespace_sysctl.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace fabriclab {
namespace {

TEST(NamespaceSysctl, AKeyMapsToItsProcPathAsSysctlWritesIt) {
  EXPECT_EQ(sysctl_path("net.ipv4.ip_forward"), "/proc/sys/net/ipv4/ip_forward");
  EXPECT_EQ(sysctl_path("net.ipv6.conf.all.disable_ipv6"), "/proc/sys/net/ipv6/conf/all/disable_ipv6");
}

TEST(NamespaceSysctl, ReadsAKeyOfThisNamespace) {
  const std::string value = read_sysctl(-1, "net.ipv4.ip_forward");
  EXPECT_TRUE(value == "0" || value == "1") << value;
}

TEST(NamespaceSysctl, AMissingKeyIsNamedWithItsPath) {
  try {
    read_sysctl(-1, "net.ipv4.no_such_key");
    FAIL() << "read a key that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "sysctl net.ipv4.no_such_key: not found in this kernel "
                 "(/proc/sys/net/ipv4/no_such_key)");
  }
  try {
    write_sysctl(-1, "net.ipv4.no_such_key", "1");
    FAIL() << "wrote a key that does not exist";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "sysctl net.ipv4.no_such_key=1: the kernel refused it (No such file or directory)");
  }
  EXPECT_FALSE(try_write_sysctl(-1, "net.ipv4.no_such_key", "1"));
}

}  // namespace
}  // namespace fabriclab
