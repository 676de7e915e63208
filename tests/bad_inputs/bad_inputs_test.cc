// The bad-input catalogue (tests/bad_inputs/*.toml): every malformed lab,
// answers file, run directory, session.cast, impairment or queue word and
// flag value must make the real `fabriclab` exit 2 with a message naming the
// problem (file:line or the flag, and what was expected), and create
// nothing.
//
// "Creates nothing" is checked without racing the other runs on this
// machine: each case runs in a network and mount namespace of its own
// (unshare), with a fresh tmpfs on /run. Whatever the case made is then the
// only thing there is: a namespace or a ledger under /run, a link or qdisc
// other than lo's, an nftables table. Its processes carry a marker in their
// environment and must all be gone. Its work directory (inputs, default
// output folder) must hold the same files after as before.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <memory>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "common/build_paths.h"
#include "tests/bad_inputs/bad_input_case.h"
#include "tests/runner/test_support.h"
#include "tests/support/child_process.h"
#include "tests/support/ci_skip.h"

namespace fabriclab::bad_inputs {
namespace {

namespace fs = std::filesystem;
using runner::testing::TempDir;

const std::string kSource = fabriclab::build_paths::source_dir();

// Run inside `unshare --mount --net`: $1 the work directory, $2 the report
// file, then the command. The report is "exit N" and one line per thing
// the command left.
const char* const kIsolatedRun = R"sh(
dir=$1; report=$2; shift 2
mount -t tmpfs bad-input-run /run || { echo "cannot mount a tmpfs on /run"; exit 97; }
cd "$dir" || exit 97
"$@"
code=$?
{
  echo "exit $code"
  find /run -mindepth 1 | sed 's/^/created /'
  ip -o link show | awk -F': ' '$2 != "lo" { print "link " $2 }'
  tc qdisc show | grep -v '^qdisc noqueue 0: dev lo ' | sed 's/^/qdisc /'
  nft list tables | sed 's/^/nft /'
} >"$report" 2>&1
)sh";

std::vector<BadInputCase> all_cases() {
  try {
    return load_cases(kSource + "/tests/bad_inputs");
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return {};
  }
}

std::vector<uint8_t> bytes_of_hex(const std::string& hex) {
  std::vector<uint8_t> out;
  std::string digits;
  for (char c : hex)
    if (std::isxdigit(static_cast<unsigned char>(c))) digits += c;
  for (size_t i = 0; i + 1 < digits.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  return out;
}

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// Lays out the case's inputs under `dir`; throws std::runtime_error if the
// case is written wrong (an edit whose text is not there).
void prepare(const BadInputCase& c, const std::string& dir) {
  for (const auto& [to, from] : c.copies)
    fs::copy(kSource + "/" + from, fs::path(dir) / to,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  for (const Edit& e : c.edits) {
    const fs::path path = fs::path(dir) / e.file;
    std::string text = runner::testing::read_file(path.string());
    const size_t at = text.find(e.from);
    if (at == std::string::npos)
      throw std::runtime_error(c.where + ": '" + e.from + "' is not in " + e.file);
    text.replace(at, e.from.size(), expand(e.to, dir, kSource));
    write_file(path, text);
  }
  for (const auto& [path, text] : c.files) write_file(fs::path(dir) / path, expand(text, dir, kSource));
  for (const auto& [path, hex] : c.binary_files) {
    const std::vector<uint8_t> bytes = bytes_of_hex(hex);
    write_file(fs::path(dir) / path, std::string(bytes.begin(), bytes.end()));
  }
}

// Processes whose environment holds `entry` ("NAME=value").
std::vector<pid_t> processes_with(const std::string& entry) {
  std::vector<pid_t> found;
  for (const auto& proc : fs::directory_iterator("/proc")) {
    const std::string name = proc.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (!runner::testing::process_exists(pid)) continue;
    if (runner::testing::read_file(proc.path() / "environ").find(entry + '\0') != std::string::npos)
      found.push_back(pid);
  }
  return found;
}

std::set<std::string> files_under(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    out.insert(fs::relative(entry.path(), dir).string());
  return out;
}

// What one case did, gathered where it ran and checked by its test.
struct Outcome {
  std::string setup_error;  // the case could not be laid out
  std::string dir;          // its work directory ({dir})
  bool exited = false;      // false: killed after kLimit
  std::string output;       // fabriclab's stdout and stderr
  std::string first_report_line;  // "exit N"
  std::string leftovers;    // the rest of the report: what the case left in its namespaces
  std::set<std::string> files_before, files_after;
  std::vector<pid_t> processes;  // still carrying its marker
};

constexpr auto kLimit = std::chrono::seconds(30);

Outcome run_case(const BadInputCase& c, const std::string& scratch) {
  Outcome o;
  o.dir = scratch + "/work";
  const std::string report = scratch + "/report";
  try {
    fs::create_directories(o.dir);
    prepare(c, o.dir);
  } catch (const std::exception& e) {
    o.setup_error = e.what();
    return o;
  }
  o.files_before = files_under(o.dir);
  std::vector<std::string> argv = {"/usr/bin/unshare",
                                   "--mount",
                                   "--net",
                                   "--propagation",
                                   "private",
                                   "--",
                                   "/bin/sh",
                                   "-c",
                                   kIsolatedRun,
                                   "sh",
                                   o.dir,
                                   report,
                                   fabriclab::build_paths::fabriclab_binary()};
  for (const std::string& arg : c.args) argv.push_back(expand(arg, o.dir, kSource));
  // The marker names the case: a process still carrying it afterwards is one the case left.
  const std::string marker = "FABRICLAB_BAD_INPUT_CASE=" + c.name;
  std::map<std::string, std::string> env = {{"FABRICLAB_LABS", kSource + "/labs"},
                                            {"FABRICLAB_BAD_INPUT_CASE", c.name}};
  for (const auto& [key, value] : c.env) env[key] = expand(value, o.dir, kSource);
  const auto r = testing::run_command(argv, env, kLimit);
  o.exited = r.status.exited;
  o.output = r.output;
  std::ifstream report_in(report);
  std::getline(report_in, o.first_report_line);
  for (std::string line; std::getline(report_in, line);) o.leftovers += line + "\n";
  o.files_after = files_under(o.dir);
  // Leftover processes get time to be reaped: 120 s only stops a hang (how
  // soon they go on a loaded machine is not a check, doc/ci.md).
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!(o.processes = processes_with(marker)).empty() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return o;
}

class BadInput : public ::testing::TestWithParam<BadInputCase> {
 protected:
  // Each case costs a second of fabriclab starting (libtorch's static
  // initialisers), so the cases this run selects are run all at once here,
  // a few at a time, and each test checks what its case did.
  static void SetUpTestSuite() {
    if (!runner::testing::why_no_netns_privileges().empty()) return;
    const ::testing::TestSuite* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    std::set<std::string> selected;
    for (int i = 0; suite && i < suite->total_test_count(); ++i) {
      const ::testing::TestInfo* info = suite->GetTestInfo(i);
      const std::string name = info->name();
      if (info->should_run()) selected.insert(name.substr(name.rfind('/') + 1));
    }
    std::vector<const BadInputCase*> todo;
    for (const BadInputCase& c : cases())
      if (selected.count(c.name)) todo.push_back(&c);
    std::atomic<size_t> next{0};
    std::mutex done;
    const auto worker = [&] {
      for (size_t i; (i = next++) < todo.size();) {
        auto scratch = std::make_shared<TempDir>();
        Outcome o = run_case(*todo[i], scratch->path());
        std::lock_guard<std::mutex> lock(done);
        outcomes()[todo[i]->name] = {std::move(o), scratch};
      }
    };
    std::vector<std::thread> workers;
    for (int i = 0; i < kParallelCases; ++i) workers.emplace_back(worker);
    for (std::thread& t : workers) t.join();
  }
  static void TearDownTestSuite() { outcomes().clear(); }

 public:
  static const std::vector<BadInputCase>& cases() {
    static const std::vector<BadInputCase> all = all_cases();
    return all;
  }
  static std::map<std::string, std::pair<Outcome, std::shared_ptr<TempDir>>>& outcomes() {
    static std::map<std::string, std::pair<Outcome, std::shared_ptr<TempDir>>> map;
    return map;
  }
  // fabriclab mostly waits on the loader: more than the machine's cores.
  static constexpr int kParallelCases = 4;
};

TEST_P(BadInput, ExitsTwoNamingTheProblemAndCreatesNothing) {
  SKIP_UNLESS_NETNS_PRIVILEGES();  // unshare --mount --net
  const BadInputCase& c = GetParam();
  SCOPED_TRACE(c.where);
  const auto found = outcomes().find(c.name);
  ASSERT_NE(found, outcomes().end()) << "the case did not run";
  const Outcome& o = found->second.first;
  ASSERT_EQ(o.setup_error, "");
  ASSERT_TRUE(o.exited) << "still running after " << kLimit.count() << " s\n" << o.output;
  ASSERT_EQ(o.first_report_line.rfind("exit ", 0), 0u) << "the isolated run did not report\n"
                                                        << o.output;
  EXPECT_EQ(o.first_report_line, "exit " + std::to_string(c.exit_code)) << o.output;
  for (const std::string& words : c.message)
    EXPECT_NE(o.output.find(expand(words, o.dir, kSource)), std::string::npos)
        << "expected \"" << expand(words, o.dir, kSource) << "\" in:\n" << o.output;
  EXPECT_NE(o.output.find(expand(c.expected, o.dir, kSource)), std::string::npos)
      << "the message does not say what was expected (\"" << expand(c.expected, o.dir, kSource)
      << "\") in:\n" << o.output;
  // What no message may be: a library's raw exception or a crash.
  for (const char* raw : {"[json.exception", "terminate called", "what():", "Segmentation"})
    EXPECT_EQ(o.output.find(raw), std::string::npos) << o.output;
  EXPECT_EQ(o.leftovers, "") << "the case left these behind (or a check could not run)";
  EXPECT_EQ(o.files_after, o.files_before) << "files were created or removed in the work directory";
  EXPECT_TRUE(o.processes.empty()) << "processes of the case still run";
}

// The catalogue's own self-check: every case loads and names, in
// `expected`, words of the message other than the user's own input
// (bad_input_case.cc), so no case can be added that only looks for the token.
TEST(BadInputCatalogue, EveryCaseNamesWhatWasExpected) {
  try {
    EXPECT_FALSE(load_cases(kSource + "/tests/bad_inputs").empty());
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(BadInput::cases()),
                         [](const ::testing::TestParamInfo<BadInputCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace fabriclab::bad_inputs

// Its own main: without the privileges every case needs, the whole
// catalogue is skipped -- exit 77, which ctest reports as skipped -- instead
// of 295 skipped cases that ctest would count as one test passed. In CI
// (CI=true) the cases run and fail instead (tests/support/ci_skip.h).
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string why = fabriclab::runner::testing::why_no_netns_privileges();
  if (!why.empty() && !fabriclab::testing::in_ci()) {
    std::printf("bad_inputs_test: SKIP: %s\n", why.c_str());
    return 77;
  }
  return RUN_ALL_TESTS();
}
