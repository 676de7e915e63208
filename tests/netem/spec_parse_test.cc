// The netem spec parser and printer: valid words, tc's units and rules, the
// errors a student sees, and the round trip print -> parse.
#include <gtest/gtest.h>

#include "common/input_error.h"
#include "netem/spec_parse.h"

namespace fabriclab::netem {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_spec(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SpecParse, DelayJitterCorrelation) {
  Spec s = parse_spec("delay 100ms 10ms 25%");
  EXPECT_EQ(s.delay_us, 100000u);
  EXPECT_EQ(s.jitter_us, 10000u);
  EXPECT_DOUBLE_EQ(s.delay_corr, 0.25);
  EXPECT_TRUE(s.corr_given);
}

TEST(SpecParse, TimeUnitsAsTcReadsThem) {
  EXPECT_EQ(parse_spec("delay 1.5ms").delay_us, 1500u);
  EXPECT_EQ(parse_spec("delay 2s").delay_us, 2000000u);
  EXPECT_EQ(parse_spec("delay 1sec").delay_us, 1000000u);
  EXPECT_EQ(parse_spec("delay 250us").delay_us, 250u);
  EXPECT_EQ(parse_spec("delay 750").delay_us, 750u);  // no unit: microseconds
  EXPECT_EQ(parse_spec("delay 10MS").delay_us, 10000u);
}

TEST(SpecParse, KeywordsMayBeAbbreviatedLikeTc) {
  EXPECT_EQ(parse_spec("del 10ms").delay_us, 10000u);
  EXPECT_EQ(parse_spec("latency 10ms").delay_us, 10000u);
  EXPECT_DOUBLE_EQ(parse_spec("drop 3%").loss, 0.03);
  EXPECT_EQ(parse_spec("delay 5ms 1ms dist normal").distribution, Distribution::kNormal);
}

TEST(SpecParse, LossForms) {
  Spec r = parse_spec("loss random 2% 50%");
  EXPECT_EQ(r.loss_model, LossModel::kRandom);
  EXPECT_DOUBLE_EQ(r.loss, 0.02);
  EXPECT_DOUBLE_EQ(r.loss_corr, 0.5);
  EXPECT_DOUBLE_EQ(parse_spec("loss 0.1").loss, 0.001);  // % optional, as in tc

  Spec st = parse_spec("loss state 5%");
  EXPECT_EQ(st.loss_model, LossModel::kState);
  EXPECT_DOUBLE_EQ(st.loss_state.p13, 0.05);
  EXPECT_DOUBLE_EQ(st.loss_state.p31, 0.95);  // tc's default: 1 - p13
  EXPECT_DOUBLE_EQ(st.loss_state.p23, 1.0);

  Spec ge = parse_spec("loss gemodel 1% 10% 70% 0.1%");
  EXPECT_EQ(ge.loss_model, LossModel::kGemodel);
  EXPECT_DOUBLE_EQ(ge.loss_gemodel.r, 0.10);
  EXPECT_DOUBLE_EQ(ge.loss_gemodel.one_minus_h, 0.70);
  EXPECT_DOUBLE_EQ(ge.loss_gemodel.one_minus_k, 0.001);
}

TEST(SpecParse, RateUnitsIncludingTcsBytesPerSecond) {
  EXPECT_EQ(parse_spec("rate 1mbit").rate_bytes_per_s, 125000u);
  EXPECT_EQ(parse_spec("rate 1gbit").rate_bytes_per_s, 125000000u);
  EXPECT_EQ(parse_spec("rate 10mbps").rate_bytes_per_s, 10000000u);  // tc: mbps = MB/s
  EXPECT_EQ(parse_spec("rate 1234bit").rate_bytes_per_s, 154u);      // truncated like tc
  Spec o = parse_spec("rate 1mbit 20 100 -5");
  EXPECT_EQ(o.rate_packet_overhead, 20);
  EXPECT_EQ(o.rate_cell_size, 100u);
  EXPECT_EQ(o.rate_cell_overhead, -5);
}

TEST(SpecParse, ReorderGapDuplicateCorruptLimitEcnSlot) {
  Spec s = parse_spec("delay 10ms reorder 25% 50% gap 5 duplicate 1% corrupt 0.1% limit 2k");
  EXPECT_DOUBLE_EQ(s.reorder, 0.25);
  EXPECT_EQ(s.reorder_gap, 5u);
  EXPECT_DOUBLE_EQ(s.duplicate, 0.01);
  EXPECT_DOUBLE_EQ(s.corrupt, 0.001);
  EXPECT_EQ(s.limit_packets, 2048u);  // tc reads limit with get_size: k = 1024
  EXPECT_TRUE(parse_spec("loss 1% ecn").ecn);
  Spec sl = parse_spec("slot 1ms 2ms packets 10 bytes 1500");
  EXPECT_TRUE(sl.slot.given);
  EXPECT_EQ(sl.slot.min_delay_ns, 1000000);
  EXPECT_EQ(sl.slot.max_delay_ns, 2000000);
  EXPECT_EQ(sl.slot.max_packets, 10);
  EXPECT_EQ(sl.slot.max_bytes, 1500);
  EXPECT_EQ(parse_spec("slot 800us").slot.max_delay_ns, 800000);  // max defaults to min
}

TEST(SpecParse, EmptySpecIsNoImpairment) {
  EXPECT_EQ(parse_spec(""), Spec{});
  EXPECT_EQ(print_spec(Spec{}), "");
}

TEST(SpecParse, ErrorsQuoteTheSpecPointAtTheWordAndSayWhatWasExpected) {
  std::string e = error_of("delay 10ms 5ms foo");
  EXPECT_NE(e.find("\"delay 10ms 5ms foo\""), std::string::npos) << e;
  EXPECT_NE(e.find("'foo' is not a netem word"), std::string::npos) << e;
  EXPECT_NE(e.find("expected one of: delay"), std::string::npos) << e;
  // The caret line sits under "foo" (column 15 of the spec, after 4 spaces).
  EXPECT_NE(e.find("\n                   ^^^"), std::string::npos) << e;

  e = error_of("delay 10parsec");
  EXPECT_NE(e.find("unknown time unit 'parsec'"), std::string::npos) << e;
  EXPECT_NE(e.find("expected us, ms or s"), std::string::npos) << e;

  e = error_of("loss 101%");
  EXPECT_NE(e.find("more than 100%"), std::string::npos) << e;

  e = error_of("delay");
  EXPECT_NE(e.find("'delay' needs a time"), std::string::npos) << e;

  e = error_of("rate 10furlongs");
  EXPECT_NE(e.find("unknown rate unit 'furlongs'"), std::string::npos) << e;

  e = error_of("delay 5ms 1ms distribution zipf");
  EXPECT_NE(e.find("expected uniform, normal, pareto or paretonormal"), std::string::npos) << e;
}

TEST(SpecParse, TcConsistencyRules) {
  EXPECT_NE(error_of("reorder 25%").find("reorder needs a delay"), std::string::npos);
  EXPECT_NE(error_of("delay 10ms gap 5").find("gap needs a reorder"), std::string::npos);
  EXPECT_NE(error_of("ecn").find("ecn needs a loss model"), std::string::npos);
  EXPECT_NE(error_of("loss 0% ecn").find("ecn needs a loss model"), std::string::npos);
  EXPECT_NE(error_of("delay 10ms distribution normal").find("needs a delay and a jitter"),
            std::string::npos);
  EXPECT_NE(error_of("slot 2ms 1ms").find("below MIN_DELAY"), std::string::npos);
  EXPECT_NE(error_of("delay 300s").find("too large"), std::string::npos);
}

TEST(SpecParse, OurStricterRules) {
  EXPECT_NE(error_of("delay 10ms delay 20ms").find("given twice"), std::string::npos);
  EXPECT_NE(error_of("limit 0").find("limit 0"), std::string::npos);
  EXPECT_NE(error_of("rate 50%").find("percent of the device"), std::string::npos);
  EXPECT_NE(error_of("loss random nan").find("is not a percentage"), std::string::npos);
  EXPECT_NE(error_of("delay -5ms").find("negative"), std::string::npos);
  // uniform: the kernel's default jitter law; accepted (tc has no table for it).
  EXPECT_EQ(parse_spec("delay 10ms 2ms distribution uniform").distribution, Distribution::kUniform);
}

TEST(SpecParse, PrintIsCanonicalAndRoundTrips) {
  EXPECT_EQ(print_spec(parse_spec("loss 1% delay 100ms 10ms")), "delay 100ms 10ms loss 1%");
  EXPECT_EQ(print_spec(parse_spec("del 1.5ms")), "delay 1500us");
  EXPECT_EQ(print_spec(parse_spec("rate 10mbps")), "rate 80mbit");
  EXPECT_EQ(print_spec(parse_spec("loss state 5%")), "loss state 5% 95% 0% 100% 0%");
  for (const char* text : {
           "delay 100ms 10ms 25% distribution pareto loss 1% 10%",
           "delay 10ms 0 0",
           "delay 33.3ms 3.3ms 12.5% loss 33.333%",
           "loss gemodel 1% 10% 70% 0.1% ecn",
           "duplicate 1% 50%",
           "corrupt 0",
           "delay 10ms reorder 0%",
           "delay 10ms reorder 25% 50% gap 5 corrupt 0.1% 25%",
           "rate 1234bit 20 100 -5 limit 5000",
           "rate 40gbit",
           "slot distribution normal 1ms 100us packets 4 bytes 64k",
           "slot 500ns 1000ns",
           "loss 0.001%",
           "delay 1s 1us 0.0001%",
       }) {
    Spec s = parse_spec(text);
    std::string printed = print_spec(s);
    EXPECT_EQ(parse_spec(printed), s) << text << " -> " << printed;
    EXPECT_EQ(print_spec(parse_spec(printed)), printed) << "printer is not stable for " << text;
  }
}

// Found by tests/fuzz/fuzz_netem_spec (its corpus keeps the inputs).
TEST(SpecParse, FuzzFindsRoundTripAndRefuseWhatTcWraps) {
  // A loss correlation with no loss is still sent: it must print.
  const Spec loss_corr_only = parse_spec("loss 0 2");
  EXPECT_EQ(print_spec(loss_corr_only), "loss 0% 2%");
  EXPECT_EQ(parse_spec(print_spec(loss_corr_only)), loss_corr_only);
  // 2^64 bits/s and more has no bytes x 8 in 64 bits; 2gb in slot's signed field wraps.
  EXPECT_THROW(parse_spec("rate 99902129999999991212bit"), InputError);
  EXPECT_EQ(parse_spec("rate 1000000000000000000bit").rate_bytes_per_s, 125000000000000000u);
  EXPECT_THROW(parse_spec("slot 2ns 2ns bytes 3g"), InputError);
  EXPECT_EQ(parse_spec("slot 2ns bytes 2047mb").slot.max_bytes, 2047 * 1024 * 1024);
}

TEST(SpecEquality, ComparesAtKernelResolution) {
  EXPECT_EQ(parse_spec("loss 1%"), parse_spec("loss 1"));
  EXPECT_NE(parse_spec("loss 1%"), parse_spec("loss 1.1%"));
  EXPECT_NE(parse_spec("delay 10ms 1ms"), parse_spec("delay 10ms 1ms 0%"));  // CORR sent or not
}

}  // namespace
}  // namespace fabriclab::netem
