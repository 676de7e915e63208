// The step's tx/rx bytes: which interface a rank measures (never loopback,
// never a guess) and the delta over an interval, from a /proc/net/dev file a
// test rewrites between the two reads.
#include "trainer/wire_bytes.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstdio>

#include "common/temp_dir.h"

namespace fabriclab::trainer {
namespace {

void write_proc_net_dev(const std::string& path, uint64_t rx_bytes, uint64_t tx_bytes,
                        uint64_t rx_packets = 10, uint64_t tx_packets = 20) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fprintf(f,
               "Inter-|   Receive                                                |  Transmit\n"
               " face |bytes    packets errs drop fifo frame compressed multicast|bytes    "
               "packets errs drop fifo colls carrier compressed\n"
               "  eth0: %llu %llu 0 0 0 0 0 0 %llu %llu 0 0 0 0 0 0\n",
               static_cast<unsigned long long>(rx_bytes),
               static_cast<unsigned long long>(rx_packets),
               static_cast<unsigned long long>(tx_bytes),
               static_cast<unsigned long long>(tx_packets));
  std::fclose(f);
}

TEST(WireBytes, DeltaOverTheIntervalPerDirection) {
  TempDir dir("wire-bytes");
  const std::string path = dir.file("dev");
  write_proc_net_dev(path, 1000, 5000);
  WireBytes wire("eth0", path);
  wire.start();
  write_proc_net_dev(path, 1600, 9000, 13, 25);
  const nlohmann::json fields = wire.since_start();
  EXPECT_EQ(fields["tx_bytes"], 4000);
  EXPECT_EQ(fields["rx_bytes"], 600);
  EXPECT_EQ(fields["tx_packets"], 5);
  EXPECT_EQ(fields["rx_packets"], 3);
}

TEST(WireBytes, NothingMeasuredAddsNoFieldsAndAFailedReadAddsNulls) {
  WireBytes none("");
  none.start();
  EXPECT_TRUE(none.since_start().empty());

  TempDir dir("wire-bytes");
  WireBytes gone("eth9", dir.file("dev"));
  gone.start();
  const nlohmann::json fields = gone.since_start();
  EXPECT_TRUE(fields["tx_bytes"].is_null());
  EXPECT_TRUE(fields["rx_bytes"].is_null());
  EXPECT_TRUE(fields["tx_packets"].is_null());
}

TEST(WireBytes, LoopbackAndUnknownAddressesAreNotMeasured) {
  EXPECT_EQ(lab_interface("", "127.0.0.1"), "") << "ranks on one machine talk over lo";
  EXPECT_EQ(lab_interface("lo", ""), "");
  EXPECT_EQ(lab_interface("", ""), "") << "Gloo would pick by host name: no guessing";
  EXPECT_EQ(lab_interface("", "192.0.2.77"), "") << "no interface holds it (TEST-NET-1)";
  EXPECT_EQ(lab_interface("no-such-if0", ""), "");
}

TEST(WireBytes, TheInterfaceHoldingTheBindAddressIsMeasured) {
  // Any non-loopback IPv4 address of this machine stands for a lab address.
  ifaddrs* list = nullptr;
  ASSERT_EQ(::getifaddrs(&list), 0);
  std::string device, address;
  for (const ifaddrs* e = list; e != nullptr && device.empty(); e = e->ifa_next) {
    if (e->ifa_addr == nullptr || e->ifa_addr->sa_family != AF_INET) continue;
    if (e->ifa_flags & IFF_LOOPBACK) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(e->ifa_addr)->sin_addr, text,
              sizeof text);
    device = e->ifa_name;
    address = text;
  }
  ::freeifaddrs(list);
  if (device.empty()) GTEST_SKIP() << "this machine has no non-loopback IPv4 address";
  EXPECT_EQ(lab_interface("", address), device);
  EXPECT_EQ(lab_interface(device, "127.0.0.1"), device) << "--iface wins, as in Gloo";
}

}  // namespace
}  // namespace fabriclab::trainer
