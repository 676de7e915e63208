// The netlink backend against the real kernel, in namespaces this test
// creates (LabNetns). This kernel has no sch_netem, so:
//  - the peer filter (htb root, two classes, u32 filters) is installed for
//    real from the backend's own plan, with a pfifo standing in for the netem
//    leaf; traffic is checked to be classified; it is read back with
//    RTM_GETQDISC and compared with `tc -j qdisc show` / `tc filter show`;
//  - apply() itself is checked to fail with the no-sch_netem wording and to
//    leave nothing behind (on a kernel with netem it must succeed instead);
//  - clear removes only what is fabriclab's unless forced.
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/rtnl_socket.h"
#include "netem/netlink/kernel_error.h"
#include "netem/netlink/netlink_backend.h"
#include "netem/netlink/netlink_probe.h"
#include "netem/netlink/peer_filter.h"
#include "netem/netlink/qdisc_list.h"
#include "netem/spec_parse.h"
#include "tests/netem/lab_netns.h"
#include "tests/support/ci_skip.h"
#include "tests/support/kernel_features.h"

namespace fabriclab::netem {
namespace {

using namespace netlink;

class NetlinkBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = testing::netns_unavailable_reason();
    if (!why.empty()) SKIP_OR_FAIL_IN_CI(why);
    lab_ = std::make_unique<testing::LabNetns>();
    if (!lab_->ok()) SKIP_OR_FAIL_IN_CI(lab_->error());
    target_.netns = lab_->a();
    target_.device = "va";
  }

  // The backend's plan for `peers`, sent for real, netem leaf -> pfifo.
  void install_peer_tree(const std::vector<std::string>& peers) {
    Target t = target_;
    t.peers = peers;
    RtnlSocket sock(t.netns);
    int ifindex = sock.ifindex("va");
    NetlinkBackend backend;
    for (PlannedMessage& m : backend.plan(t, parse_spec("delay 100ms"), ifindex)) {
      if (m.kind == "netem")
        m.bytes = build_plain_qdisc({ifindex, kImpairedClass, kLeafHandle}, "pfifo", 0);
      reinterpret_cast<nlmsghdr*>(m.bytes.data())->nlmsg_seq = sock.next_seq();
      sock.request(m.bytes, m.action);
    }
  }

  uint64_t leaf_packets() {
    for (const QdiscInfo& q : show_qdiscs(target_))
      if (q.handle == kLeafHandle) return q.stats.packets;
    return 0;
  }

  bool has_fabriclab_qdisc() {
    for (const QdiscInfo& q : show_qdiscs(target_))
      if ((q.handle & 0xffff0000u) == kRootHandle || (q.handle & 0xffff0000u) == kLeafHandle)
        return true;
    return false;
  }

  std::unique_ptr<testing::LabNetns> lab_;
  Target target_;
};

// `rate` alone on a tbf (what the backend picks without sch_netem; asked for
// explicitly here, so the test means the same on a kernel with netem): tc
// reads back the rate, burst and limit tbf_qdisc.h derives; packets pass
// through it; the handle removes it; other words are refused before
// anything is sent.
TEST_F(NetlinkBackendTest, RateAloneIsATokenBucketFilter) {
  NetlinkOptions options;
  options.rate_shaper = RateShaper::kTbf;
  NetlinkBackend backend(options);
  EXPECT_TRUE(backend.shapes_with_tbf(parse_spec("rate 100mbit")));
  EXPECT_FALSE(backend.shapes_with_tbf(parse_spec("rate 100mbit delay 1ms")));
  {
    auto applied = backend.apply(target_, parse_spec("rate 100mbit"));
    EXPECT_EQ(applied->describe(),
              "tbf on " + lab_->a() + "/va: rate 100000000bit burst 15140 limit 1514000");
    int st = -1;
    auto tc = nlohmann::json::parse(lab_->in_a("tc -j qdisc show dev va", &st));
    ASSERT_EQ(st, 0);
    ASSERT_FALSE(tc.empty());
    EXPECT_EQ(tc[0].at("kind"), "tbf");
    EXPECT_EQ(tc[0].at("handle"), "fab0:");
    EXPECT_EQ(tc[0].at("options").at("rate"), 12500000);  // bytes/s in tc's JSON
    // tc reads the burst back from the kernel's bucket time (whole ticks).
    EXPECT_NEAR(tc[0].at("options").at("burst").get<double>(), 15140, 16);
    // tc shows the limit as the latency it allows: (limit - burst) / rate, in us.
    EXPECT_NEAR(tc[0].at("options").at("lat").get<double>(), (1514000 - 15140) / 12.5, 2);
    lab_->in_a("ping -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null 2>&1", &st);
    EXPECT_EQ(st, 0) << "nothing passed the shaper";
    EXPECT_GE(applied->stats().packets, 3u);
  }
  EXPECT_FALSE(has_fabriclab_qdisc()) << "the tbf outlived its handle";
}

TEST_F(NetlinkBackendTest, PeerFilterIsInstalledReadBackAndMatchesTc) {
  install_peer_tree({"10.77.0.2", "fd00::2"});

  std::vector<QdiscInfo> ours = show_qdiscs(target_);
  bool root_htb = false, leaf = false;
  for (const QdiscInfo& q : ours) {
    if (q.kind == "htb" && q.handle == kRootHandle && q.parent == TC_H_ROOT) root_htb = true;
    if (q.kind == "pfifo" && q.handle == kLeafHandle && q.parent == kImpairedClass) leaf = true;
  }
  EXPECT_TRUE(root_htb) << "htb fab0: not at the root";
  EXPECT_TRUE(leaf) << "leaf fab2: not under fab0:2";

  // The same qdiscs as tc sees them.
  int st = 0;
  auto tc = nlohmann::json::parse(lab_->in_a("tc -j qdisc show dev va", &st));
  ASSERT_EQ(st, 0);
  std::set<std::pair<std::string, std::string>> from_tc, from_us;
  for (const auto& q : tc)
    from_tc.insert({q["kind"].get<std::string>(), q["handle"].get<std::string>()});
  for (const QdiscInfo& q : ours) from_us.insert({q.kind, format_handle(q.handle)});
  EXPECT_EQ(from_tc, from_us);

  std::string filters = lab_->in_a("tc filter show dev va");
  EXPECT_NE(filters.find("match 0a4d0002/ffffffff at 16"), std::string::npos) << filters;
  EXPECT_NE(filters.find("flowid fab0:2"), std::string::npos) << filters;
  EXPECT_NE(filters.find("match fd000000/ffffffff at 24"), std::string::npos) << filters;
  std::string classes = lab_->in_a("tc class show dev va");
  EXPECT_NE(classes.find("class htb fab0:1"), std::string::npos) << classes;
  EXPECT_NE(classes.find("class htb fab0:2"), std::string::npos) << classes;
}

TEST_F(NetlinkBackendTest, OnlyPeerTrafficGoesThroughTheImpairedClass) {
  install_peer_tree({"10.77.0.2"});
  uint64_t before = leaf_packets();
  lab_->in_a("ping -c 3 -i 0.2 -W 1 10.77.0.3 >/dev/null 2>&1");  // not a peer
  uint64_t after_other = leaf_packets();
  EXPECT_EQ(after_other, before) << "traffic to a non-peer went through the impaired class";
  int st = 0;
  lab_->in_a("ping -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null 2>&1", &st);
  EXPECT_EQ(st, 0) << "peer unreachable through the htb tree";
  EXPECT_GE(leaf_packets(), after_other + 3) << "peer traffic did not reach the impaired leaf";
}

// Host mode with more than two hosts impairs towards several peers at once
// (one u32 filter each, in one priority): every peer's traffic is impaired.
TEST_F(NetlinkBackendTest, SeveralPeersEachGoThroughTheImpairedClass) {
  install_peer_tree({"10.77.0.2", "10.77.0.3"});
  const std::string filters = lab_->in_a("tc filter show dev va");
  EXPECT_NE(filters.find("match 0a4d0002/ffffffff at 16"), std::string::npos) << filters;
  EXPECT_NE(filters.find("match 0a4d0003/ffffffff at 16"), std::string::npos) << filters;
  for (const char* peer : {"10.77.0.2", "10.77.0.3"}) {
    const uint64_t before = leaf_packets();
    int st = 0;
    lab_->in_a(std::string("ping -c 3 -i 0.2 -W 1 ") + peer + " >/dev/null 2>&1", &st);
    EXPECT_EQ(st, 0) << peer << " unreachable through the htb tree";
    EXPECT_GE(leaf_packets(), before + 3) << peer << "'s traffic did not reach the impaired leaf";
  }
}

TEST_F(NetlinkBackendTest, ClearRestoresTheDeviceAndLeavesNothing) {
  install_peer_tree({"10.77.0.2"});
  ASSERT_TRUE(has_fabriclab_qdisc());
  std::string said = clear_impairment(target_, false);
  EXPECT_NE(said.find("removed root htb fab0:"), std::string::npos) << said;
  EXPECT_FALSE(has_fabriclab_qdisc());
  std::string tc = lab_->in_a("tc qdisc show dev va");
  EXPECT_EQ(tc.find("fab"), std::string::npos) << tc;
  EXPECT_EQ(lab_->in_a("tc filter show dev va"), "");
  EXPECT_NE(clear_impairment(target_, false).find("nothing to clear"), std::string::npos);
  int st = 0;
  lab_->in_a("ping -c 1 -W 1 10.77.0.2 >/dev/null 2>&1", &st);
  EXPECT_EQ(st, 0) << "link not usable after clear";
}

TEST_F(NetlinkBackendTest, ClearLeavesAForeignRootAloneUnlessForced) {
  int st = 0;
  lab_->in_a("tc qdisc add dev va root handle 1: htb default 1", &st);
  ASSERT_EQ(st, 0);
  try {
    clear_impairment(target_, false);
    FAIL() << "clear removed a qdisc fabriclab did not create";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not fabriclab's"), std::string::npos) << e.what();
  }
  EXPECT_NE(lab_->in_a("tc qdisc show dev va").find("htb 1:"), std::string::npos);
  EXPECT_NE(clear_impairment(target_, true).find("removed root htb 1:"), std::string::npos);
  EXPECT_EQ(lab_->in_a("tc qdisc show dev va").find("htb"), std::string::npos);
}

TEST_F(NetlinkBackendTest, ApplyEitherWorksOrExplainsMissingNetemAndLeavesNothing) {
  // Whether this kernel has sch_netem is asked of tc (kernel_features.h);
  // the backend's probe must say the same.
  std::string why;
  const Availability support =
      fabriclab::testing::kernel_has_netem(&why) ? Availability::kYes : Availability::kNo;
  std::string probe_why;
  EXPECT_EQ(netlink::probe_backend(&probe_why), support) << why << " / probe: " << probe_why;
  for (bool peers : {false, true}) {
    SCOPED_TRACE(peers ? "with peer filter" : "at the root");
    Target t = target_;
    if (peers) t.peers = {"10.77.0.2"};
    NetlinkBackend backend;
    if (support == Availability::kYes) {
      auto applied = backend.apply(t, parse_spec("delay 20ms loss 1%"));
      EXPECT_TRUE(has_fabriclab_qdisc());
      bool seen = false;
      for (const QdiscInfo& q : show_qdiscs(target_))
        if (q.netem && q.netem->valid) {
          seen = true;
          EXPECT_EQ(q.netem->spec.delay_us, 20000u);
        }
      EXPECT_TRUE(seen);
      applied.reset();
      EXPECT_FALSE(has_fabriclab_qdisc()) << "the handle did not remove its qdisc";
      continue;
    }
    ASSERT_EQ(support, Availability::kNo) << why;
    try {
      backend.apply(t, parse_spec("delay 20ms loss 1%"));
      FAIL() << "apply succeeded on a kernel without sch_netem";
    } catch (const std::runtime_error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("this kernel has no sch_netem"), std::string::npos) << m;
      EXPECT_NE(m.find("modprobe sch_netem"), std::string::npos) << m;
      EXPECT_NE(m.find("linux-modules-extra-$(uname -r)"), std::string::npos) << m;
      EXPECT_NE(m.find("kernel-modules-extra"), std::string::npos) << m;
      EXPECT_NE(m.find("--backend userspace"), std::string::npos) << m;
      EXPECT_NE(m.find("Specified qdisc kind is unknown"), std::string::npos) << m;
    }
    EXPECT_FALSE(has_fabriclab_qdisc()) << "a failed apply left something behind";
    EXPECT_EQ(lab_->in_a("tc filter show dev va"), "");
  }
}

TEST_F(NetlinkBackendTest, NoSuchDeviceIsSaidPlainly) {
  Target t = target_;
  t.device = "nope0";
  try {
    NetlinkBackend().apply(t, parse_spec("delay 1ms"));
    FAIL();
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("no device nope0"), std::string::npos) << m;
    EXPECT_NE(m.find("ip -n " + lab_->a() + " link"), std::string::npos) << m;
  }
}

TEST_F(NetlinkBackendTest, AForeignRootIsNotReplaced) {
  int st = 0;
  lab_->in_a("tc qdisc add dev va root handle 1: htb default 1", &st);
  ASSERT_EQ(st, 0);
  try {
    NetlinkBackend().apply(target_, parse_spec("delay 1ms"));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fabriclab did not create"), std::string::npos)
        << e.what();
  }
  EXPECT_NE(lab_->in_a("tc qdisc show dev va").find("htb 1:"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::netem
