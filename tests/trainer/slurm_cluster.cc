#include "tests/trainer/slurm_cluster.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/two_netns.h"

namespace fabriclab::testing {
namespace {

constexpr const char* kAddress = "10.212.0.1";

void must(const std::string& command) {
  const ShellResult r = run_shell(command);
  if (r.exit_code != 0) throw std::runtime_error(command + ": " + r.output);
}

// slurmd loads a cgroup plugin even with proctrack/pgid and task/none, and
// its autodetection misses a v1 hierarchy under a tmpfs: name it.
std::string cgroup_conf() {
  const std::string type = run_shell("stat -fc %T /sys/fs/cgroup").output;
  if (type.rfind("cgroup2", 0) == 0) return "CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n";
  return "CgroupPlugin=cgroup/v1\n";
}

}  // namespace

std::string SlurmCluster::skip_reason() {
  std::string reason = TwoNetns::skip_reason();
  if (!reason.empty()) return reason;
  for (const char* tool : {"slurmctld", "slurmd", "srun", "sinfo"}) {
    if (run_shell(std::string("command -v ") + tool).exit_code != 0)
      return std::string("needs Slurm's ") + tool + " (apt-get install slurm-wlm)";
  }
  return "";
}

SlurmCluster::SlurmCluster() : dir_(make_temp_dir("slurm")) {
  static std::atomic<int> counter{0};
  netns_ = "flslurm-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  const auto started = std::chrono::steady_clock::now();
  try {
    must("ip netns add " + netns_);
    must("ip -n " + netns_ + " link set lo up");
    must("ip -n " + netns_ + " link add sl0 type veth peer name sl1");
    must("ip -n " + netns_ + " addr add " + kAddress + "/24 dev sl0");
    must("ip -n " + netns_ + " link set sl0 up");
    must("ip -n " + netns_ + " link set sl1 up");
    must("mkdir -p " + dir_ + "/state " + dir_ + "/spool");
    std::ofstream(dir_ + "/slurm.conf")
        << "ClusterName=fabriclab\n"
        << "SlurmctldHost=localhost(" << kAddress << ")\n"
        << "AuthType=auth/none\nCredType=cred/none\n"
        << "SlurmUser=root\nSlurmdUser=root\n"
        << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
        << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_
        << "/slurmd.pid\n"
        << "SlurmctldLogFile=" << dir_ << "/slurmctld.log\nSlurmdLogFile=" << dir_
        << "/slurmd.log\n"
        << "ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nMpiDefault=none\n"
        << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
        << "SchedulerType=sched/builtin\nReturnToService=2\n"
        << "SlurmdParameters=config_overrides\n"
        << "JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n"
        << "NodeName=localhost NodeAddr=" << kAddress << " CPUs=4 State=UNKNOWN\n"
        << "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP\n";
    std::ofstream(dir_ + "/cgroup.conf") << cgroup_conf();
    must(in_netns("slurmctld -i -f " + dir_ + "/slurm.conf"));
    must(in_netns("slurmd -f " + dir_ + "/slurm.conf -N localhost"));
    // 120 s only stops a hang: how soon the daemons come up is the machine's.
    const auto give_up = started + std::chrono::seconds(120);
    while (run_shell(in_netns("sinfo -h -o %T")).output.rfind("idle", 0) != 0) {
      if (std::chrono::steady_clock::now() > give_up) {
        throw std::runtime_error("Slurm's node did not become idle within 120 s:\n" +
                                 read_file(dir_ + "/slurmctld.log") + "\n" +
                                 read_file(dir_ + "/slurmd.log"));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } catch (...) {
    stop();
    throw;
  }
  start_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

SlurmCluster::~SlurmCluster() { stop(); }

void SlurmCluster::stop() {
  std::istringstream pids(run_shell("ip netns pids " + netns_).output);
  for (pid_t pid; pids >> pid;) ::kill(pid, SIGKILL);
  run_shell("ip netns del " + netns_);
  std::filesystem::remove_all(dir_);
}

std::string SlurmCluster::in_netns(const std::string& command) const {
  return "env SLURM_CONF=" + dir_ + "/slurm.conf ip netns exec " + netns_ + " " + command;
}

RunResult SlurmCluster::srun(const std::string& args, std::chrono::milliseconds limit) const {
  return run_command({"/bin/sh", "-c", "exec " + in_netns("srun " + args)}, {}, limit);
}

}  // namespace fabriclab::testing
