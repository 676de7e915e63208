#include "runner/bench/impair_bench.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "netem/backend_probe.h"
#include "netem/impairment.h"
#include "netem/impairment_model.h"
#include "netem/spec_parse.h"
#include "runner/bench/impair_lab.h"
#include "runner/ledger/run_id.h"
#include "runner/topology/user_namespace.h"

namespace fabriclab::runner::bench {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::lround(q * static_cast<double>(v.size() - 1)));
  return v[std::min(i, v.size() - 1)];
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// p50/p99 of the delay netem's algorithm draws for `spec`, in ms.
std::pair<double, double> configured_delay_ms(const netem::Spec& spec, uint64_t seed) {
  netem::ImpairmentModel model(spec, seed);
  std::vector<double> d;
  for (int i = 0; i < 200000; ++i) {
    netem::PacketFate f = model.next();
    if (!f.drop) d.push_back(static_cast<double>(f.delay_ns) / 1e6);
  }
  return {quantile(d, 0.5), quantile(d, 0.99)};
}

struct BackendResult {
  int rows = 0;
  int rows_ok = 0;
};

// `rate`: iperf3's TCP goodput through the shaper against the configured
// rate. Target: within 5%. Goodput is below the frames' rate by the headers
// (1448 of 1514 bytes at MTU 1500: -4.4%) where the shaper counts frames.
void bench_rate(const std::string& name, netem::Backend& backend, const ImpairLab& lab,
                const ImpairBenchOptions& opt, BackendResult& result) {
  std::printf("\nrate through %s, TCP goodput, iperf3 -t %d\n", name.c_str(), opt.iperf_seconds);
  std::printf("  %-36s %14s %14s %8s %9s  %s\n", "spec", "configured", "measured", "ratio",
              "target", "");
  for (const char* words : {"rate 100mbit", "rate 1gbit"}) {
    const netem::Spec spec = netem::parse_spec(words);
    double gbps = 0;
    std::string how;
    {
      auto applied = backend.apply(lab.target(backend.link_direction()), spec);
      how = applied->describe();
      gbps = lab.iperf_gbps(opt.iperf_seconds);
    }
    const double configured = static_cast<double>(spec.rate_bytes_per_s) * 8 / 1e9;
    const double ratio = gbps / configured;
    const bool ok = std::abs(ratio - 1) <= 0.05;
    ++result.rows;
    result.rows_ok += ok;
    std::printf("  %-36s %8.3f Gbit/s %8.3f Gbit/s %8.3f %9s  %s\n", words, configured, gbps, ratio,
                "1 +- 5%", ok ? "ok" : "MISS");
    spdlog::info("{}", how);
  }
}

void bench_backend(const std::string& name, netem::Backend& backend, const ImpairLab& lab,
                   const ImpairBenchOptions& opt, uint64_t seed, double bare_rtt_p50,
                   BackendResult& result) {
  auto verdict = [&](bool ok) {
    ++result.rows;
    result.rows_ok += ok;
    return ok ? "ok" : "MISS";
  };
  const netem::Target target = lab.target(backend.link_direction());
  std::printf("\n== backend %s (rank 0 -> rank 1 %s, seed %llu)\n", name.c_str(),
              backend.link_direction() == netem::Direction::kEgress
                  ? ("on " + lab.r0().egress.describe()).c_str()
                  : ("arriving on " + lab.r1().egress.describe()).c_str(),
              static_cast<unsigned long long>(seed));

  std::printf("\nadded RTT, %d pings each (bare link p50 %.3f ms subtracted)\n", opt.pings,
              bare_rtt_p50);
  std::printf("  %-36s %10s %10s %8s %10s %10s %9s  %s\n", "spec", "conf p50", "meas p50", "error",
              "conf p99", "meas p99", "target", "p50");
  // delay 10ms 4ms: the userspace backend test's jitter, whose ceiling is
  // printed here rather than asserted there (doc/ci.md).
  for (const char* words : {"delay 1ms", "delay 10ms", "delay 100ms", "delay 10ms 2ms",
                            "delay 10ms 4ms", "delay 50ms 5ms distribution normal"}) {
    netem::Spec spec = netem::parse_spec(words);
    auto [conf50, conf99] = configured_delay_ms(spec, seed);
    std::vector<double> rtts;
    {
      auto applied = backend.apply(target, spec);
      rtts = lab.ping_rtts_ms(opt.pings, "0.005");
    }
    for (double& r : rtts) r -= bare_rtt_p50;
    double meas50 = quantile(rtts, 0.5), meas99 = quantile(rtts, 0.99);
    double target = std::max(0.5, 0.02 * conf50);
    double err = meas50 - conf50;
    std::printf("  %-36s %7.3f ms %7.3f ms %+8.3f %7.3f ms %7.3f ms %6.3f ms  %s%s\n", words,
                conf50, meas50, err, conf99, meas99, target, verdict(std::abs(err) <= target),
                rtts.size() == static_cast<size_t>(opt.pings) ? "" : "  (some pings lost!)");
  }

  std::printf("\nloss, %d echo requests each\n", opt.loss_packets);
  std::printf("  %-36s %10s %10s %21s %10s  %s\n", "spec", "configured", "measured", "95% interval",
              "dropped", "in interval");
  for (const char* words : {"loss 1%", "loss 10%"}) {
    netem::Spec spec = netem::parse_spec(words);
    int tx = 0, rx = 0;
    uint64_t dropped = 0;
    {
      auto applied = backend.apply(target, spec);
      std::tie(tx, rx) = lab.ping_loss(opt.loss_packets);
      dropped = applied->stats().drops;
    }
    double p = spec.loss, measured = tx > 0 ? 1.0 - static_cast<double>(rx) / tx : NAN;
    double half = 1.96 * std::sqrt(p * (1 - p) / std::max(tx, 1));
    bool ok = measured >= p - half && measured <= p + half;
    std::printf("  %-36s %9.3f%% %9.3f%% [%7.3f%%, %7.3f%%] %10llu  %s\n", words, 100 * p,
                100 * measured, 100 * (p - half), 100 * (p + half),
                static_cast<unsigned long long>(dropped), verdict(ok));
  }

  std::printf("\nTCP throughput, iperf3 -t %d, %d alternating rounds (median)\n", opt.iperf_seconds,
              opt.iperf_rounds);
  std::vector<double> bare, through;
  for (int round = 0; round < opt.iperf_rounds; ++round) {
    bare.push_back(lab.iperf_gbps(opt.iperf_seconds));
    auto applied = backend.apply(target, netem::Spec{});
    through.push_back(lab.iperf_gbps(opt.iperf_seconds));
  }
  // Issue 38: an idle link through the backend carries at least 0.9 of the
  // bare veth's TCP rate, so a lab's clean scenario is not the backend's.
  constexpr double kPassThroughTarget = 0.9;
  double ratio = median(through) / median(bare);
  std::string rounds;
  for (int i = 0; i < opt.iperf_rounds; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.2f/%.2f", i ? ", " : "", through[i], bare[i]);
    rounds += buf;
  }
  std::printf("  bare link %.2f Gbit/s, through %s %.2f Gbit/s: ratio %.2f (target >= %.2f) %s\n",
              median(bare), name.c_str(), median(through), ratio, kPassThroughTarget,
              verdict(ratio >= kPassThroughTarget));
  std::printf("  rounds (through/bare, Gbit/s): %s\n", rounds.c_str());

  bench_rate(name, backend, lab, opt, result);

  if (backend.link_direction() == netem::Direction::kIngress) {
    // Why this backend impairs on arrival: the same delay held on the
    // sender's egress leaves the packets charged to its socket, and TCP
    // Small Queues then allow only a couple of them in flight.
    const netem::Spec delay = netem::parse_spec("delay 10ms");
    double arrival = 0, egress = 0;
    {
      auto applied = backend.apply(target, delay);
      arrival = lab.iperf_gbps(opt.iperf_seconds);
    }
    {
      auto applied = backend.apply(lab.target(netem::Direction::kEgress), delay);
      egress = lab.iperf_gbps(opt.iperf_seconds);
    }
    std::printf(
        "\nTCP through delay 10ms (one way), iperf3 -t %d: on arrival %.3f Gbit/s, "
        "held on the sender's egress %.3f Gbit/s (TCP Small Queues)\n",
        opt.iperf_seconds, arrival, egress);
  }
}

struct Candidate {
  std::string name;
  std::unique_ptr<netem::Backend> backend;
  std::string why;
  bool rate_only = false;  // only `rate` can be measured (the kernel shaper, no sch_netem)
};

// The backends `opt.backend` asks for that can run here; says on stdout
// which cannot, and why.
std::vector<Candidate> available_backends(const ImpairBenchOptions& opt, uint64_t seed) {
  std::vector<Candidate> candidates;
  netem::BackendOptions options;
  options.seed = seed;
  for (const netem::BackendProbe& probe : netem::probe_backends()) {
    if (opt.backend != "all" && opt.backend != probe.name) continue;
    // netem is tried unless known absent (apply() then says why); userspace
    // only when it works.
    const bool usable = probe.kind == netem::BackendKind::kNetem
                            ? probe.availability != netem::Availability::kNo
                            : probe.availability == netem::Availability::kYes;
    if (usable) {
      candidates.push_back({probe.name, netem::make_backend(probe.kind, options), probe.why});
    } else if (probe.kind == netem::BackendKind::kNetem) {
      // Without sch_netem the netem backend still shapes `rate` alone (tbf).
      std::printf("backend %s: only rate measured (a tbf): %s\n", probe.name.c_str(),
                  probe.why.c_str());
      candidates.push_back(
          {probe.name + " (tbf)", netem::make_backend(probe.kind, options), probe.why, true});
    } else {
      std::printf("backend %s: not measured: %s\n", probe.name.c_str(), probe.why.c_str());
    }
  }
  return candidates;
}

}  // namespace

void run_impair_bench(const ImpairBenchOptions& opt) {
  std::string why;
  enter_rootless_namespace_if_needed(&why);
  if (!why.empty()) spdlog::info("{}", why);

  uint64_t seed = opt.seed;
  if (seed == 0) seed = std::random_device{}();

  std::vector<Candidate> candidates = available_backends(opt, seed);
  if (candidates.empty()) throw std::runtime_error("no impairment backend can run here");

  ImpairLab lab(make_run_id());
  std::printf("lab: %s -> %s over one veth pair\n", lab.r0().egress.describe().c_str(),
              lab.r1().egress.describe().c_str());
  std::vector<double> bare = lab.ping_rtts_ms(opt.pings, "0.005");
  double bare50 = quantile(bare, 0.5);
  std::printf("bare link RTT: p50 %.3f ms, p99 %.3f ms (%zu pings)\n", bare50, quantile(bare, 0.99),
              bare.size());

  BackendResult total;
  for (Candidate& c : candidates) {
    spdlog::info("measuring backend {}: {}", c.name, c.why);
    if (c.rate_only)
      bench_rate(c.name, *c.backend, lab, opt, total);
    else
      bench_backend(c.name, *c.backend, lab, opt, seed, bare50, total);
  }
  std::printf("\n%d of %d rows within target\n", total.rows_ok, total.rows);
}

}  // namespace fabriclab::runner::bench
