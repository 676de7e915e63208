// One suite over every impairment backend the kernel offers (as Gloo runs
// each algorithm test over every transport): through netem/impairment.h only,
// on a real veth link between two namespaces (VethLab, IPv6 off so exactly
// the test's packets cross the impairment), each backend must
//   - delay: hold every ping at least the configured delay, and count the
//     packets (how much longer is the bench's: no wall-clock bound here);
//   - loss: drop the configured share, and count every drop;
//   - remove: leave nothing when its handle goes (the link carries traffic and
//     its own remove_leftovers() finds nothing);
//   - remove leftovers: find what a killed run of it left on a device by
//     fabriclab's reserved names, remove that and nothing else.
// A backend this kernel cannot run (netem without sch_netem; userspace
// without NFQUEUE) is skipped, saying why (netem/backend_probe.h). What only
// one backend does is tested in its own folder's tests (netlink_backend_test,
// userspace/userspace_backend_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "common/ping_output.h"
#include "netem/backend_probe.h"
#include "netem/impairment.h"
#include "netem/spec_parse.h"
#include "tests/netem/veth_lab.h"
#include "tests/support/ci_skip.h"
#include "tests/support/kernel_features.h"

namespace fabriclab::netem {
namespace {

using testing::CommandResult;
using testing::VethLab;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

// A backend, and how to leave behind by hand what a killed run of it leaves
// (and something that only looks similar, which must stay).
struct BackendCase {
  BackendKind kind;
  std::string name;
  std::string make_leftover;  // shell command, run inside namespace a
  std::string show_leftover;  // shell command listing it
  std::string leftover;       // what show_leftover prints for it
  std::string make_foreign;   // someone else's object on the same device or namespace
  std::string foreign;        // what show_leftover prints for that
};

const BackendCase kNetem{BackendKind::kNetem, "netem",
                         // An htb root with fabriclab's handle: what the peer filter
                         // builds, and creatable without sch_netem.
                         "tc qdisc add dev eth0 root handle fab0: htb default 1",
                         "tc qdisc show dev eth0", "fab0:", "", ""};
const BackendCase kUserspace{
    BackendKind::kUserspace, "userspace",         "nft add table ip fabriclab_eth0_in",
    "nft list tables",       "fabriclab_eth0_in", "nft add table ip someone_else",
    "someone_else"};

void PrintTo(const BackendCase& c, std::ostream* os) { *os << c.name; }

class ImpairmentTest : public ::testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    const std::string reason = VethLab::skip_reason();
    if (!reason.empty()) SKIP_OR_FAIL_IN_CI(reason);
    lab_ = std::make_unique<VethLab>();
    target_.netns = lab_->ns_a();
    target_.device = VethLab::kDevice;
    BackendOptions options;
    options.seed = 42;  // the userspace model's; the kernel's netem has its own
    backend_ = make_backend(GetParam().kind, options);
  }

  // For tests that apply an impairment: marks the test skipped when this
  // kernel cannot run the backend (the test then returns: IsSkipped()).
  // Whether it can is asked of tc and nft (kernel_features.h), not of the
  // backend's own probe, which must then agree.
  void require_backend() {
    std::string why;
    const bool here = GetParam().kind == BackendKind::kNetem ? fabriclab::testing::kernel_has_netem(&why)
                                                             : fabriclab::testing::kernel_has_nfqueue(&why);
    if (!here)
      GTEST_SKIP() << "the " << GetParam().name << " backend cannot run on this kernel: " << why;
    const BackendProbe probe = probe_backend(GetParam().kind);
    ASSERT_EQ(probe.availability, Availability::kYes)
        << "tc/nft can, but the " << probe.name << " backend's probe says: " << probe.why;
  }

  std::unique_ptr<Applied> apply(const std::string& spec) {
    return backend_->apply(target_, parse_spec(spec));
  }

  // `count` pings from a to b; per-packet RTTs.
  std::vector<double> ping_rtts(int count, const std::string& interval = "0.02") {
    CommandResult r = lab_->in_a("ping -n -c " + std::to_string(count) + " -i " + interval +
                                 " -W 10 " + VethLab::kAddrB);  // -W: a hang guard
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return fabriclab::ping_rtts_ms(r.output);
  }

  bool has_leftover() {
    return lab_->in_a(GetParam().show_leftover).output.find(GetParam().leftover) !=
           std::string::npos;
  }

  std::unique_ptr<VethLab> lab_;
  Target target_;
  std::unique_ptr<Backend> backend_;
};

TEST_P(ImpairmentTest, DelayRaisesRttByTheConfiguredDelay) {
  require_backend();
  if (IsSkipped()) return;
  auto applied = apply("delay 20ms");
  std::vector<double> rtts = ping_rtts(30);
  ASSERT_EQ(rtts.size(), 30u);
  // The delay is a floor: a packet is never released before it has been held
  // 20 ms. How far above it the median lands is the scheduler's on a shared
  // CPU: `fabriclab bench impair` prints it against the configured delay
  // (doc/ci.md), no test bounds it.
  EXPECT_GE(*std::min_element(rtts.begin(), rtts.end()), 20.0);
  Stats s = applied->stats();
  // IPv4 echo requests: IPv6 is off. ARP is not IP (the userspace backend's
  // rule never sees it) but goes through a qdisc like any packet.
  if (GetParam().kind == BackendKind::kUserspace) {
    EXPECT_EQ(s.packets, 30u);
  } else {
    EXPECT_GE(s.packets, 30u);
  }
  EXPECT_EQ(s.drops, 0u);
  EXPECT_GE(s.bytes, 30u * 84);  // 84-byte IPv4 echo requests
  EXPECT_NE(applied->describe().find("delay 20ms"), std::string::npos) << applied->describe();
}

TEST_P(ImpairmentTest, LossMatchesTheConfiguredRate) {
  require_backend();
  if (IsSkipped()) return;
  target_.peers = {VethLab::kAddrB};  // only IP towards b: the counts are exact
  auto applied = apply("loss 10%");
  const int n = 4000;
  // -W 5: a reply the machine was slow to deliver must not count as lost
  // (ping waits that long only for replies still missing at the end).
  CommandResult r =
      lab_->in_a("ping -n -q -c " + std::to_string(n) + " -i 0.0005 -W 5 " + VethLab::kAddrB);
  testing::PingResult ping = testing::parse_ping(r.output);
  ASSERT_TRUE(ping.ok) << r.output;
  ASSERT_EQ(ping.transmitted, n);
  const int lost = ping.transmitted - ping.received;
  // Every loss is ours, and every echo request went through the impairment.
  Stats s = applied->stats();
  EXPECT_EQ(s.packets, static_cast<uint64_t>(n));
  EXPECT_EQ(s.drops, static_cast<uint64_t>(lost));
  // Binomial(4000, 0.1): mean 400, sd 19; +-4.5 sd never fails by chance.
  EXPECT_NEAR(lost, 400, 4.5 * std::sqrt(n * 0.1 * 0.9)) << r.output;
}

TEST_P(ImpairmentTest, RemovingTheHandleRestoresTheLinkAndLeavesNothing) {
  require_backend();
  if (IsSkipped()) return;
  auto applied = apply("delay 50ms");
  EXPECT_GE(median(ping_rtts(5)), 50.0);
  applied.reset();
  const Leftovers left = backend_->remove_leftovers(target_, /*dry_run=*/true);
  EXPECT_TRUE(left.ok);
  EXPECT_TRUE(left.removed.empty()) << left.removed.front();
  EXPECT_FALSE(has_leftover()) << lab_->in_a(GetParam().show_leftover).output;
  // The link carries traffic again (nothing is held: no rule, no qdisc
  // above); not "fast", which a loaded CPU decides.
  EXPECT_EQ(ping_rtts(10).size(), 10u);
}

// Needs no impairment of the backend's own, only its reserved names: runs
// even where the backend cannot (netem's leftover is an htb root).
TEST_P(ImpairmentTest, RemoveLeftoversRemovesFabriclabsObjectsOnly) {
  const BackendCase& c = GetParam();
  CommandResult made = lab_->in_a(c.make_leftover);
  if (made.exit_code != 0) SKIP_OR_FAIL_IN_CI("cannot make a leftover by hand: " << made.output);
  if (!c.make_foreign.empty()) {
    ASSERT_EQ(lab_->in_a(c.make_foreign).exit_code, 0);
  }

  const Leftovers dry = backend_->remove_leftovers(target_, /*dry_run=*/true);
  EXPECT_TRUE(dry.ok);
  ASSERT_EQ(dry.removed.size(), 1u);
  EXPECT_NE(dry.removed[0].find("would remove"), std::string::npos) << dry.removed[0];
  EXPECT_TRUE(has_leftover()) << "a dry run removed something";

  const Leftovers done = backend_->remove_leftovers(target_, /*dry_run=*/false);
  EXPECT_TRUE(done.ok);
  EXPECT_EQ(done.removed.size(), 1u);
  EXPECT_FALSE(has_leftover()) << lab_->in_a(c.show_leftover).output;
  if (!c.foreign.empty()) {
    EXPECT_NE(lab_->in_a(c.show_leftover).output.find(c.foreign), std::string::npos)
        << "removed something that was not fabriclab's";
  }

  const Leftovers again = backend_->remove_leftovers(target_, /*dry_run=*/false);
  EXPECT_TRUE(again.ok);
  EXPECT_TRUE(again.removed.empty());
}

// A link fault's change of impairment (netem::Applied::change): in place,
// on the same handle, and back. With loss 100% no ping gets through; back
// to the delay, every one does and is held at least that delay; the
// counters go on across both changes; removing the handle then leaves
// nothing. No time bound: "at least" and "none" only.
TEST_P(ImpairmentTest, ChangeReplacesTheImpairmentInPlaceAndBack) {
  require_backend();
  if (IsSkipped()) return;
  auto applied = apply("delay 20ms");
  ASSERT_EQ(ping_rtts(5).size(), 5u);
  applied->change(parse_spec("loss 100%"));
  EXPECT_NE(applied->describe().find("loss 100%"), std::string::npos) << applied->describe();
  const CommandResult lost = lab_->in_a("ping -n -c 5 -i 0.02 -W 1 " + std::string(VethLab::kAddrB));
  EXPECT_NE(lost.exit_code, 0) << lost.output;
  EXPECT_NE(lost.output.find(" 0 received"), std::string::npos) << lost.output;
  EXPECT_GE(applied->stats().drops, 5u);
  applied->change(parse_spec("delay 20ms"));
  std::vector<double> rtts = ping_rtts(5);
  ASSERT_EQ(rtts.size(), 5u);
  EXPECT_GE(*std::min_element(rtts.begin(), rtts.end()), 20.0);
  EXPECT_GE(applied->stats().packets, 15u) << "the counters started again at a change";
  applied.reset();
  EXPECT_FALSE(has_leftover());
  EXPECT_TRUE(backend_->remove_leftovers(target_, /*dry_run=*/true).removed.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, ImpairmentTest, ::testing::Values(kNetem, kUserspace),
                         [](const ::testing::TestParamInfo<BackendCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace fabriclab::netem
