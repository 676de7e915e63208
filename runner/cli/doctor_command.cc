// `fabriclab doctor`: are this machine's prerequisites in place? A list of
// checks (doctor_checks.h), each ok / warn / fail with what was found and the
// remedy. Exit 0 when every required check passes, 1 otherwise.
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_error.h"
#include "common/program_on_path.h"
#include "netem/backend_probe.h"
#include "runner/cli/commands.h"
#include "runner/cli/doctor_checks.h"
#include "runner/lab/lab_definition.h"
#include "runner/scenario/lab_fit.h"
#include "trainer/gemm.h"

namespace fabriclab::cli {

namespace {

std::vector<DoctorCheck>& registry() {
  static std::vector<DoctorCheck> checks;
  return checks;
}

bool has_cap_net_admin() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
      return caps & (1ULL << 12);  // CAP_NET_ADMIN
    }
  }
  return false;
}

// Can an unprivileged process make a user + network namespace? Tried in a
// child process (unshare(CLONE_NEWUSER) needs a single-threaded caller).
bool userns_works() {
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) _exit(unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

CheckResult privileges() {
  if (geteuid() == 0 && has_cap_net_admin())
    return {CheckStatus::kOk, "root with CAP_NET_ADMIN", ""};
  if (userns_works())
    return {CheckStatus::kOk,
            "not root, but unprivileged user namespaces work (rootless: unshare -U -r -n)", ""};
  return {CheckStatus::kFail, "neither root nor allowed to create user namespaces",
          "run as root (sudo), or allow unprivileged user namespaces "
          "(sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0)"};
}

CheckResult sch_netem() {
  const netem::BackendProbe probe = netem::probe_backend(netem::BackendKind::kNetem);
  const std::string& why = probe.why;
  switch (probe.availability) {
    case netem::Availability::kYes:
      return {CheckStatus::kOk, "this kernel has sch_netem: " + why, ""};
    case netem::Availability::kNo:
      return {CheckStatus::kWarn, "this kernel has no sch_netem: " + why,
              "modprobe sch_netem; if missing: apt install linux-modules-extra-$(uname -r) "
              "(Debian/Ubuntu) or dnf install kernel-modules-extra (Fedora); until then the "
              "userspace backend stands in (--backend auto)"};
    case netem::Availability::kUnknown:
      break;
  }
  return {CheckStatus::kWarn, "cannot tell whether this kernel has sch_netem: " + why,
          "run doctor as root to probe"};
}

CheckResult userspace_backend() {
  const netem::BackendProbe probe = netem::probe_backend(netem::BackendKind::kUserspace);
  if (probe.availability == netem::Availability::kYes) return {CheckStatus::kOk, probe.why, ""};
  return {CheckStatus::kWarn, probe.why,
          "see the detail; needed only where the kernel lacks sch_netem"};
}

// Only labs with a switch port queue (lab 08) need it: a warning, not a failure.
CheckResult switch_queue() {
  std::string why;
  if (netem::probe_switch_queue(&why) == netem::Availability::kYes)
    return {CheckStatus::kOk, why, ""};
  return {CheckStatus::kWarn, "a switch's port queue (lab 08) cannot be built here",
          why};
}

CheckResult some_backend() {
  bool netem_works = false, userspace_works = false;
  for (const netem::BackendProbe& probe : netem::probe_backends()) {
    const bool yes = probe.availability == netem::Availability::kYes;
    (probe.kind == netem::BackendKind::kNetem ? netem_works : userspace_works) = yes;
  }
  if (netem_works || userspace_works)
    return {CheckStatus::kOk,
            std::string("impairments will use the ") + (netem_works ? "netem" : "userspace") +
                " backend (--backend auto)",
            ""};
  return {CheckStatus::kFail, "neither sch_netem nor the userspace backend can run here",
          "see the sch_netem and userspace-backend checks above"};
}

std::function<CheckResult()> tool(const std::string& name, const std::string& why,
                                  const std::string& package) {
  return [=] {
    if (program_on_path(name)) return CheckResult{CheckStatus::kOk, name + " found (" + why + ")", ""};
    return CheckResult{CheckStatus::kWarn, name + " not found (" + why + ")",
                       "apt install " + package};
  };
}

CheckResult dataset() {
  const std::string dir = "/usr/share/datasets/fashion-mnist";
  std::string missing;
  for (const char* f : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    struct stat st;
    std::string p = dir + "/" + f;
    if (::stat(p.c_str(), &st) != 0 && ::stat((p + ".gz").c_str(), &st) != 0)
      missing += std::string(missing.empty() ? "" : ", ") + f;
  }
  if (missing.empty()) return {CheckStatus::kOk, "Fashion-MNIST in " + dir, ""};
  return {CheckStatus::kFail, "missing from " + dir + ": " + missing,
          "apt install dataset-fashion-mnist"};
}

// Never fails: it says what the trainer's dense layers will multiply on, the
// first thing to look at when steps are slower than the README's figures.
CheckResult matrix_products() {
  return {CheckStatus::kOk,
          "dense layers on " + trainer::describe_gemm(trainer::Gemm::kOnednn) +
              " (--gemm torch: " + trainer::describe_gemm(trainer::Gemm::kTorch) + ")",
          ""};
}

void register_builtin_checks() {
  static bool done = false;
  if (done) return;
  done = true;
  std::vector<DoctorCheck> builtin = {
      {"privileges", true, privileges},
      {"sch_netem", false, sch_netem},
      {"userspace backend", false, userspace_backend},
      {"impairment backend", true, some_backend},
      {"switch queue", false, switch_queue},
      {"tc", false, tool("tc", "reference client; fixtures and tests", "iproute2")},
      {"strace", false, tool("strace", "byte-for-byte comparison with tc", "strace")},
      {"ping", false, tool("ping", "RTT checks in tests and labs", "iputils-ping")},
      {"iperf3", false, tool("iperf3", "line-rate measurement in lab 04", "iperf3")},
      {"dataset", true, dataset},
      {"matrix products", false, matrix_products},
  };
  // Built-in checks first, then the ones other files registered.
  auto& r = registry();
  r.insert(r.begin(), builtin.begin(), builtin.end());
}

// One optional check per lab: runs (ok), runs with a caveat (warn) or
// cannot (FAIL), and why (runner/scenario/lab_fit.h).
std::vector<DoctorCheck> lab_checks(const std::string& labs_dir) {
  const std::string labs = labs_dir.empty() ? runner::default_labs_dir() : labs_dir;
  std::vector<DoctorCheck> checks;
  std::vector<std::string> files;
  try {
    files = runner::list_lab_files(labs);
  } catch (const std::exception&) {
    return checks;  // no labs folder here: nothing to say about labs
  }
  for (const std::string& file : files) {
    const runner::LabDefinition lab = runner::load_lab(file);
    checks.push_back({"lab " + lab.id, false,
                      [lab] {
                        const runner::LabFit fit = runner::fit_lab(lab, true);
                        std::string detail = runner::verdict_words(fit.verdict);
                        for (const std::string& note : fit.notes) detail += "; " + note;
                        const CheckStatus status =
                            fit.verdict == runner::LabFitVerdict::kRuns ? CheckStatus::kOk
                            : fit.verdict == runner::LabFitVerdict::kCannot ? CheckStatus::kFail
                                                                            : CheckStatus::kWarn;
                        return CheckResult{status, detail,
                                           status == CheckStatus::kOk
                                               ? ""
                                               : "`fabriclab check NN` tries every setting"};
                      }});
  }
  return checks;
}

const char* label(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk:
      return "ok";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "FAIL";
  }
  return "?";
}

}  // namespace

void register_doctor_check(DoctorCheck check) { registry().push_back(std::move(check)); }

const std::vector<DoctorCheck>& doctor_checks() {
  register_builtin_checks();
  return registry();
}

void add_doctor_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "doctor",
      "Check this machine's prerequisites: privileges, sch_netem or the userspace "
      "backend, tools, dataset (exit 1 if a required one fails)");
  auto json = std::make_shared<bool>(false);
  auto labs_dir = std::make_shared<std::string>();
  auto skip_labs = std::make_shared<bool>(false);
  command->add_flag("--json", *json, "JSON output");
  command->add_option("--labs", *labs_dir, "Folder of labs [default: $FABRICLAB_LABS or ./labs]");
  command->add_flag("--no-labs", *skip_labs,
                    "Leave out the labs: whether each runs here, and why (a few seconds a lab)");
  command->callback([json, labs_dir, skip_labs] {
    bool all_required_ok = true;
    nlohmann::json out = nlohmann::json::array();
    std::vector<DoctorCheck> checks = doctor_checks();
    if (!*skip_labs) {
      const std::vector<DoctorCheck> labs = lab_checks(*labs_dir);
      checks.insert(checks.end(), labs.begin(), labs.end());
    }
    for (const DoctorCheck& c : checks) {
      CheckResult r;
      try {
        r = c.run();
      } catch (const std::exception& e) {
        r = {CheckStatus::kFail, std::string("the check itself failed: ") + e.what(), ""};
      }
      if (c.required && r.status == CheckStatus::kFail) all_required_ok = false;
      if (*json) {
        out.push_back({{"name", c.name},
                       {"required", c.required},
                       {"status", label(r.status)},
                       {"detail", r.detail},
                       {"remedy", r.remedy}});
        continue;
      }
      std::string tag = std::string("[") + label(r.status) + "]";
      tag.resize(7, ' ');
      std::string name = c.name + (c.required ? "" : " (optional)");
      name.resize(std::max<size_t>(name.size(), 30), ' ');
      std::cout << tag << name << r.detail << "\n";
      if (!r.remedy.empty()) std::cout << std::string(37, ' ') << "remedy: " << r.remedy << "\n";
    }
    if (*json) std::cout << out.dump(2) << "\n";
    std::cout.flush();
    if (!all_required_ok) throw CommandExit{kExitFailure};
  });
}

}  // namespace fabriclab::cli
