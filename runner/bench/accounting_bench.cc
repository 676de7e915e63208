#include "runner/bench/accounting_bench.h"

#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/proc_net_dev.h"
#include "runner/bench/step_rate.h"
#include "trainer/sched_time.h"

namespace fabriclab::runner::bench {
namespace {

// One RTM_GETSTATS request for one ifindex, asking only for the 64-bit link
// counters (the numbers /proc/net/dev prints): the netlink way of reading
// them, on libmnl, one request and its one answer (no ack) per reading.
class NetlinkLinkStats {
 public:
  explicit NetlinkLinkStats(const std::string& device)
      : nl_(mnl_socket_open(NETLINK_ROUTE)),
        ifindex_(static_cast<int>(::if_nametoindex(device.c_str()))) {
    if (nl_ != nullptr && mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) {
      mnl_socket_close(nl_);
      nl_ = nullptr;
    }
  }
  ~NetlinkLinkStats() {
    if (nl_ != nullptr) mnl_socket_close(nl_);
  }
  NetlinkLinkStats(const NetlinkLinkStats&) = delete;
  NetlinkLinkStats& operator=(const NetlinkLinkStats&) = delete;

  std::optional<DeviceCounters> read() {
    if (nl_ == nullptr || ifindex_ == 0) return std::nullopt;
    alignas(nlmsghdr) char request[NLMSG_SPACE(sizeof(if_stats_msg))] = {};
    nlmsghdr* header = mnl_nlmsg_put_header(request);
    header->nlmsg_type = RTM_GETSTATS;
    header->nlmsg_flags = NLM_F_REQUEST;
    header->nlmsg_seq = ++seq_;
    auto* stats = static_cast<if_stats_msg*>(mnl_nlmsg_put_extra_header(header, sizeof(if_stats_msg)));
    stats->family = AF_UNSPEC;
    stats->ifindex = ifindex_;
    stats->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
    if (mnl_socket_sendto(nl_, header, header->nlmsg_len) < 0) return std::nullopt;
    alignas(nlmsghdr) char answer[2048];
    const ssize_t n = mnl_socket_recvfrom(nl_, answer, sizeof answer);
    const auto* reply = reinterpret_cast<const nlmsghdr*>(answer);
    if (n <= 0 || !mnl_nlmsg_ok(reply, static_cast<int>(n)) || reply->nlmsg_type != RTM_NEWSTATS)
      return std::nullopt;
    std::optional<DeviceCounters> counters;
    mnl_attr_parse(reply, sizeof(if_stats_msg), &NetlinkLinkStats::on_attribute, &counters);
    return counters;
  }

 private:
  static int on_attribute(const nlattr* attribute, void* data) {
    if (mnl_attr_get_type(attribute) != IFLA_STATS_LINK_64 ||
        mnl_attr_get_payload_len(attribute) < sizeof(rtnl_link_stats64))
      return MNL_CB_OK;
    const auto* s = static_cast<const rtnl_link_stats64*>(mnl_attr_get_payload(attribute));
    *static_cast<std::optional<DeviceCounters>*>(data) = DeviceCounters{
        s->rx_bytes, s->rx_packets, s->tx_bytes, s->tx_packets, s->rx_dropped, s->tx_dropped};
    return MNL_CB_STOP;
  }

  mnl_socket* nl_;
  int ifindex_;
  uint32_t seq_ = 0;
};

// /sys/class/net/<device>/statistics/{rx,tx}_{bytes,packets}, kept open.
class SysfsLinkStats {
 public:
  explicit SysfsLinkStats(const std::string& device) {
    for (const char* name : {"rx_bytes", "rx_packets", "tx_bytes", "tx_packets"})
      fds_.push_back(::open(("/sys/class/net/" + device + "/statistics/" + name).c_str(),
                            O_RDONLY | O_CLOEXEC));
  }
  ~SysfsLinkStats() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  SysfsLinkStats(const SysfsLinkStats&) = delete;
  SysfsLinkStats& operator=(const SysfsLinkStats&) = delete;

  std::optional<DeviceCounters> read() {
    uint64_t values[4];
    for (size_t i = 0; i < fds_.size(); ++i) {
      char text[32];
      const ssize_t n = fds_[i] < 0 ? -1 : ::pread(fds_[i], text, sizeof text - 1, 0);
      if (n <= 0) return std::nullopt;
      text[n] = '\0';
      values[i] = std::strtoull(text, nullptr, 10);
    }
    return DeviceCounters{values[0], values[1], values[2], values[3], 0, 0};
  }

 private:
  std::vector<int> fds_;
};

struct Method {
  std::string name;
  std::function<bool()> reading;  // one reading; false when it could not read
  std::vector<double> cpu_us_per_step;   // this thread's CPU time
  std::vector<double> wall_us_per_step;  // elapsed: with the waits for a core
  bool available = true;
};

// This thread's CPU time in microseconds: what a reading costs the step that
// makes it, whatever else the machine runs (elapsed time on a busy machine
// also counts the time other processes held the core).
double thread_cpu_us() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

}  // namespace

void run_accounting_bench(const AccountingBenchOptions& o) {
  // The threads a trainer has beside its main one (Gloo's, libtorch's),
  // blocked as they mostly are: each has a schedstat file to read.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::thread> idle;
  for (int i = 0; i < o.idle_threads; ++i) idle.emplace_back([released] { released.wait(); });

  trainer::SchedClock sched_clock;
  DeviceCounterReader kept_open("/proc/self/net/dev", o.device);
  NetlinkLinkStats netlink(o.device);
  SysfsLinkStats sysfs(o.device);
  std::vector<Method> methods;
  const auto add = [&methods](std::string name, std::function<bool()> reading) {
    Method m;
    m.name = std::move(name);
    m.reading = std::move(reading);
    methods.push_back(std::move(m));
  };
  add("schedstat, files opened per reading (before)",
      [] { return trainer::process_sched_time().has_value(); });
  add("schedstat, files kept open (SchedClock, now)", [&] { return sched_clock.now().has_value(); });
  add("/proc/self/net/dev opened per reading (before)",
      [&] { return read_device_counters("/proc/self/net/dev", o.device).has_value(); });
  add("/proc/self/net/dev kept open, pread (now)", [&] { return kept_open.read().has_value(); });
  add("netlink RTM_GETSTATS, one ifindex", [&] { return netlink.read().has_value(); });
  add("sysfs statistics, 4 files kept open", [&] { return sysfs.read().has_value(); });
  add("trainer's step, before (schedstat + net/dev opened)", [&] {
    return trainer::process_sched_time().has_value() &&
           read_device_counters("/proc/self/net/dev", o.device).has_value();
  });
  add("trainer's step, now (both kept open)",
      [&] { return sched_clock.now().has_value() && kept_open.read().has_value(); });

  spdlog::info("bench accounting: {} idle threads beside this one, device {}, {} rounds of {} "
               "steps (2 readings each) per method",
               o.idle_threads, o.device, o.rounds, o.iterations);
  for (Method& m : methods) m.available = m.reading();
  for (int round = 0; round < o.rounds; ++round) {
    for (Method& m : methods) {
      if (!m.available) continue;
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = thread_cpu_us();
      bool ok = true;
      for (int i = 0; i < o.iterations; ++i) ok = m.reading() && m.reading() && ok;
      const double cpu_us = thread_cpu_us() - cpu_start;
      const double wall_us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count();
      m.available = ok;
      m.cpu_us_per_step.push_back(cpu_us / o.iterations);
      m.wall_us_per_step.push_back(wall_us / o.iterations);
    }
  }
  release.set_value();
  for (auto& t : idle) t.join();

  std::printf(
      "\nfabriclab bench accounting: one step's reads (2 readings), %d idle threads beside the "
      "reading one, device %s; median [range] over %d rounds of %d steps\n\n",
      o.idle_threads, o.device.c_str(), o.rounds, o.iterations);
  std::printf("%-54s %26s %10s %24s\n", "method", "CPU us per step", "% of step",
              "elapsed us per step");
  for (const Method& m : methods) {
    if (!m.available || m.cpu_us_per_step.empty()) {
      std::printf("%-54s %26s %10s\n", m.name.c_str(), "cannot read here", "-");
      continue;
    }
    const auto [lo, hi] = std::minmax_element(m.cpu_us_per_step.begin(), m.cpu_us_per_step.end());
    const auto [wlo, whi] =
        std::minmax_element(m.wall_us_per_step.begin(), m.wall_us_per_step.end());
    const double cpu_median = median(m.cpu_us_per_step);
    const std::string cpu = fmt::format("{:.1f} [{:.1f}, {:.1f}]", cpu_median, *lo, *hi);
    const std::string wall =
        fmt::format("{:.1f} [{:.1f}, {:.1f}]", median(m.wall_us_per_step), *wlo, *whi);
    std::printf("%-54s %26s %9.2f%% %24s\n", m.name.c_str(), cpu.c_str(),
                100 * cpu_median / 1000 / o.step_ms, wall.c_str());
  }
  std::printf("\n%% of step: the median CPU time over a %.2f ms step (lab 10's is 2.4 ms); "
              "elapsed time also counts the waits for a core on a busy machine\n",
              o.step_ms);
}

}  // namespace fabriclab::runner::bench
