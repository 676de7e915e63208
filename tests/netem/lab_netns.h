// A two-namespace test lab for netem tests: namespaces A and B (unique names
// with the pid), a veth pair va (A, 10.77.0.1/24) <-> vb (B, 10.77.0.2/24 and
// 10.77.0.3/24). Created with iproute2's `ip`, removed in the destructor
// (deleting a namespace deletes its veth end and every qdisc on it).
#pragma once

#include <string>

namespace fabriclab::netem::testing {

// Runs a shell command; returns its stdout, sets *status to the exit status.
std::string shell(const std::string& command, int* status = nullptr);

class LabNetns {
 public:
  LabNetns();
  ~LabNetns();
  LabNetns(const LabNetns&) = delete;
  LabNetns& operator=(const LabNetns&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // why it could not be built
  const std::string& a() const { return a_; }
  const std::string& b() const { return b_; }

  // "ip netns exec A " + command
  std::string in_a(const std::string& command, int* status = nullptr) const;

 private:
  std::string a_, b_, error_;
};

// Why netns tests cannot run here ("" when they can): needs root for
// `ip netns add`.
std::string netns_unavailable_reason();

}  // namespace fabriclab::netem::testing
