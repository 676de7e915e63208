#include "tests/runner/host/slurm_nodes.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace fabriclab::runner::testing {
namespace {

using fabriclab::testing::run_shell;

void must(const std::string& command) {
  const auto r = run_shell(command);
  if (r.exit_code != 0) throw std::runtime_error("`" + command + "` failed: " + r.output);
}

std::string cgroup_conf() {
  const std::string type = run_shell("stat -fc %T /sys/fs/cgroup").output;
  if (type.rfind("cgroup2", 0) == 0) return "CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n";
  return "CgroupPlugin=cgroup/v1\n";
}

std::string etc_netns(const std::string& ns) { return "/etc/netns/" + ns; }

}  // namespace

std::string SlurmNodes::skip_reason() {
  for (const char* tool : {"slurmctld", "slurmd", "srun", "sinfo", "scancel"})
    if (run_shell(std::string("command -v ") + tool).exit_code != 0)
      return std::string("needs Slurm's ") + tool + " (apt-get install slurm-wlm)";
  return "";
}

SlurmNodes::SlurmNodes(const BridgedHosts& hosts)
    : hosts_(hosts), dir_(fabriclab::testing::make_temp_dir("slurm-nodes")) {
  try {
    start();
  } catch (const std::exception& e) {
    error_ = std::string(e.what()) + "\n" + logs();
    stop();
  }
}

SlurmNodes::~SlurmNodes() { stop(); }

void SlurmNodes::start() {
  const int n = hosts_.size();
  std::string hosts_file = "127.0.0.1 localhost\n";
  for (int h = 0; h < n; ++h) hosts_file += BridgedHosts::lab_addr(h) + " " + node_name(h) + "\n";
  for (int h = 0; h < n; ++h) {
    std::filesystem::create_directories(etc_netns(hosts_.netns(h)));
    std::ofstream(etc_netns(hosts_.netns(h)) + "/hosts") << hosts_file;
  }
  must("mkdir -p " + dir_ + "/state");
  for (int h = 0; h < n; ++h) must("mkdir -p " + dir_ + "/spool-" + node_name(h));
  std::ofstream conf(dir_ + "/slurm.conf");
  conf << "ClusterName=fabriclab\n"
       // "localhost": slurmctld takes it as this machine whatever its host
       // name; the address is where the slurmds reach it, node 0's.
       << "SlurmctldHost=localhost(" << BridgedHosts::lab_addr(0) << ")\n"
       << "AuthType=auth/none\nCredType=cred/none\nSlurmUser=root\nSlurmdUser=root\n"
       << "StateSaveLocation=" << dir_ << "/state\n"
       << "SlurmdSpoolDir=" << dir_ << "/spool-%n\n"
       << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\n"
       << "SlurmdPidFile=" << dir_ << "/slurmd-%n.pid\n"
       << "SlurmctldLogFile=" << dir_ << "/slurmctld.log\n"
       << "SlurmdLogFile=" << dir_ << "/slurmd-%n.log\n"
       << "ProctrackType=proctrack/pgid\nTaskPlugin=task/none\nMpiDefault=none\n"
       << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
       << "SchedulerType=sched/builtin\nReturnToService=2\nSlurmdParameters=config_overrides\n"
       << "KillWait=5\n"
       << "JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\n";
  for (int h = 0; h < n; ++h)
    conf << "NodeName=" << node_name(h) << " NodeAddr=" << BridgedHosts::lab_addr(h)
         << " CPUs=2 State=UNKNOWN\n";
  std::string nodes;
  for (int h = 0; h < n; ++h) nodes += (h == 0 ? "" : ",") + node_name(h);
  conf << "PartitionName=lab Nodes=" << nodes << " Default=YES MaxTime=INFINITE State=UP\n";
  conf.close();
  std::ofstream(dir_ + "/cgroup.conf") << cgroup_conf();
  must("env SLURM_CONF=" + dir_ + "/slurm.conf ip netns exec " + hosts_.netns(0) + " slurmctld -i");
  for (int h = 0; h < n; ++h)
    must("env SLURM_CONF=" + dir_ + "/slurm.conf ip netns exec " + hosts_.netns(h) + " slurmd -N " +
         node_name(h));
  // 180 s only stops a hang: how soon the daemons come up is the machine's.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  for (;;) {
    const std::string states = run("sinfo -h -N -o %T", std::chrono::seconds(30)).output;
    int idle = 0;
    std::istringstream lines(states);
    for (std::string line; std::getline(lines, line);) idle += line.rfind("idle", 0) == 0;
    if (idle == n) break;
    if (std::chrono::steady_clock::now() > give_up)
      throw std::runtime_error("Slurm's nodes did not all become idle within 180 s: " + states);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

std::vector<std::string> SlurmNodes::command(const std::string& line) const {
  return {"/bin/sh", "-c",
          "exec env SLURM_CONF=" + dir_ + "/slurm.conf ip netns exec " + hosts_.netns(0) + " " + line};
}

fabriclab::testing::RunResult SlurmNodes::run(const std::string& line,
                                              std::chrono::milliseconds limit) const {
  return fabriclab::testing::run_command(command(line), {}, limit);
}

std::string SlurmNodes::other_pids(int h) const {
  std::string out;
  std::istringstream pids(run_shell("ip netns pids " + hosts_.netns(h)).output);
  for (std::string pid; pids >> pid;) {
    const std::string comm = fabriclab::testing::read_file("/proc/" + pid + "/comm");
    if (comm.rfind("slurmd", 0) != 0 && comm.rfind("slurmctld", 0) != 0 &&
        comm.rfind("slurmstepd", 0) != 0 && comm.rfind("slurmscriptd", 0) != 0)
      out += pid + " (" + comm.substr(0, comm.find('\n')) + ") ";
  }
  return out;
}

std::string SlurmNodes::logs() const {
  std::string out = "--- slurmctld.log:\n" + fabriclab::testing::read_file(dir_ + "/slurmctld.log");
  for (int h = 0; h < hosts_.size(); ++h)
    out += "--- slurmd-" + node_name(h) + ".log:\n" +
           fabriclab::testing::read_file(dir_ + "/slurmd-" + node_name(h) + ".log");
  return out;
}

void SlurmNodes::stop() {
  for (int h = 0; h < hosts_.size(); ++h) {
    std::istringstream pids(run_shell("ip netns pids " + hosts_.netns(h)).output);
    for (pid_t pid; pids >> pid;) ::kill(pid, SIGKILL);
    std::error_code ignored;
    std::filesystem::remove_all(etc_netns(hosts_.netns(h)), ignored);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace fabriclab::runner::testing
