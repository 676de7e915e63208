// `fabriclab netem apply|show|clear`: impairments by hand, in tc's words.
//
//   fabriclab netem apply DEV SPEC... [--netns NAME] [--peer ADDR]...
//                   [--backend netem|userspace|auto] [--dry-run]
//                   [--change | --replace] [--parent ID]
//   fabriclab netem show DEV [--netns NAME] [--json]
//   fabriclab netem clear DEV [--netns NAME] [--force]
//
// With the netem backend the impairment stays after the command exits (like
// tc) until `netem clear`; with the userspace backend it lives in this
// process, so `apply` stays in the foreground until Ctrl-C.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <net/if.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/input_error.h"
#include "netem/impairment.h"
#include "netem/netlink/message_dump.h"
#include "netem/netlink/netlink_backend.h"
#include "netem/netlink/peer_filter.h"
#include "netem/spec_parse.h"
#include "runner/cli/commands.h"

namespace fabriclab::cli {

namespace {

namespace nl = netem::netlink;

struct NetemArgs {
  std::string device;
  std::vector<std::string> words;
  std::string netns;
  std::vector<std::string> peers;
  std::string backend = "netem";
  std::string parent;
  bool dry_run = false;
  bool change = false;
  bool replace = false;
  bool json = false;
  bool force = false;
  bool ingress = false;
};

netem::Target target_of(const NetemArgs& a) {
  if (!a.netns.empty()) {
    struct stat st;
    if (::stat(("/run/netns/" + a.netns).c_str(), &st) != 0)
      throw InputError("no network namespace '" + a.netns +
                       "' (expected a name from `ip netns list`)");
  }
  netem::Target t;
  t.netns = a.netns;
  t.device = a.device;
  t.peers = a.peers;
  if (a.ingress) t.direction = netem::Direction::kIngress;
  return t;
}

// A device that is not there is the user's mistake (exit 2), not the
// kernel's. Inside a namespace only root can look (elsewhere the kernel's
// own error follows).
void require_device(const netem::Target& t) {
  const bool found = t.netns.empty() ? ::if_nametoindex(t.device.c_str()) != 0
                                     : nl::lookup_ifindex(t) != 0;
  if (found || (!t.netns.empty() && ::geteuid() != 0)) return;
  throw InputError("device '" + t.device + "': no such device" +
                   (t.netns.empty() ? " (expected a name from `ip link`)"
                                    : " in namespace " + t.netns + " (expected a name from `ip -n " +
                                          t.netns + " link`)"));
}

// All positional words, split again so a quoted spec works too.
std::vector<std::string> spec_words(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args)
    for (std::string& w : netem::split_words(a)) out.push_back(std::move(w));
  return out;
}

nl::NetlinkOptions netlink_options(const NetemArgs& a) {
  nl::NetlinkOptions o;
  o.mode = a.change    ? nl::ApplyMode::kChange
           : a.replace ? nl::ApplyMode::kReplace
                       : nl::ApplyMode::kAdd;
  if (!a.parent.empty()) {
    try {
      nl::parse_handle(a.parent);
    } catch (const InputError& e) {
      throw InputError(std::string("--parent: ") + e.what());
    }
    o.parent = a.parent;
  }
  return o;
}

void dry_run(const NetemArgs& a, const netem::Target& target, const netem::Spec& spec) {
  nl::NetlinkBackend backend(netlink_options(a));
  int ifindex = nl::lookup_ifindex(target);
  auto plan = backend.plan(target, spec, ifindex);
  std::cout << "# dry run: the rtnetlink message" << (plan.size() > 1 ? "s" : "")
            << " `apply` would send, in order; nothing is sent.\n";
  if (ifindex == 0)
    std::cout << "# " << a.device << " was not found" << (a.netns.empty() ? "" : " in " + a.netns)
              << ": ifindex shown as 0.\n";
  if (a.backend != "netem")
    std::cout << "# (these are the netem backend's messages; the userspace backend sends none: "
                 "it diverts packets with an nftables NFQUEUE rule)\n";
  int i = 0;
  for (const nl::PlannedMessage& m : plan) {
    std::cout << "\n# " << ++i << "/" << plan.size() << ": " << m.what() << "\n"
              << nl::describe_message(m.bytes) << "\n"
              << nl::hex_dump(m.bytes);
  }
}

// Blocks SIGINT/SIGTERM and waits for one (userspace: the impairment lives
// as long as this process).
int wait_for_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

void apply(const NetemArgs& a) {
  if (a.change && a.replace) throw InputError("--change and --replace exclude each other");
  std::vector<std::string> words = spec_words(a.words);
  netem::Spec spec = netem::parse_spec(words);
  netem::Target target = target_of(a);
  netem::BackendKind kind = netem::parse_backend_kind(a.backend);
  if (a.dry_run) {
    dry_run(a, target, spec);
    return;
  }
  require_device(target);
  netlink_options(a);  // a bad --parent before anything is applied

  std::string why;
  std::unique_ptr<netem::Backend> backend;
  if (kind == netem::BackendKind::kNetem) {
    backend = std::make_unique<nl::NetlinkBackend>(netlink_options(a));
  } else {
    backend = netem::make_backend(kind, &why);
    spdlog::info("{}", why);
    if (backend->name() == "netem")
      backend = std::make_unique<nl::NetlinkBackend>(netlink_options(a));
  }
  if (backend->name() != "netem" && (a.change || a.replace || !a.parent.empty()))
    throw InputError(
        "--change, --replace and --parent are for the netem backend; the userspace "
        "backend applies anew each time");

  std::unique_ptr<netem::Applied> applied = backend->apply(target, spec);
  if (applied->release()) {
    std::cout << "applied " << applied->describe() << "\n"
              << "remove it with: fabriclab netem clear " << a.device
              << (a.netns.empty() ? "" : " --netns " + a.netns) << "\n";
    return;
  }
  std::cout << "applied " << applied->describe() << "\n"
            << "the " << backend->name()
            << " backend's impairment lives in this process: press Ctrl-C to remove it and exit"
            << std::endl;
  int sig = wait_for_signal();
  netem::Stats s = applied->stats();
  applied.reset();  // removes the impairment
  std::cout << "\nremoved (signal " << sig << "); packets " << s.packets << ", dropped " << s.drops
            << "\n";
}

std::string percent_or_empty(const netem::Spec& s) { return netem::print_spec(s); }

void show(const NetemArgs& a) {
  netem::Target target = target_of(a);
  require_device(target);
  std::vector<nl::QdiscInfo> qdiscs = nl::show_qdiscs(target);
  auto owned = [](const nl::QdiscInfo& q) {
    return (q.handle & 0xffff0000u) == nl::kRootHandle ||
           (q.handle & 0xffff0000u) == nl::kLeafHandle;
  };
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const nl::QdiscInfo& q : qdiscs) {
      nlohmann::json j = {{"kind", q.kind},
                          {"handle", nl::format_handle(q.handle)},
                          {"parent", nl::format_handle(q.parent)},
                          {"fabriclab", owned(q)},
                          {"stats",
                           {{"bytes", q.stats.bytes},
                            {"packets", q.stats.packets},
                            {"drops", q.stats.drops},
                            {"overlimits", q.stats.overlimits},
                            {"requeues", q.stats.requeues},
                            {"backlog_bytes", q.stats.backlog_bytes},
                            {"backlog_packets", q.stats.qlen}}}};
      if (q.netem && q.netem->valid) {
        const netem::Spec& s = q.netem->spec;
        j["netem"] = {{"spec", percent_or_empty(s)},
                      {"limit_packets", s.limit_packets},
                      {"delay_us", s.delay_us},
                      {"jitter_us", s.jitter_us},
                      {"loss", s.loss},
                      {"duplicate", s.duplicate},
                      {"corrupt", s.corrupt},
                      {"reorder", s.reorder},
                      {"rate_bytes_per_s", s.rate_bytes_per_s},
                      {"ecn", s.ecn}};
      }
      out.push_back(j);
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::string where = a.netns.empty() ? a.device : a.netns + "/" + a.device;
  if (qdiscs.empty()) std::cout << "no qdiscs on " << where << "\n";
  for (const nl::QdiscInfo& q : qdiscs) {
    std::cout << "qdisc " << q.kind << " " << nl::format_handle(q.handle) << " "
              << (q.parent == 0xFFFFFFFFu ? "root" : "parent " + nl::format_handle(q.parent))
              << (owned(q) ? "  [fabriclab]" : "") << "\n";
    if (q.netem && q.netem->valid) std::cout << "  " << netem::print_spec(q.netem->spec) << "\n";
    std::cout << "  sent " << q.stats.bytes << " bytes " << q.stats.packets << " pkt (dropped "
              << q.stats.drops << ", overlimits " << q.stats.overlimits << ", requeues "
              << q.stats.requeues << ") backlog " << q.stats.backlog_bytes << "b " << q.stats.qlen
              << "p\n";
  }
}

void clear(const NetemArgs& a) {
  const netem::Target target = target_of(a);
  require_device(target);
  std::cout << nl::clear_impairment(target, a.force) << "\n";
}

void common_options(CLI::App* c, NetemArgs& a) {
  c->add_option("device", a.device, "Network device, e.g. veth0")->required();
  c->add_option("--netns", a.netns, "Network namespace (a name from `ip netns list`)");
}

}  // namespace

void add_netem_command(CLI::App& app) {
  auto* netem_cmd = app.add_subcommand(
      "netem", "Put latency, jitter and loss on a link, in tc-netem's words (apply, show, clear)");
  netem_cmd->require_subcommand(1);
  auto args = std::make_shared<NetemArgs>();

  auto* apply_cmd = netem_cmd->add_subcommand(
      "apply",
      "Impair DEV as `tc qdisc add dev DEV root netem SPEC` would, e.g.\n"
      "  fabriclab netem apply veth0 delay 100ms 10ms loss 1% --netns lab0\n"
      "SPEC words: delay TIME [JITTER [CORR]], distribution NAME, loss [random] P [CORR],\n"
      "loss state ..., loss gemodel ..., duplicate P, corrupt P, reorder P [CORR] [gap N],\n"
      "rate RATE, limit N, ecn, slot ... (see tc-netem(8)). A negative number (rate\n"
      "overhead) needs `--` before the spec.");
  common_options(apply_cmd, *args);
  apply_cmd->add_option("spec", args->words, "The netem words")->required();
  apply_cmd->add_option("--peer", args->peers,
                        "Impair only traffic to this address (repeatable): htb + u32 filters, "
                        "everything else untouched");
  apply_cmd->add_flag("--ingress", args->ingress,
                      "Impair packets arriving on DEV (--peer then names sources), userspace "
                      "backend only. Holding a local sender's own packets on egress lets TCP "
                      "Small Queues throttle it to a few packets per delay; on the receiving "
                      "side (what `fabriclab run` does) it runs at full speed");
  apply_cmd->add_option("--backend", args->backend, "netem (kernel), userspace (NFQUEUE) or auto")
      ->check(CLI::IsMember({"netem", "userspace", "auto"}));
  apply_cmd->add_flag("--dry-run", args->dry_run,
                      "Print the netlink messages (decoded and in hex) and send nothing");
  apply_cmd->add_flag("--change", args->change,
                      "Change fabriclab's netem already on DEV, as tc's change does: a setting "
                      "these words leave out (rate, corrupt, reorder, ecn, slot) keeps its old "
                      "value in the kernel");
  apply_cmd->add_flag("--replace", args->replace, "Replace the root qdisc of DEV (tc's replace)");
  apply_cmd->add_option("--parent", args->parent,
                        "Attach under this class (e.g. 1:10) instead of at the root");
  apply_cmd->callback([args] { apply(*args); });

  auto* show_cmd = netem_cmd->add_subcommand(
      "show", "List DEV's qdiscs with their options and statistics (like tc -s qdisc show)");
  common_options(show_cmd, *args);
  show_cmd->add_flag("--json", args->json, "JSON output (base units: bytes, packets, us)");
  show_cmd->callback([args] { show(*args); });

  auto* clear_cmd = netem_cmd->add_subcommand(
      "clear", "Remove fabriclab's impairment (root qdisc fab0:) from DEV");
  common_options(clear_cmd, *args);
  clear_cmd->add_flag("--force", args->force,
                      "Remove the root qdisc even if fabriclab did not create it");
  clear_cmd->callback([args] { clear(*args); });
}

}  // namespace fabriclab::cli
