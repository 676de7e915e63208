// What to start and how: the program, its environment, the network namespace
// it runs in and where its standard streams go. Plain data; see process.h for
// the launching.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fabriclab::runner {

// Where one standard stream of the child goes.
struct Redirect {
  enum class Kind {
    kInherit,  // the runner's own stream
    kNull,     // /dev/null
    kFile,     // `path`, created or truncated (mode 0644)
    kAppend,   // `path`, created or appended to
    kFd,       // `fd`, e.g. the write end of a pipe (not owned: close your
               // copy after launch() so that you see EOF when the child ends)
  };
  Kind kind = Kind::kInherit;
  std::string path;
  int fd = -1;

  static Redirect inherit() { return {}; }
  static Redirect null() { return {Kind::kNull, "", -1}; }
  static Redirect file(std::string path) { return {Kind::kFile, std::move(path), -1}; }
  static Redirect append(std::string path) { return {Kind::kAppend, std::move(path), -1}; }
  static Redirect to_fd(int fd) { return {Kind::kFd, "", fd}; }
};

struct LaunchSpec {
  // argv[0] is the program: a path, or a name looked up in PATH (of the
  // runner, before launching). For a rank: {"/proc/self/exe", "train", ...}
  // -- "/proc/self/exe" is resolved to the runner's own binary.
  std::vector<std::string> argv;
  // Environment: the runner's own (if inherit_environment) with `env`
  // added on top (same names replaced).
  std::map<std::string, std::string> env;
  bool inherit_environment = true;
  // Network namespace to run in (an fd, e.g. Topology::rank(i).netns_fd);
  // -1 = the runner's. Only the network namespace changes.
  int netns_fd = -1;
  std::string netns_label;                   // its name, for messages and the ledger
  std::string cwd;                           // working directory; "" = the runner's
  Redirect stdin_stream = Redirect::null();  // ranks never read the terminal
  Redirect stdout_stream = Redirect::inherit();
  Redirect stderr_stream = Redirect::inherit();
  std::string label;  // "rank 1": names the process in logs and errors
};

// torchrun's environment for one rank (DESIGN.md "Rank environment"):
// MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK, plus
// LOCAL_WORLD_SIZE, GROUP_RANK=0 and ROLE_RANK=RANK as torchrun sets them for
// one node. Merge it into LaunchSpec::env and add your own entries (e.g. the
// interface Gloo binds to).
std::map<std::string, std::string> torchrun_environment(const std::string& master_addr,
                                                        int master_port, int rank, int world_size,
                                                        int local_rank, int local_world_size);

}  // namespace fabriclab::runner
