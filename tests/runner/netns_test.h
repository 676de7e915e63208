// For runner tests on real namespaces: a command run inside one (its
// stdout), and a fixture holding a ledger in a temporary directory, skipped
// with the reason where namespaces cannot be created.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runner/ledger/ledger.h"
#include "runner/ledger/run_id.h"
#include "runner/process/process.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner::testing {

// Runs `argv` (PATH lookup) inside the namespace and returns its stdout.
// With `status`, the exit status is stored there for the caller to judge;
// without, the command must succeed (a failure names it, with its stderr).
inline std::string run_in_netns(int netns_fd, std::vector<std::string> argv,
                                ExitStatus* status = nullptr) {
  TempDir dir;
  LaunchSpec spec;
  spec.argv = std::move(argv);
  spec.netns_fd = netns_fd;
  spec.stdout_stream = Redirect::file(dir.path() + "/out");
  spec.stderr_stream = Redirect::file(dir.path() + "/err");
  const ExitStatus result = Process::launch(spec).wait();
  if (status != nullptr) {
    *status = result;
  } else {
    EXPECT_TRUE(result.success()) << spec.argv.front() << ": " << result.describe() << ": "
                                  << read_file(dir.path() + "/err");
  }
  return read_file(dir.path() + "/out");
}

// A ledger of its own per test, in a temporary directory; skipped without
// namespace privileges.
class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_NETNS_PRIVILEGES();
    ledger_ = std::make_unique<Ledger>(run_id_, ledger_dir_.path());
  }
  std::string run_id_ = make_run_id();
  TempDir ledger_dir_;
  std::unique_ptr<Ledger> ledger_;
};

}  // namespace fabriclab::runner::testing
