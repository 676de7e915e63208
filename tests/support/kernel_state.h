// Kernel objects by identity, for tests that check a cleanup: snapshot what a
// run made (while it is stopped at a fault point, common/fault_point.h), then
// ask whether those same objects still exist. Names are not identities: a
// namespace is its nsfs inode, told apart from a later namespace that got the
// same inode number by its cookie (SO_NETNS_COOKIE, never reused); a process
// is its pid and start time (a pid can be reused; pid + start time cannot). nft tables and qdiscs have no identity
// beyond the namespace and interface they are in, so they are compared as
// text lines of `nft list tables` / `tc qdisc show` in a given namespace.
//
// Everything is read from /proc and by running nft and tc (through nsenter
// for another namespace); nothing is changed. Needs root to see other users'
// processes and namespaces (rootless runs).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fabriclab::testing {

// A process by identity: a pid reused by a new process has another start time.
struct ProcessIdentity {
  pid_t pid = -1;
  unsigned long long start_ticks = 0;  // /proc/PID/stat field 22, clock ticks since boot
  bool operator<(const ProcessIdentity& other) const {
    return pid != other.pid ? pid < other.pid : start_ticks < other.start_ticks;
  }
};

// The identity of a live (not zombie) process; pid -1 if there is none.
// `with_zombie`: an ended process not yet reaped counts too (it still
// holds its pid and start time).
ProcessIdentity identify_process(pid_t pid, bool with_zombie = false);
// The same process (pid and start time) still exists and is not a zombie.
bool process_alive(const ProcessIdentity& process);

// The live children of `pid` (by their parent pid in /proc/PID/stat).
// `with_zombies`: also the children that have ended but not been reaped (a
// stopped parent's, which still hold their pid and start time).
std::vector<pid_t> children_of(pid_t pid, bool with_zombies = false);

// Network namespaces by nsfs inode, with where each was seen (for messages).
using NetnsByInode = std::map<ino_t, std::string>;

// stat() of each entry of `dir` whose name starts with `prefix` (a netns
// mount point directory such as /run/netns, or /proc/PID/root/run/netns for
// a process with a mount namespace of its own).
NetnsByInode netns_mounted_in(const std::string& dir, const std::string& prefix);
// The network namespace of each process (/proc/PID/ns/net); gone ones skipped.
NetnsByInode netns_of_processes(const std::vector<pid_t>& pids);
// The caller's own network namespace's inode.
ino_t own_netns_inode();

// A network namespace's cookie (SO_NETNS_COOKIE of a socket made in it, read
// in a forked child that setns()es there through `path`): a 64-bit number the
// kernel never gives another namespace, unlike its inode number, which it
// hands to the next namespace made once this one is freed. 0 if unreadable.
uint64_t netns_cookie(const std::string& path);

// Every place on this machine that still holds one of `namespaces` (inode ->
// cookie): a process's or thread's /proc/.../ns/net, an open file
// descriptor, a bind mount in any mount namespace a process is in (its
// mountinfo). A holder of the same inode number whose cookie differs is a
// namespace made since by someone else (on a shared machine, other tests):
// not counted. Cookie 0 (unknown): any holder of the inode counts. Empty:
// they are gone.
std::vector<std::string> netns_holders(const std::map<ino_t, uint64_t>& namespaces);

// `nft list tables` in the namespace at `netns_path` ("" = the caller's), one
// line per table ("table inet fabriclab_x").
std::set<std::string> nft_tables(const std::string& netns_path = "");
// `tc qdisc show` in the namespace at `netns_path` ("" = the caller's), one
// line per qdisc: "dev IF KIND HANDLE PARENT" (parameters and refcnt left out).
std::set<std::string> qdiscs(const std::string& netns_path = "");

// The lines of `now` that are not in `before`.
std::set<std::string> added(const std::set<std::string>& before, const std::set<std::string>& now);

// What a run had made at one moment: its namespaces, and in each of them the
// nft tables and qdiscs; its processes.
struct RunState {
  NetnsByInode namespaces;
  std::map<ino_t, uint64_t> cookies;  // by inode: the namespace's identity
  std::map<std::string, std::set<std::string>> tables;  // by namespace path
  std::map<std::string, std::set<std::string>> qdiscs;  // by namespace path
  std::set<ProcessIdentity> processes;
  std::string describe() const;  // for failure messages
  // netns_holders() of these namespaces: where one is still held, if anywhere.
  std::vector<std::string> namespaces_left() const { return netns_holders(cookies); }
};

// Reads tables and qdiscs in each of `namespaces` and the identities of
// `pids` into a RunState.
RunState snapshot_run(const NetnsByInode& namespaces, const std::vector<pid_t>& pids);

}  // namespace fabriclab::testing
