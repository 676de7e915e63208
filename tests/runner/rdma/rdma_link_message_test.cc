// Our RDMA netlink messages against iproute2's rdma tool, byte for byte
// (sequence number and port id aside): against the committed capture from
// Debian's 6.1 kernel (fixtures/rdma_link.strace), and live where the kernel
// has RDMA netlink (the stock-kernel VM pair runs this binary:
// tests/vm/roce-checks.sh). The live tests also create and delete a device
// through runner/rdma/ and check the ledger entry of RxeDevice.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/build_paths.h"
#include "common/temp_dir.h"
#include "runner/ledger/ledger.h"
#include "runner/rdma/rdma_link_message.h"
#include "runner/rdma/rdma_links.h"
#include "runner/rdma/rxe_device.h"

namespace fabriclab::runner::rdma {
namespace {

using Bytes = std::vector<uint8_t>;

// One message of a `strace -xx` sendto line: the header strace decoded
// (len, type, flags; seq and pid left 0) followed by the payload it printed.
std::optional<Bytes> message_of(const std::string& line, const std::string& type_hex) {
  std::smatch m;
  static const std::regex header(
      R"(nlmsg_len=(\d+), nlmsg_type=0x([0-9a-f]+)[^,]*, nlmsg_flags=([A-Z_|0-9x]+))");
  if (!std::regex_search(line, m, header) || m[2].str() != type_hex) return std::nullopt;
  const uint32_t len = std::stoul(m[1].str());
  const uint16_t type = static_cast<uint16_t>(std::stoul(m[2].str(), nullptr, 16));
  uint16_t flags = 0;
  std::stringstream words(m[3].str());
  for (std::string w; std::getline(words, w, '|');) {
    if (w == "NLM_F_REQUEST")
      flags |= NLM_F_REQUEST;
    else if (w == "NLM_F_ACK")
      flags |= NLM_F_ACK;
    else if (w == "NLM_F_DUMP")
      flags |= NLM_F_DUMP;
    else
      flags |= static_cast<uint16_t>(std::stoul(w, nullptr, 16));
  }
  Bytes bytes(16, 0);
  std::memcpy(bytes.data(), &len, 4);
  std::memcpy(bytes.data() + 4, &type, 2);
  std::memcpy(bytes.data() + 6, &flags, 2);
  const size_t quote = line.find('"', m.position(0));
  if (quote != std::string::npos) {
    for (size_t i = quote + 1; i + 3 < line.size() && line.compare(i, 2, "\\x") == 0; i += 4)
      bytes.push_back(static_cast<uint8_t>(std::stoul(line.substr(i + 2, 2), nullptr, 16)));
  }
  return bytes;
}

std::optional<Bytes> find_message(const std::string& strace_text, const std::string& type_hex) {
  std::stringstream in(strace_text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("sendto(", 0) == 0 || line.rfind("sendmsg(", 0) == 0)
      if (auto bytes = message_of(line, type_hex)) return bytes;
  return std::nullopt;
}

// "" when equal apart from nlmsg_seq and nlmsg_pid (bytes 8..15).
std::string difference(Bytes ours, Bytes theirs) {
  if (ours.size() != theirs.size())
    return "length " + std::to_string(ours.size()) + " vs " + std::to_string(theirs.size());
  for (size_t i = 0; i < ours.size(); ++i)
    if ((i < 8 || i >= 16) && ours[i] != theirs[i])
      return "byte " + std::to_string(i) + ": ours " + std::to_string(ours[i]) + ", rdma's " +
             std::to_string(theirs[i]);
  return "";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

TEST(RdmaLinkMessage, MatchesTheRdmaToolsCaptureFromDebians61) {
  const std::string text = read_text(std::string(build_paths::source_dir()) +
                                     "/tests/runner/rdma/fixtures/rdma_link.strace");
  ASSERT_FALSE(text.empty());
  const auto add = find_message(text, "1403");
  const auto del = find_message(text, "1404");
  const auto dump = find_message(text, "1401");
  ASSERT_TRUE(add && del && dump) << "fixture lacks a NEWLINK, DELLINK or dump line";
  EXPECT_EQ(difference(build_newlink("fabriclab_va", "rxe", "va", 7), *add), "");
  EXPECT_EQ(difference(build_dellink(0, 7), *del), "");
  EXPECT_EQ(difference(build_device_dump(7), *dump), "");
  // And the comparison can fail: another name, another index.
  EXPECT_NE(difference(build_newlink("fabriclab_vb", "rxe", "va", 7), *add), "");
  EXPECT_NE(difference(build_dellink(1, 7), *del), "");
}

TEST(RdmaLinkMessage, NamesTheDeviceAfterItsInterface) {
  EXPECT_EQ(rxe_device_name("eth0"), "fabriclab_eth0");
}

// Where the kernel has RDMA netlink: NETLINK_RDMA opens (the kernel loads
// ib_core on demand). A kernel without it (this project's build machines)
// skips: what the kernel can do, not a missing tool.
bool kernel_has_rdma_netlink(std::string* why) {
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
  if (fd < 0) {
    *why = std::string("this kernel has no RDMA netlink: ") + std::strerror(errno);
    return false;
  }
  ::close(fd);
  if (::geteuid() != 0) {
    *why = "needs root (creates an RDMA device)";
    return false;
  }
  return true;
}

// A veth pair in the initial namespace for the device; removed at the end.
struct Veth {
  Veth() {
    ok = std::system("ip link add flrd0 type veth peer name flrd1 && ip link set flrd0 up") == 0;
  }
  ~Veth() { std::system("ip link del flrd0 2>/dev/null"); }
  bool ok = false;
};

TEST(RdmaLinkLive, RdmaToolSendsOurBytesOnThisKernel) {
  std::string why;
  if (!kernel_has_rdma_netlink(&why)) GTEST_SKIP() << why;
  Veth veth;
  ASSERT_TRUE(veth.ok);
  const std::string strace = "strace -e trace=sendto,sendmsg -xx -s 4096 ";
  const std::string added = run(strace + "rdma link add fltest_rd type rxe netdev flrd0");
  const auto devices = list_rdma_devices();
  uint32_t index = 0;
  bool found = false;
  for (const RdmaDevice& d : devices)
    found = found || (d.name == "fltest_rd" && d.netdev == "flrd0");
  ASSERT_TRUE(found) << "rdma link add did not make fltest_rd on flrd0:\n" << added;
  const std::string deleted = run(strace + "rdma link delete fltest_rd");
  const auto add = find_message(added, "1403");
  const auto del = find_message(deleted, "1404");
  ASSERT_TRUE(add && del) << added << deleted;
  EXPECT_EQ(difference(build_newlink("fltest_rd", "rxe", "flrd0", 1), *add), "");
  std::memcpy(&index, del->data() + 20, 4);  // DEV_INDEX's u32 after the 4-byte attribute header
  EXPECT_EQ(difference(build_dellink(index, 1), *del), "");
  EXPECT_EQ(rdma_device_on("flrd0"), "");
}

TEST(RdmaLinkLive, RxeDeviceIsInTheLedgerWhileItExists) {
  std::string why;
  if (!kernel_has_rdma_netlink(&why)) GTEST_SKIP() << why;
  Veth veth;
  ASSERT_TRUE(veth.ok);
  TempDir dir("rdma-ledger");
  {
    Ledger ledger("rdtest", dir.path().string());
    {
      RxeDevice device("flrd0", &ledger);
      EXPECT_TRUE(device.created());
      EXPECT_EQ(device.name(), "fabriclab_flrd0");
      EXPECT_EQ(rdma_device_on("flrd0"), "fabriclab_flrd0");
      const nlohmann::json entries = ledger.snapshot().at("entries");
      ASSERT_EQ(entries.size(), 1u);
      EXPECT_EQ(entries[0].at("kind"), "rdma_link");
      EXPECT_EQ(entries[0].at("name"), "fabriclab_flrd0");
      EXPECT_EQ(entries[0].at("netdev"), "flrd0");
      // A second one on the same interface is the first, used as it is.
      RxeDevice again("flrd0", &ledger);
      EXPECT_FALSE(again.created());
      EXPECT_EQ(again.name(), "fabriclab_flrd0");
      EXPECT_EQ(ledger.snapshot().at("entries").size(), 1u);
    }
    EXPECT_EQ(rdma_device_on("flrd0"), "");
    EXPECT_TRUE(ledger.snapshot().at("entries").empty());
  }
  // Cleanup's handler: the device gone, it says so; present, it removes it.
  EXPECT_NE(remove_rxe_device("fabriclab_flrd0", "flrd0", false).find("already gone"),
            std::string::npos);
  add_rxe_link("fabriclab_flrd0", "flrd0");
  EXPECT_NE(remove_rxe_device("fabriclab_flrd0", "flrd0", true).find("would be removed"),
            std::string::npos);
  EXPECT_EQ(rdma_device_on("flrd0"), "fabriclab_flrd0");
  EXPECT_NE(remove_rxe_device("fabriclab_flrd0", "flrd0", false).find("removed"),
            std::string::npos);
  EXPECT_EQ(rdma_device_on("flrd0"), "");
  EXPECT_FALSE(delete_rdma_link("fabriclab_flrd0"));
}

}  // namespace
}  // namespace fabriclab::runner::rdma
