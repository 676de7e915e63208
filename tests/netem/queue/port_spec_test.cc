// A switch port's words (netem/queue/port_spec.h): every policy read and
// printed back, and bad words refused with the word and what was expected.
#include "netem/queue/port_spec.h"

#include <gtest/gtest.h>

#include "common/input_error.h"

namespace fabriclab::netem {
namespace {

std::string error(const std::string& words) {
  try {
    parse_port_spec(words);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(PortSpec, TailDropIsTheDefaultPolicy) {
  const PortSpec s = parse_port_spec("rate 500mbit limit 256kb");
  EXPECT_EQ(s.rate_bytes_per_s, 62'500'000u);
  EXPECT_EQ(s.limit_bytes, 256u * 1024);
  EXPECT_EQ(s.policy, QueuePolicy::kTailDrop);
  EXPECT_EQ(print_port_spec(s), "rate 500mbit limit 256kb taildrop");
}

TEST(PortSpec, EcnWithARedProfileOrOneThreshold) {
  const PortSpec red = parse_port_spec("rate 1gbit limit 1mb ecn kmin 30kb kmax 120kb pmax 0.2");
  EXPECT_EQ(red.policy, QueuePolicy::kEcn);
  EXPECT_EQ(red.kmin_bytes, 30u * 1024);
  EXPECT_EQ(red.kmax_bytes, 120u * 1024);
  EXPECT_DOUBLE_EQ(red.pmax, 0.2);
  EXPECT_EQ(parse_port_spec(print_port_spec(red)), red);
  // DCQCN's published profile, pmax as a percentage.
  EXPECT_DOUBLE_EQ(parse_port_spec("rate 1gbit limit 1mb ecn kmin 5kb kmax 200kb pmax 1%").pmax,
                   0.01);
  // DCTCP: one threshold, every packet above it marked.
  const PortSpec dctcp = parse_port_spec("rate 1gbit limit 256kb ecn k 20kb");
  EXPECT_EQ(dctcp.kmin_bytes, dctcp.kmax_bytes);
  EXPECT_DOUBLE_EQ(dctcp.pmax, 1.0);
  EXPECT_EQ(parse_port_spec(print_port_spec(dctcp)), dctcp);
}

TEST(PortSpec, LosslessPausesBetweenXoffAndXon) {
  const PortSpec s = parse_port_spec("rate 500mbit limit 512kb lossless xoff 200kb xon 100kb");
  EXPECT_EQ(s.policy, QueuePolicy::kLossless);
  EXPECT_EQ(s.xoff_bytes, 200u * 1024);
  EXPECT_EQ(s.xon_bytes, 100u * 1024);
  EXPECT_EQ(parse_port_spec(print_port_spec(s)), s);
  // The policy may come first.
  EXPECT_EQ(parse_port_spec("lossless xoff 200kb xon 100kb rate 500mbit limit 512kb"), s);
}

// Lab 12: RoCE's lossless class marks for DCQCN below XOFF.
TEST(PortSpec, LosslessMayMarkBelowXoff) {
  const PortSpec s =
      parse_port_spec("rate 100mbit limit 256kb lossless xoff 96kb xon 64kb kmin 10kb kmax 40kb pmax 0.2");
  EXPECT_EQ(s.policy, QueuePolicy::kLossless);
  EXPECT_TRUE(port_marks(s));
  EXPECT_EQ(s.kmin_bytes, 10u * 1024);
  EXPECT_EQ(s.kmax_bytes, 40u * 1024);
  EXPECT_DOUBLE_EQ(s.pmax, 0.2);
  EXPECT_EQ(parse_port_spec(print_port_spec(s)), s);
  EXPECT_FALSE(port_marks(parse_port_spec("rate 100mbit limit 256kb lossless xoff 96kb xon 64kb")));
  EXPECT_NE(error("rate 100mbit limit 256kb lossless xoff 96kb xon 64kb kmin 10kb kmax 40kb")
                .find("needs 'pmax P'"),
            std::string::npos);
  EXPECT_NE(error("rate 100mbit limit 256kb lossless xoff 96kb xon 64kb k 100kb").find("kmin < xoff"),
            std::string::npos);
  EXPECT_NE(error("rate 100mbit limit 256kb taildrop k 10kb").find("write it after 'ecn'"),
            std::string::npos);
}

TEST(PortSpec, BadWordsSayWhatWasExpected) {
  EXPECT_NE(error("limit 256kb").find("needs 'rate RATE'"), std::string::npos);
  EXPECT_NE(error("rate 500mbit").find("needs 'limit SIZE'"), std::string::npos);
  EXPECT_NE(error("rate 500xbit limit 1kb").find("unknown rate unit 'xbit'"), std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 0").find("is 0"), std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1kb red").find("unknown word 'red'"), std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb kmin 5kb ecn").find("write it after 'ecn'"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb ecn kmin 50kb kmax 20kb pmax 0.1").find("kmin is above kmax"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 100kb ecn kmin 5kb kmax 200kb pmax 0.1")
                .find("kmax is above the limit"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb ecn kmin 5kb kmax 20kb").find("needs 'pmax P'"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb ecn kmin 5kb kmax 20kb pmax 1.5").find("outside (0, 1]"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb lossless xoff 100kb xon 100kb").find("xon < xoff"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb lossless xoff 100kb").find("needs 'xoff SIZE xon SIZE'"),
            std::string::npos);
  EXPECT_NE(error("rate 500mbit limit 1mb ecn k 5kb lossless").find("a second policy"),
            std::string::npos);
  EXPECT_NE(error("rate 1mbit rate 2mbit limit 1kb").find("given twice"), std::string::npos);
  // The message quotes the words and points at the bad one.
  const std::string e = error("rate 500mbit limit 12qb");
  EXPECT_NE(e.find("bad queue spec \"rate 500mbit limit 12qb\""), std::string::npos) << e;
  EXPECT_NE(e.find("\n    rate 500mbit limit 12qb\n                       ^^^^"), std::string::npos)
      << e;
}

}  // namespace
}  // namespace fabriclab::netem
