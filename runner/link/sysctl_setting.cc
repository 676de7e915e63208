#include "runner/link/sysctl_setting.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "common/namespace_sysctl.h"
#include "runner/topology/lab_network.h"

namespace fabriclab::runner {

namespace {

struct Assignment {
  std::string key;    // net.ipv4.tcp_ecn
  std::string value;  // 1
};

std::vector<Assignment> parse_assignments(const std::string& text) {
  static const std::regex kWord(R"(net\.(ipv4|ipv6|core)\.[a-z0-9_.]+=[0-9a-z_ ]*[0-9a-z_])");
  std::vector<Assignment> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (!std::regex_match(word, kWord)) {
      throw std::invalid_argument(
          "'" + word +
          "': expected KEY=VALUE with a per-namespace key (net.ipv4.*, net.ipv6.* or net.core.*), "
          "e.g. net.ipv4.tcp_slow_start_after_idle=0");
    }
    const size_t eq = word.find('=');
    out.push_back({word.substr(0, eq), word.substr(eq + 1)});
  }
  if (out.empty()) throw std::invalid_argument("expected at least one KEY=VALUE");
  return out;
}

class AppliedSysctl : public AppliedLinkSetting {
 public:
  AppliedSysctl(int netns_fd, std::string netns, Assignment assignment)
      : netns_fd_(netns_fd), netns_(std::move(netns)), a_(std::move(assignment)) {
    before_ = read_sysctl(netns_fd_, a_.key);
    write_sysctl(netns_fd_, a_.key, a_.value);
  }
  ~AppliedSysctl() override {
    try {
      write_sysctl(netns_fd_, a_.key, before_);
    } catch (const std::exception& e) {
      spdlog::warn("{}: restoring {}: {}", netns_, a_.key, e.what());
    }
  }
  std::string describe() const override {
    return "sysctl " + a_.key + "=" + a_.value + " in " + netns_ + " (was " + before_ + ")";
  }
  uint64_t drops() const override { return 0; }
  std::string read_back() const override {
    const std::string now = read_sysctl(netns_fd_, a_.key);
    if (now != a_.value)
      throw std::runtime_error(netns_ + ": " + a_.key + " reads " + now + ", not " + a_.value);
    return a_.key + "=" + now + " in " + netns_;
  }

 private:
  int netns_fd_;
  std::string netns_;
  Assignment a_;
  std::string before_;
};

class SysctlSetting : public LinkSettingKind {
 public:
  const char* key() const override { return "sysctl"; }
  // In a [[scenario]] for its links; in [topology] for every rank's namespace.
  bool allowed_in(SettingScope) const override { return true; }
  // Host mode never changes a host's own sysctls: a scenario about one would
  // measure nothing of it, and the lab's own are the user's to set.
  HostModePolicy in_host_mode(SettingScope scope, const SettingValue& value) const override {
    if (scope == SettingScope::kScenario)
      return {HostModeAction::kSkip,
              "it sets sysctl " + value.text() + "; host mode leaves the hosts' own settings alone"};
    return {HostModeAction::kSkip,
            "host mode leaves this host's sysctls alone; the lab runs its namespaces with\n"
            "  " + value.text() + "\n"
            "  set them yourself on every host to match it (sysctl -w, README 'Host mode')"};
  }
  // The key must exist here too: /proc/sys/net shows this process's
  // namespace, whose keys a new namespace has as well, so a typo fails at
  // load instead of after the lab network is built.
  SettingValue parse(const std::string& text) const override {
    auto assignments = std::make_shared<const std::vector<Assignment>>(parse_assignments(text));
    for (const Assignment& a : *assignments) {
      struct stat st {};
      if (::stat(sysctl_path(a.key).c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw std::invalid_argument("'" + a.key + "': this kernel has no such sysctl (no " +
                                    sysctl_path(a.key) + ")");
    }
    return SettingValue(text, std::move(assignments));
  }
  bool needs_backend() const override { return false; }

  // A namespace other than the host's own may only pick a congestion
  // control from the host-wide list (the kernel answers EPERM otherwise,
  // root or not), and that list is the host's to change, not ours.
  std::string host_refusal(const SettingValue& value) const override {
    static const char kAllowed[] = "net.ipv4.tcp_allowed_congestion_control";
    for (const Assignment& a : value.parsed<std::vector<Assignment>>()) {
      if (a.key != "net.ipv4.tcp_congestion_control") continue;
      std::ifstream in(sysctl_path(kAllowed));
      std::string allowed;
      std::getline(in, allowed);
      std::istringstream words(allowed);
      std::string word;
      bool listed = false;
      while (words >> word) listed = listed || word == a.value;
      if (listed) continue;
      return "the lab runs its namespaces with " + a.key + "=" + a.value + ", but this host " +
             "lets a namespace choose only from " + kAllowed + " = \"" + allowed +
             "\". As root, add it: sysctl -w " + kAllowed + "=\"" + allowed + " " + a.value +
             "\" (after `modprobe tcp_" + a.value + "` if it is a module)";
    }
    return "";
  }

  std::vector<std::unique_ptr<AppliedLinkSetting>> apply(const SettingValue& value,
                                                         const std::vector<int>& link_ranks,
                                                         const LabNetwork& network,
                                                         netem::Backend*) const override {
    const auto& assignments = value.parsed<std::vector<Assignment>>();
    std::vector<std::unique_ptr<AppliedLinkSetting>> applied;
    for (const LocalRank& rank : network.local_ranks()) {
      if (std::find(link_ranks.begin(), link_ranks.end(), rank.rank) == link_ranks.end()) continue;
      if (rank.netns_fd < 0) {
        throw std::runtime_error("sysctl: rank " + std::to_string(rank.rank) +
                                 " runs in this host's own network namespace; fabriclab changes "
                                 "sysctls only inside the lab namespaces it created");
      }
      for (const Assignment& a : assignments) {
        applied.push_back(std::make_unique<AppliedSysctl>(rank.netns_fd, rank.netns_label, a));
      }
    }
    return applied;  // on a throw, those already set are restored here
  }
};

}  // namespace

const LinkSettingKind& sysctl_setting() {
  static const SysctlSetting instance;
  return instance;
}

}  // namespace fabriclab::runner
