#include "runner/bench/allreduce_rank.h"

#include <gloo/allreduce_ring.h>
#include <gloo/barrier.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/ibverbs/device.h>
#include <gloo/transport/tcp/device.h>
#include <spdlog/spdlog.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <cstring>
#include <exception>
#include <map>
#include <tuple>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "common/input_error.h"
#include "common/allreduce_algorithms.h"
#include "runner/bench/allreduce_algorithm.h"
#include "runner/bench/allreduce_check.h"
#include "runner/bench/allreduce_events.h"
#include "runner/rdma/roce_gid.h"
#include "trainer/metrics_writer.h"
#include "trainer/process_group.h"
#include "trainer/wire_bytes.h"

namespace fabriclab::runner::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The Gloo contexts of one rank, one per channel, each on its own device:
// TCP, or ibverbs on the RDMA device (roce).
class Channels {
 public:
  Channels(const trainer::Rendezvous& rv, const AllreduceRankOptions& o)
      : roce_(o.transport == "roce") {
    store_ = std::make_unique<c10d::ProcessGroupGloo::GlooStore>(trainer::connect_store(rv));
    for (int c = 0; c < o.channels; ++c) {
      std::shared_ptr<gloo::transport::Device> device =
          roce_ ? ibverbs_device(rv, o) : tcp_device(rv);
      gloo::rendezvous::PrefixStore prefix("channel" + std::to_string(c), *store_);
      auto context = std::make_shared<gloo::rendezvous::Context>(rv.rank, rv.world_size);
      context->setTimeout(rv.timeout);
      context->connectFullMesh(prefix, device);
      contexts_.push_back(std::move(context));
    }
    if (roce_)
      barrier_ring_ = std::make_unique<gloo::AllreduceRing<float>>(
          contexts_.front(), std::vector<float*>{&barrier_value_}, 1);
  }

  // Gloo's ibverbs Buffer aborts the process when destroyed with a send
  // still awaiting its completion, and AllreduceRing never waits for its
  // last notification's: destroyed between sizes or at the end, a ring
  // killed the rank in the VM pair (SIGABRT, "sendPending_ == 0. 1 vs 0").
  // So over RoCE every ring lives until the process exits, and the kernel
  // closes its queue pairs then.
  ~Channels() {
    if (!roce_) return;
    for (auto& [key, ring] : rings_) static_cast<void>(ring.release());
    static_cast<void>(barrier_ring_.release());
  }
  Channels(const Channels&) = delete;
  Channels& operator=(const Channels&) = delete;

  size_t size() const { return contexts_.size(); }
  bool roce() const { return roce_; }
  const std::shared_ptr<gloo::Context>& operator[](size_t i) const { return contexts_[i]; }

  // Over RoCE: Gloo's ring over bound buffers for `count` floats at `data`
  // on channel `c`, made once per buffer (it registers its own buffers, 3x
  // the size, with the device) and kept (see the destructor).
  gloo::AllreduceRing<float>* ring(size_t c, float* data, size_t count, bool max_reduction) {
    auto& slot = rings_[std::make_tuple(c, data, count)];
    if (!slot)
      slot = std::make_unique<gloo::AllreduceRing<float>>(
          contexts_[c], std::vector<float*>{data}, static_cast<int>(count),
          max_reduction ? gloo::ReductionFunction<float>::max
                        : gloo::ReductionFunction<float>::sum);
    return slot.get();
  }

  void barrier() const {
    if (roce_) {
      // gloo::barrier uses unbound buffers, which ibverbs pairs refuse
      // ("Unbound buffers not supported yet for ibverbs transport"): a
      // one-float ring allreduce, made once, returns when every rank ran it.
      barrier_ring_->run();
      return;
    }
    gloo::BarrierOptions options(contexts_.front());
    gloo::barrier(options);
  }

 private:
  static std::shared_ptr<gloo::transport::Device> tcp_device(const trainer::Rendezvous& rv) {
    gloo::transport::tcp::attr attr;
    if (!rv.iface.empty())
      attr.iface = rv.iface;
    else
      attr.hostname = rv.bind_addr.empty() ? "127.0.0.1" : rv.bind_addr;
    return gloo::transport::tcp::CreateDevice(attr);
  }

  // The GID of the lab address: RoCE v2 packets then leave from it.
  static std::shared_ptr<gloo::transport::Device> ibverbs_device(const trainer::Rendezvous& rv,
                                                                 const AllreduceRankOptions& o) {
    gloo::transport::ibverbs::attr attr;
    attr.name = o.rdma_device;
    attr.port = 1;
    attr.index = rdma::roce_gid_index(o.rdma_device, rv.bind_addr);
    spdlog::info("rank {}: Gloo ibverbs on {} port 1, GID index {} ({})", rv.rank, attr.name,
                 attr.index, rv.bind_addr);
    return gloo::transport::ibverbs::CreateDevice(attr);
  }

  bool roce_ = false;
  std::unique_ptr<c10d::ProcessGroupGloo::GlooStore> store_;
  std::vector<std::shared_ptr<gloo::Context>> contexts_;
  std::map<std::tuple<size_t, float*, size_t>, std::unique_ptr<gloo::AllreduceRing<float>>> rings_;
  float barrier_value_ = 0;
  std::unique_ptr<gloo::AllreduceRing<float>> barrier_ring_;
};

// One allreduce of `count` floats into `out`, with the options' algorithm:
// each channel reduces its own contiguous slice, concurrently. Built once per
// size and place (allreduce_algorithm.h); run() with `in` == nullptr is in
// place.
class SlicedAllreduce {
 public:
  SlicedAllreduce(Channels& channels, const AllreduceRankOptions& o, float* out, size_t count)
      : out_(out) {
    for (size_t c = 0; c < channels.size(); ++c) {
      const size_t begin = count * c / channels.size(), end = count * (c + 1) / channels.size();
      begins_.push_back(begin);
      ends_.push_back(end);
      // Over RoCE, whatever `algorithm` says: Gloo's ring on bound buffers,
      // the one measured on rxe (gloo::allreduce needs unbound buffers,
      // which ibverbs pairs do not have; doc/roce.md, section 7).
      if (channels.roce()) {
        rings_.push_back(end > begin ? channels.ring(c, out + begin, end - begin, o.wrong_reduction)
                                     : nullptr);
        continue;
      }
      slices_.push_back(std::make_unique<ChannelAllreduce>(
          o.algorithm, channels[c], out + begin, end - begin, o.wrong_reduction,
          static_cast<size_t>(o.segment_bytes)));
    }
  }

  void run(const float* in) {
    auto slice = [&](size_t c) {
      if (rings_.empty()) return slices_[c]->run(in == nullptr ? nullptr : in + begins_[c]);
      if (rings_[c] == nullptr) return;
      if (in != nullptr)
        std::memcpy(out_ + begins_[c], in + begins_[c], (ends_[c] - begins_[c]) * sizeof(float));
      rings_[c]->run();
    };
    const size_t slices = rings_.empty() ? slices_.size() : rings_.size();
    if (slices == 1) return slice(0);
    // A lost peer fails every channel's allreduce: each failure is caught where
    // it happens and the first rethrown here, after every channel has ended --
    // escaping a thread it would abort the rank (std::terminate) instead of
    // letting it say which collective failed.
    std::vector<std::exception_ptr> failed(slices);
    auto run_one = [&](size_t c) {
      try {
        slice(c);
      } catch (...) {
        failed[c] = std::current_exception();
      }
    };
    std::vector<std::thread> others;
    for (size_t c = 1; c < slices; ++c) others.emplace_back(run_one, c);
    run_one(0);
    for (std::thread& t : others) t.join();
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
  }

 private:
  float* out_;
  std::vector<size_t> begins_, ends_;
  std::vector<std::unique_ptr<ChannelAllreduce>> slices_;  // tcp
  std::vector<gloo::AllreduceRing<float>*> rings_;         // roce: the channels' own

};

PlaceResult measure(Channels& channels, const AllreduceRankOptions& o, int rank,
                    int world_size, std::vector<float>& in, std::vector<float>& out,
                    bool in_place) {
  const size_t count = out.size();
  const float* input = in_place ? nullptr : in.data();
  SlicedAllreduce allreduce(channels, o, out.data(), count);
  for (int i = 0; i < o.warmup; ++i) allreduce.run(input);
  channels.barrier();
  const auto start = Clock::now();
  for (int i = 0; i < o.iters; ++i) allreduce.run(input);
  const std::chrono::duration<double, std::micro> elapsed = Clock::now() - start;
  PlaceResult result;
  result.time_us = elapsed.count() / o.iters;
  if (o.check) {
    // Fresh data: in-place iterations have summed the sums many times over.
    fill_allreduce_input(in_place ? out.data() : in.data(), count, rank);
    if (!in_place) std::fill(out.begin(), out.end(), 0.0f);
    allreduce.run(input);
    result.wrong = count_wrong_elements(out.data(), count, world_size);
  }
  return result;
}

nlohmann::json place_json(const PlaceResult& r) {
  return {{"time_us", r.time_us}, {"wrong", r.wrong}};
}

}  // namespace

namespace {

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void run_sizes(const trainer::Rendezvous& rv, const AllreduceRankOptions& o,
               std::ofstream& results, trainer::MetricsWriter& metrics, int64_t& step) {
  spdlog::info("rank {}: rendezvous at {}:{}, {} channel(s) over {}, algorithm {}", rv.rank,
               rv.master_addr, rv.master_port, o.channels, o.transport,
               o.transport == "roce" ? "ring (bound buffers)" : o.algorithm);
  Channels channels(rv, o);
  trainer::WireBytes wire(trainer::lab_interface(rv.iface, rv.bind_addr));
  nlohmann::json start = allreduce_start_fields(o, rv.world_size);
  if (!wire.device().empty()) start["net_device"] = wire.device();
  metrics.write("start", start);
  std::vector<SizeResult> done;
  double first_start_s = 0;
  for (int64_t size : o.sizes_bytes) {
    // A step is the whole size, buffers included: the steps then cover the
    // rank's wall time, as the workload contract's consistency rules ask.
    step = static_cast<int64_t>(done.size()) + 1;
    const auto step_start = Clock::now();
    if (done.empty()) first_start_s = trainer::unix_time_s();
    wire.start();
    const size_t count = static_cast<size_t>(size / 4);
    std::vector<float> in(count), out(count);
    fill_allreduce_input(in.data(), count, rv.rank);
    SizeResult r;
    r.size_bytes = size;
    r.out_of_place = measure(channels, o, rv.rank, rv.world_size, in, out, false);
    fill_allreduce_input(out.data(), count, rv.rank);
    r.in_place = measure(channels, o, rv.rank, rv.world_size, in, out, true);
    r.step_ms = ms_since(step_start);
    if (results.is_open()) {
      results << nlohmann::json{{"size", size},
                                {"count", count},
                                {"out_of_place", place_json(r.out_of_place)},
                                {"in_place", place_json(r.in_place)}}
                     .dump()
              << std::endl;
    }
    nlohmann::json fields = allreduce_step_fields(step, r, rv.world_size);
    fields.update(wire.since_start());
    metrics.write("step", fields);
    done.push_back(r);
  }
  metrics.write("final", allreduce_final_fields(done, rv.world_size,
                                                trainer::unix_time_s() - first_start_s));
  channels.barrier();  // nobody closes its connections while a peer still reads
}

}  // namespace

void run_allreduce_rank(const trainer::Rendezvous& rv, const AllreduceRankOptions& o) {
  trainer::validate(rv);
  if (rv.world_size < 2) throw InputError("bench allreduce-rank needs WORLD_SIZE >= 2");
  if (o.iters < 1 || o.warmup < 0 || o.channels < 1)
    throw InputError("--iters must be >= 1, --warmup >= 0, --channels >= 1");
  if (!is_allreduce_algorithm(o.algorithm))
    throw InputError("--algorithm " + o.algorithm + ": expected " + allreduce_algorithm_list());
  if (o.transport != "tcp" && o.transport != "roce")
    throw InputError("--transport " + o.transport + ": expected tcp or roce");
  if (o.transport == "roce" && (o.rdma_device.empty() || rv.bind_addr.empty()))
    throw InputError(
        "--transport roce needs the RDMA device (--rdma-device or FABRICLAB_RDMA_DEVICE) and the "
        "lab address (--bind-addr or FABRICLAB_BIND_ADDR)");
  if (o.results_path.empty() && o.metrics_path.empty())
    throw InputError("give --results or --metrics (or both)");
  trainer::ignore_broken_pipes();
  for (int64_t size : o.sizes_bytes)
    if (size <= 0 || size % 4 != 0)
      throw InputError("--sizes: " + std::to_string(size) + " is not a positive multiple of 4");
  std::ofstream results;
  if (!o.results_path.empty()) {
    results.open(o.results_path, std::ios::trunc);
    if (!results) throw InputError("--results " + o.results_path + ": cannot write");
  }
  trainer::MetricsWriter metrics(o.metrics_path, rv.rank);  // "" = none

  int64_t step = 0;  // the size being measured, for the error event
  try {
    run_sizes(rv, o, results, metrics, step);
  } catch (const std::exception& e) {
    // The workload contract: a failing rank says why in its events too.
    metrics.write("error", {{"step", step}, {"message", e.what()}});
    throw;
  }
}

}  // namespace fabriclab::runner::bench
