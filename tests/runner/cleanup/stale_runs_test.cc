// Cleaning up stale runs from their ledgers (runner/cleanup/stale_runs.h),
// with real files and real processes (no namespaces: those are in
// stale_runs_netns_test.cc).
#include "runner/cleanup/stale_runs.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>

#include "common/process_identity.h"
#include "runner/ledger/ledger.h"
#include "runner/process/process.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

using testing::TempDir;

using testing::read_json;

// The identity of a process that has ended (and was reaped): a dead owner.
ProcessIdentity dead_process() {
  pid_t child = ::fork();
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  ProcessIdentity identity{child, process_start_ticks(child).value_or(0)};
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  return identity;
}

// Writes a ledger as a killed runner would have left it.
void write_stale_ledger(const std::string& dir, const std::string& run_id,
                        const nlohmann::json& entries, ProcessIdentity owner = dead_process()) {
  nlohmann::json document = {
      {"format", "fabriclab-ledger"},
      {"version", 1},
      {"run_id", run_id},
      {"owner", {{"pid", owner.pid}, {"start_ticks", owner.start_ticks}, {"host_uid", 0}}},
      {"entries", entries}};
  std::ofstream(dir + "/" + run_id + ".json") << document.dump(2);
}

TEST(StaleRuns, LeavesRunsInProgressAlone) {
  TempDir dir;
  Ledger ledger("alive1", dir.path());
  ledger.record({{"kind", "mystery"}});
  CleanupReport report = clean_stale_runs({dir.path(), false});
  EXPECT_TRUE(report.runs.empty());
  EXPECT_EQ(report.in_progress, std::vector<std::string>{"alive1"});
  EXPECT_TRUE(std::filesystem::exists(ledger.path()));
  ledger.forget(1);
}

TEST(StaleRuns, KillsRecordedProcessesAndOnlyThose) {
  TempDir dir;
  // Two processes that outlived their (dead) runner, one of them recorded.
  LaunchSpec spec;
  spec.argv = {"/bin/sh", "-c", "exec sleep 100"};
  Process recorded = Process::launch(spec);
  Process unrelated = Process::launch(spec);
  write_stale_ledger(dir.path(), "dead01",
                     {{{"id", 1},
                       {"kind", "process"},
                       {"pid", recorded.pid()},
                       {"start_ticks", *process_start_ticks(recorded.pid())},
                       {"label", "rank 0"}}});

  CleanupReport dry = clean_stale_runs({dir.path(), true});
  ASSERT_EQ(dry.runs.size(), 1u);
  ASSERT_EQ(dry.runs[0].actions.size(), 1u);
  EXPECT_NE(dry.runs[0].actions[0].find("would kill"), std::string::npos);
  EXPECT_FALSE(recorded.poll().has_value());  // dry run: nothing done
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/dead01.json"));

  CleanupReport report = clean_stale_runs({dir.path(), false});
  ASSERT_EQ(report.runs.size(), 1u);
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.runs[0].run_id, "dead01");
  EXPECT_NE(report.runs[0].actions[0].find("rank 0"), std::string::npos);
  EXPECT_TRUE(report.runs[0].ledger_removed);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/dead01.json"));
  EXPECT_EQ(recorded.wait().signal, SIGKILL);
  EXPECT_FALSE(unrelated.poll().has_value());

  EXPECT_TRUE(clean_stale_runs({dir.path(), false}).runs.empty());
}

TEST(StaleRuns, UnknownKindsAndFailuresStayInTheLedger) {
  TempDir dir;
  int handled = 0;
  register_cleanup_handler("test-thing",
                           [&handled](const nlohmann::json& entry, const CleanupContext& context) {
                             EXPECT_EQ(context.run_id, "dead02");
                             if (entry.value("fail", false))
                               throw std::runtime_error("test-thing: cannot remove");
                             if (!context.dry_run) ++handled;
                             return std::string("test-thing removed");
                           });
  write_stale_ledger(dir.path(), "dead02",
                     {{{"id", 1}, {"kind", "test-thing"}},
                      {{"id", 2}, {"kind", "test-thing"}, {"fail", true}},
                      {{"id", 3}, {"kind", "unheard-of"}}});
  CleanupReport report = clean_stale_runs({dir.path(), false});
  ASSERT_EQ(report.runs.size(), 1u);
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(handled, 1);
  EXPECT_EQ(report.runs[0].errors.size(), 2u);
  EXPECT_FALSE(report.runs[0].ledger_removed);
  auto left = read_json(dir.path() + "/dead02.json")["entries"];
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0]["id"], 2);
  EXPECT_EQ(left[1]["id"], 3);
  std::vector<std::string> lines = describe(report, false);
  EXPECT_NE(lines.back().find("ledger kept"), std::string::npos);
}

}  // namespace
}  // namespace fabriclab::runner
