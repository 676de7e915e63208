#include "tests/vm/spec_readback.h"

#include <cmath>
#include <sstream>

#include "netem/spec_limit.h"
#include "netem/spec_parse.h"

namespace fabriclab::netem::vmtest {

namespace {

// Collects "field: spec X, tc Y" lines.
class Differences {
 public:
  void near(const std::string& field, double want, double got, double tolerance) {
    if (std::fabs(want - got) > tolerance) add(field, want, got);
  }
  template <typename T>
  void equal(const std::string& field, T want, T got) {
    if (want != got) add(field, want, got);
  }
  std::string str() const { return out_.str(); }

 private:
  template <typename T>
  void add(const std::string& field, T want, T got) {
    out_ << field << ": spec " << want << ", tc " << got << "; ";
  }
  std::ostringstream out_;
};

// tc prints a sub-object only when the kernel sent its attribute (and, for
// some, only when non-zero); absent means zero.
double number(const nlohmann::json& options, const char* object, const char* field) {
  if (!options.contains(object)) return 0;
  const nlohmann::json& o = options[object];
  if (!o.is_object() || !o.contains(field)) return 0;
  return o[field].get<double>();
}

}  // namespace

Spec as_kernel_holds(const Spec& spec) {
  Spec s = with_limit(spec);
  // tc sends the duplicate correlation only inside TCA_NETEM_CORR, which it
  // sends only when another correlation word was given (qdisc_message.cc).
  if (!s.corr_given) s.duplicate_corr = 0;
  if (s.reorder > 0 && s.reorder_gap == 0) s.reorder_gap = 1;  // what tc and we send
  s.corr_given = s.reorder_given = s.corrupt_given = false;
  s.distribution = Distribution::kNone;
  s.slot.distribution = Distribution::kNone;
  return s;
}

std::string our_readback_mismatch(const Spec& spec, const netlink::DecodedNetem& decoded) {
  if (!decoded.valid) return "the kernel's netem options could not be decoded";
  std::string out;
  const Spec want = as_kernel_holds(spec);
  const Spec got = as_kernel_holds(decoded.spec);
  if (want != got) out += "spec \"" + print_spec(want) + "\", read back \"" + print_spec(got) + "\"; ";
  // The distribution tables are sent but never dumped (netem_dump() has no
  // TCA_NETEM_DELAY_DIST): whether one was loaded cannot be read back.
  return out;
}

std::string tc_readback_mismatch(const Spec& spec, const nlohmann::json& options) {
  const Spec s = as_kernel_holds(spec);
  Differences d;
  constexpr double kUs = 1e-6 + 1e-9;  // tc prints seconds; the kernel keeps ns/ticks
  constexpr double kProb = 1.0 / UINT32_MAX + 1e-9;
  d.equal<uint64_t>("limit", s.limit_packets, options.value("limit", 0u));
  d.near("delay", s.delay_us / 1e6, number(options, "delay", "delay"), kUs);
  d.near("jitter", s.jitter_us / 1e6, number(options, "delay", "jitter"), kUs);
  d.near("delay correlation", s.delay_corr, number(options, "delay", "correlation"), kProb);
  switch (s.loss_model) {
    case LossModel::kRandom:
      d.near("loss", s.loss, number(options, "loss-random", "loss"), kProb);
      d.near("loss correlation", s.loss_corr, number(options, "loss-random", "correlation"),
             kProb);
      break;
    case LossModel::kState:
      d.near("p13", s.loss_state.p13, number(options, "loss-state", "p13"), kProb);
      d.near("p31", s.loss_state.p31, number(options, "loss-state", "p31"), kProb);
      d.near("p32", s.loss_state.p32, number(options, "loss-state", "p32"), kProb);
      d.near("p23", s.loss_state.p23, number(options, "loss-state", "p23"), kProb);
      d.near("p14", s.loss_state.p14, number(options, "loss-state", "p14"), kProb);
      break;
    case LossModel::kGemodel:
      d.near("p", s.loss_gemodel.p, number(options, "loss-gemodel", "p"), kProb);
      d.near("r", s.loss_gemodel.r, number(options, "loss-gemodel", "r"), kProb);
      d.near("1-h", s.loss_gemodel.one_minus_h, number(options, "loss-gemodel", "1-h"), kProb);
      d.near("1-k", s.loss_gemodel.one_minus_k, number(options, "loss-gemodel", "1-k"), kProb);
      break;
  }
  d.near("duplicate", s.duplicate, number(options, "duplicate", "duplicate"), kProb);
  d.near("duplicate correlation", s.duplicate_corr,
         number(options, "duplicate", "correlation"), kProb);
  d.near("corrupt", s.corrupt, number(options, "corrupt", "corrupt"), kProb);
  d.near("corrupt correlation", s.corrupt_corr, number(options, "corrupt", "correlation"), kProb);
  d.near("reorder", s.reorder, number(options, "reorder", "reorder"), kProb);
  d.near("reorder correlation", s.reorder_corr, number(options, "reorder", "correlation"), kProb);
  d.equal<uint64_t>("gap", s.reorder_gap, options.value("gap", 0u));
  d.near("rate", static_cast<double>(s.rate_bytes_per_s), number(options, "rate", "rate"), 0.5);
  d.near("rate packet overhead", s.rate_packet_overhead, number(options, "rate", "packetoverhead"),
         0.5);
  d.near("rate cell size", s.rate_cell_size, number(options, "rate", "cellsize"), 0.5);
  d.near("rate cell overhead", s.rate_cell_overhead, number(options, "rate", "celloverhead"), 0.5);
  d.equal("ecn", s.ecn, options.value("ecn", false));
  d.equal("slot", s.slot.given, options.contains("slot"));
  if (s.slot.given) {
    d.near("slot min delay", s.slot.min_delay_ns / 1e9, number(options, "slot", "min-delay"), kUs);
    d.near("slot max delay", s.slot.max_delay_ns / 1e9, number(options, "slot", "max-delay"), kUs);
    d.near("slot distribution delay", s.slot.dist_delay_ns / 1e9,
           number(options, "slot", "distribution"), kUs);
    d.near("slot distribution jitter", s.slot.dist_jitter_ns / 1e9,
           number(options, "slot", "jitter"), kUs);
    d.near("slot packets", s.slot.max_packets, number(options, "slot", "packets"), 0.5);
    d.near("slot bytes", s.slot.max_bytes, number(options, "slot", "bytes"), 0.5);
  }
  return d.str();
}

}  // namespace fabriclab::netem::vmtest
