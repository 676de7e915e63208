// The checks `fabriclab doctor` runs: a small registry others add to.
//
// A check has a name, says whether it is required (a failed required check
// makes `doctor` exit 1), and a function returning ok/warn/fail with a detail
// sentence and, when not ok, the remedy. To add one from any file linked into
// the fabriclab executable:
//
//   static fabriclab::cli::DoctorRegistrar my_check{{"ports", false, [] {
//     return fabriclab::cli::CheckResult{fabriclab::cli::CheckStatus::kOk, "29500 is free", ""};
//   }}};
//
// Checks run in registration order within a file; the built-in ones
// (doctor_command.cc) come first. A check must not change the host: probes
// that need a namespace create a throwaway one. Not thread-safe: register at
// static-initialisation time or from add_*_command().
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fabriclab::cli {

enum class CheckStatus { kOk, kWarn, kFail };

struct CheckResult {
  CheckStatus status = CheckStatus::kOk;
  std::string detail;  // what was found
  std::string remedy;  // what to do (empty when ok)
};

struct DoctorCheck {
  std::string name;
  bool required = false;
  std::function<CheckResult()> run;
};

void register_doctor_check(DoctorCheck check);
const std::vector<DoctorCheck>& doctor_checks();

struct DoctorRegistrar {
  explicit DoctorRegistrar(DoctorCheck check) { register_doctor_check(std::move(check)); }
};

}  // namespace fabriclab::cli
