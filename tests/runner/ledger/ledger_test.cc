// The ledger file and run ids, with real files (reading stale ledgers and
// removing what they list is runner/cleanup/: tests/runner/cleanup/).
#include "runner/ledger/ledger.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/process_identity.h"
#include "runner/ledger/run_id.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {
namespace {

using testing::TempDir;

using testing::read_json;

TEST(RunId, IsShortAndValid) {
  std::string id = make_run_id();
  EXPECT_EQ(id.size(), 6u);
  EXPECT_TRUE(is_valid_run_id(id));
  EXPECT_FALSE(is_valid_run_id(""));
  EXPECT_FALSE(is_valid_run_id("ABC"));
  EXPECT_FALSE(is_valid_run_id("123456789"));
  EXPECT_NE(make_run_id(), make_run_id());
}

TEST(Ledger, WritesEveryChangeBeforeReturning) {
  TempDir dir;
  std::string path;
  {
    Ledger ledger("abc123", dir.path());
    path = ledger.path();
    EXPECT_EQ(path, dir.path() + "/abc123.json");
    nlohmann::json document = read_json(path);
    EXPECT_EQ(document["format"], "fabriclab-ledger");
    EXPECT_EQ(document["run_id"], "abc123");
    EXPECT_EQ(document["owner"]["pid"], ::getpid());
    EXPECT_EQ(document["owner"]["start_ticks"], self_identity().start_ticks);

    Ledger::EntryId a = ledger.record({{"kind", "netns"}, {"name", "fl-abc123-r0"}});
    Ledger::EntryId b = ledger.record({{"kind", "process"}, {"pid", 42}});
    EXPECT_NE(a, b);
    EXPECT_EQ(read_json(path)["entries"].size(), 2u);
    ledger.update(a, {{"inode", 7}});
    EXPECT_EQ(read_json(path)["entries"][0]["inode"], 7);
    ledger.forget(a);
    auto entries = read_json(path)["entries"];
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0]["kind"], "process");
    EXPECT_THROW(ledger.record({{"no", "kind"}}), std::logic_error);
    EXPECT_THROW(Ledger("abc123", dir.path()), std::runtime_error);  // same run id
    ledger.forget(b);
  }
  // Ended cleanly (nothing left): the file is gone, and no temp file remains.
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Ledger, KeepsTheFileWhenSomethingWasNotRemoved) {
  TempDir dir;
  std::string path;
  {
    Ledger ledger("keep1", dir.path());
    path = ledger.path();
    ledger.record({{"kind", "netns"}, {"name", "fl-keep1-r0"}});
  }
  EXPECT_TRUE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace fabriclab::runner
