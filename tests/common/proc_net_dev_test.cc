// /proc/net/dev as the kernel prints it: the header, devices, a counter so
// large it touches the colon, and lines that are not devices.
#include "common/proc_net_dev.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "common/temp_dir.h"

namespace fabriclab {
namespace {

// Captured from a lab namespace (fl-...-r0) and shortened; eth0's rx_bytes
// fills its column so the colon touches it, as in the kernel's "%6s:%8llu".
constexpr char kProcNetDev[] =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo:    1400      14    0    0    0     0          0         0     1400      14    0    "
    "0    0     0       0          0\n"
    "  eth0:123456789012 9001    0    3    0     0          0         0 987654321  8002    0    "
    "0    0     0       0          0\n";

TEST(ProcNetDev, ParsesBytesAndPacketsOfEachDirection) {
  const auto devices = parse_proc_net_dev(kProcNetDev);
  ASSERT_EQ(devices.size(), 2u);
  const DeviceCounters& eth0 = devices.at("eth0");
  EXPECT_EQ(eth0.rx_bytes, 123456789012u);
  EXPECT_EQ(eth0.rx_packets, 9001u);
  EXPECT_EQ(eth0.tx_bytes, 987654321u);
  EXPECT_EQ(eth0.tx_packets, 8002u);
  EXPECT_EQ(devices.at("lo").tx_packets, 14u);
}

TEST(ProcNetDev, SkipsLinesThatAreNotDevices) {
  EXPECT_TRUE(parse_proc_net_dev("").empty());
  EXPECT_TRUE(parse_proc_net_dev("  eth0: 1 2 3\n").empty()) << "too few fields";
  EXPECT_TRUE(parse_proc_net_dev("  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 x\n").empty());
  EXPECT_TRUE(parse_proc_net_dev("   : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n").empty());
}

TEST(ProcNetDev, CountersSinceNeverWrap) {
  const DeviceCounters before{100, 10, 200, 20};
  const DeviceCounters now{150, 11, 260, 25};
  const DeviceCounters delta = counters_since(now, before);
  EXPECT_EQ(delta.rx_bytes, 50u);
  EXPECT_EQ(delta.rx_packets, 1u);
  EXPECT_EQ(delta.tx_bytes, 60u);
  EXPECT_EQ(delta.tx_packets, 5u);
  // A device recreated between the samples starts again from zero.
  const DeviceCounters reset = counters_since(DeviceCounters{5, 1, 5, 1}, before);
  EXPECT_EQ(reset.rx_bytes, 0u);
  EXPECT_EQ(reset.tx_packets, 0u);
}

TEST(ProcNetDev, ReadsOneDeviceFromAFile) {
  TempDir dir("procnetdev");
  const std::string path = dir.file("dev");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(kProcNetDev, f);
    std::fclose(f);
  }
  ASSERT_TRUE(read_device_counters(path, "eth0"));
  EXPECT_EQ(read_device_counters(path, "eth0")->tx_bytes, 987654321u);
  EXPECT_FALSE(read_device_counters(path, "eth1"));
  EXPECT_FALSE(read_device_counters(dir.file("missing"), "eth0"));
}

TEST(ProcNetDev, ReadsThisProcessLoopback) {
  // Every namespace has lo; its counters only grow.
  ASSERT_TRUE(read_device_counters("/proc/self/net/dev", "lo"));
}

}  // namespace
}  // namespace fabriclab
