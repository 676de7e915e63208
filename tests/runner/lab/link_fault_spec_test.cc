// link_fault's words (runner/lab/link_fault_spec.h): what a lab author writes
// and what is refused.
#include "runner/lab/link_fault_spec.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace fabriclab::runner {
namespace {

TEST(LinkFaultSpec, ReadsADownTimeAtAStep) {
  const LinkFaultSpec fault = parse_link_fault("down 2s at step 6");
  EXPECT_DOUBLE_EQ(fault.length_s, 2.0);
  EXPECT_EQ(fault.at_step, 6);
  EXPECT_DOUBLE_EQ(fault.at_s, 0.0);
}

TEST(LinkFaultSpec, ReadsMillisecondsAndATime) {
  const LinkFaultSpec fault = parse_link_fault("down 1500ms at 10s");
  EXPECT_DOUBLE_EQ(fault.length_s, 1.5);
  EXPECT_EQ(fault.at_step, 0);
  EXPECT_DOUBLE_EQ(fault.at_s, 10.0);
  EXPECT_DOUBLE_EQ(parse_link_fault("down 0.5s at 250ms").at_s, 0.25);
}

TEST(LinkFaultSpec, ReadsAnUplinksDetectionTime) {
  const LinkFaultSpec fault = parse_link_fault("down 10s at step 8 detect 300ms");
  EXPECT_DOUBLE_EQ(fault.length_s, 10.0);
  EXPECT_EQ(fault.kind, LinkFaultKind::kDown);
  EXPECT_EQ(fault.at_step, 8);
  EXPECT_DOUBLE_EQ(fault.detect_s, 0.3);
  EXPECT_DOUBLE_EQ(parse_link_fault("down 4s at 2s detect 1s").detect_s, 1.0);
  EXPECT_DOUBLE_EQ(parse_link_fault("down 2s at step 6").detect_s, 0.0);  // a rank's link: none
}

TEST(LinkFaultSpec, RefusesADetectionOutOfRange) {
  EXPECT_THROW(parse_link_fault("down 10s at step 8 detect 10ms"), std::invalid_argument);
  EXPECT_THROW(parse_link_fault("down 10s at step 8 detect 6s"), std::invalid_argument);
  // As long as the fault or longer: the routes would never move.
  EXPECT_THROW(parse_link_fault("down 2s at step 8 detect 2s"), std::invalid_argument);
  EXPECT_THROW(parse_link_fault("down 10s at step 8 detect"), std::invalid_argument);
  EXPECT_THROW(parse_link_fault("down 10s detect 1s at step 8"), std::invalid_argument);
  EXPECT_NO_THROW(parse_link_fault("down 10s at step 8 detect 50ms"));
  EXPECT_NO_THROW(parse_link_fault("down 10s at step 8 detect 5s"));
}

TEST(LinkFaultSpec, RefusesADetectionOnAnImpairmentChange) {
  // An impairment change moves no route: there is nothing to detect.
  try {
    parse_link_fault("impair 'loss 5%' for 3s at step 6 detect 300ms");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("detect is for an uplink"), std::string::npos) << e.what();
  }
}

TEST(LinkFaultSpec, PrintsWordsThatReadBackTheSame) {
  for (const char* words : {"down 2s at step 6", "down 1500ms at 10s", "down 0.1s at 0s",
                            "down 10s at step 8 detect 300ms"}) {
    const LinkFaultSpec fault = parse_link_fault(words);
    const LinkFaultSpec again = parse_link_fault(print_link_fault(fault));
    EXPECT_DOUBLE_EQ(again.length_s, fault.length_s) << words;
    EXPECT_EQ(again.at_step, fault.at_step) << words;
    EXPECT_DOUBLE_EQ(again.at_s, fault.at_s) << words;
    EXPECT_DOUBLE_EQ(again.detect_s, fault.detect_s) << words;
  }
}

TEST(LinkFaultSpec, RefusesOtherWords) {
  for (const char* words : {"", "flap 2s at step 6", "down 2 at step 6", "down 2s", "down 2s at step",
                            "down 2s at step 0", "down -1s at step 3", "down 2s at step 3 extra"}) {
    EXPECT_THROW(parse_link_fault(words), std::invalid_argument) << words;
  }
}

TEST(LinkFaultSpec, RefusesADownTimeThatIsNoFlap) {
  EXPECT_THROW(parse_link_fault("down 50ms at step 3"), std::invalid_argument);
  EXPECT_THROW(parse_link_fault("down 61s at step 3"), std::invalid_argument);
  EXPECT_NO_THROW(parse_link_fault("down 100ms at step 3"));
  EXPECT_NO_THROW(parse_link_fault("down 60s at step 3"));
}

TEST(LinkFaultSpec, ReadsAnImpairmentChange) {
  const LinkFaultSpec fault = parse_link_fault("impair 'loss 5%' for 3s at step 6");
  EXPECT_EQ(fault.kind, LinkFaultKind::kImpair);
  EXPECT_EQ(fault.impair, "loss 5%");
  EXPECT_DOUBLE_EQ(fault.length_s, 3.0);
  EXPECT_EQ(fault.at_step, 6);
  const LinkFaultSpec timed = parse_link_fault("impair 'delay 50ms loss 1%' for 1500ms at 2s");
  EXPECT_EQ(timed.impair, "delay 50ms loss 1%");
  EXPECT_DOUBLE_EQ(timed.at_s, 2.0);
  EXPECT_EQ(parse_link_fault("down 2s at step 6").kind, LinkFaultKind::kDown);
}

TEST(LinkFaultSpec, PrintsAnImpairmentChangeThatReadsBackTheSame) {
  const LinkFaultSpec fault = parse_link_fault("impair 'loss 5%' for 3s at 1500ms");
  const LinkFaultSpec again = parse_link_fault(print_link_fault(fault));
  EXPECT_EQ(again.kind, LinkFaultKind::kImpair);
  EXPECT_EQ(again.impair, "loss 5%");
  EXPECT_DOUBLE_EQ(again.length_s, 3.0);
  EXPECT_DOUBLE_EQ(again.at_s, 1.5);
}

TEST(LinkFaultSpec, RefusesAnImpairmentChangeWithoutItsWords) {
  for (const char* words : {"impair 'loss 5%' 3s at step 6", "impair loss 5% for 3s at step 6",
                            "impair '' for 3s at step 6", "impair 'loss 5%' for 3s",
                            "impair \"loss 5%\" for 3s at step 6", "impair 'loss 5%' for 90s at step 6"}) {
    EXPECT_THROW(parse_link_fault(words), std::invalid_argument) << words;
  }
}

}  // namespace
}  // namespace fabriclab::runner
