#include "netem/netlink/netlink_probe.h"

#include <sched.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>

#include "common/rtnl_socket.h"
#include "netem/netlink/kernel_error.h"
#include "netem/netlink/qdisc_message.h"
#include "netem/spec_parse.h"

namespace fabriclab::netem::netlink {

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool file_mentions(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

Availability from_filesystem(std::string* why, const std::string& reason) {
  utsname u{};
  uname(&u);
  std::string mods = std::string("/lib/modules/") + u.release;
  auto say = [&](Availability s, const std::string& what) {
    if (why) *why = what + " (" + reason + ")";
    return s;
  };
  if (exists("/sys/module/sch_netem")) return say(Availability::kYes, "sch_netem is loaded");
  if (file_mentions(mods + "/modules.builtin", "sch_netem.ko"))
    return say(Availability::kYes, "sch_netem is built into the kernel");
  if (file_mentions(mods + "/modules.dep", "sch_netem.ko"))
    return say(Availability::kYes, "sch_netem is installed as a module (modprobe loads it)");
  if (exists(mods))
    return say(Availability::kNo, "no sch_netem module under " + mods +
                                      "; install linux-modules-extra-" + u.release +
                                      " (Debian/Ubuntu) or kernel-modules-extra (Fedora)");
  return say(Availability::kUnknown, "cannot tell: no " + mods);
}

}  // namespace

Availability probe_backend(std::string* why) {
  Availability result = Availability::kUnknown;
  std::string detail;
  std::thread probe([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      detail = std::string("cannot create a network namespace to probe: ") + strerror(errno);
      return;
    }
    try {
      RtnlSocket sock;
      QdiscPlace place{sock.ifindex("lo"), 0xFFFFFFFFu, 0};
      sock.request(
          build_netem_qdisc(QdiscCommand::kAdd, place, parse_spec("delay 1ms"), sock.next_seq()),
          "add netem to lo");
      result = Availability::kYes;
      detail = "the kernel accepted a netem qdisc in a throwaway namespace";
    } catch (const KernelError& e) {
      if (is_unknown_qdisc_kind(e, "netem")) {
        result = Availability::kNo;
        detail =
            "the kernel refused a netem qdisc in a throwaway namespace: \"" +
            (e.kernel_message().empty() ? std::string(strerror(e.error())) : e.kernel_message()) +
            "\"";
      } else {
        detail = std::string("the probe failed: ") + e.what();
      }
    } catch (const std::exception& e) {
      detail = std::string("the probe failed: ") + e.what();
    }
  });
  probe.join();
  if (result == Availability::kUnknown) return from_filesystem(why, detail);
  if (why) *why = detail;
  return result;
}

}  // namespace fabriclab::netem::netlink
