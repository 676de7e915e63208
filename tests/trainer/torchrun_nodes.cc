#include "tests/trainer/torchrun_nodes.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/build_paths.h"

namespace fabriclab::testing {
namespace {

constexpr const char* kAddresses[2] = {"10.211.0.1", "10.211.0.2"};
constexpr int kMasterPort = 29500;  // fresh namespaces: nothing else listens there
constexpr int kRdzvPort = 29400;

TwoNetnsOptions two_nodes() {
  TwoNetnsOptions options;
  options.prefix = "fltr";
  options.devices = {TorchrunNodes::kDevice, TorchrunNodes::kDevice};
  options.addresses[0] = {std::string(kAddresses[0]) + "/24"};
  options.addresses[1] = {std::string(kAddresses[1]) + "/24"};
  options.disable_ipv6 = true;
  return options;
}

std::string torchrun_script() {
  return std::string(fabriclab::build_paths::source_dir()) + "/scripts/torchrun";
}

std::vector<pid_t> pids_in(const std::string& netns) {
  std::vector<pid_t> pids;
  std::istringstream lines(run_shell("ip netns pids " + netns).output);
  for (pid_t pid; lines >> pid;) pids.push_back(pid);
  return pids;
}

std::string proc_file(pid_t pid, const char* name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::string TorchrunNodes::skip_reason() {
  std::string reason = TwoNetns::skip_reason();
  if (!reason.empty()) return reason;
  if (run_shell("unshare --uts --mount true").exit_code != 0)
    return "needs util-linux's unshare with UTS and mount namespaces";
  if (run_shell("/usr/bin/python3 -c 'import torch.distributed.run'").exit_code != 0)
    return "needs torchrun (apt-get install python3-torch)";
  return "";
}

TorchrunNodes::TorchrunNodes(TorchrunOptions options)
    : options_(std::move(options)),
      nodes_(two_nodes()),
      dir_(make_temp_dir("torchrun")),
      port_(kMasterPort) {
  std::ofstream(dir_ + "/hosts") << "127.0.0.1 localhost\n"
                                 << kAddresses[0] << " node0\n"
                                 << kAddresses[1] << " node1\n";
  for (int node = 0; node < 2; ++node) {
    agents_.push_back(std::make_unique<ChildProcess>(
        std::vector<std::string>{"/bin/sh", "-c",
                                 "exec ip netns exec " + nodes_.netns(node) +
                                     " unshare --uts --mount /bin/sh " + write_node_script(node)},
        options_.env, dir_ + "/node" + std::to_string(node) + ".log"));
  }
}

TorchrunNodes::~TorchrunNodes() {
  // A failed test may leave torchrun's workers behind its agent: end every
  // process in the two namespaces (ours alone) before they go.
  for (int node = 0; node < 2; ++node) {
    for (pid_t pid : pids_in(nodes_.netns(node))) ::kill(pid, SIGKILL);
  }
  agents_.clear();
  std::filesystem::remove_all(dir_);
}

std::string TorchrunNodes::write_node_script(int node) const {
  const std::string path = dir_ + "/node" + std::to_string(node) + ".sh";
  std::ofstream script(path);
  script << "set -e\n"
         << "hostname node" << node << "\n"
         << "mount --bind " << dir_ << "/hosts /etc/hosts\n"
         << "exec " << torchrun_script() << " --nnodes=2 --nproc_per_node="
         << options_.procs_per_node << " --max_restarts=" << options_.max_restarts
         << " --monitor_interval=0.5";
  if (options_.rdzv_backend == "static") {
    script << " --node_rank=" << node << " --master_addr=node0 --master_port=" << port_;
  } else {
    script << " --rdzv_backend=" << options_.rdzv_backend << " --rdzv_endpoint=node0:" << kRdzvPort
           << " --rdzv_id=fabriclab-test";
  }
  // ${local_rank} is torchrun's macro, substituted per worker.
  script << " --no_python " << fabriclab::build_paths::fabriclab_binary() << " train";
  if (!options_.data.empty()) script << " --data '" << options_.data << "'";
  script << " --metrics '" << dir_ << "/node" << node << "-rank${local_rank}.jsonl'";
  for (const auto& arg : options_.train_args) script << " '" << arg << "'";
  script << "\n";
  return path;
}

std::string TorchrunNodes::metrics(int node, int local_rank) const {
  return dir_ + "/node" + std::to_string(node) + "-rank" + std::to_string(local_rank) + ".jsonl";
}

pid_t TorchrunNodes::worker_pid(int rank) const {
  const std::string wanted = "RANK=" + std::to_string(rank);
  for (int node = 0; node < 2; ++node) {
    for (pid_t pid : pids_in(nodes_.netns(node))) {
      const std::string cmdline = proc_file(pid, "cmdline");
      if (cmdline.rfind(std::string(fabriclab::build_paths::fabriclab_binary()) + '\0' + "train",
                        0) != 0)
        continue;
      std::istringstream environ(proc_file(pid, "environ"));
      for (std::string var; std::getline(environ, var, '\0');) {
        if (var == wanted) return pid;
      }
    }
  }
  return -1;
}

}  // namespace fabriclab::testing
