// A two-namespace test lab for the netlink backend's and the CLI's tests:
// tests/support/two_netns.h with a veth pair va (A, 10.77.0.1/24) <-> vb (B,
// 10.77.0.2/24 and 10.77.0.3/24: a peer and a non-peer on one device).
// Removed in the destructor (deleting a namespace deletes its veth end and
// every qdisc on it). Unlike VethLab it does not throw: ok()/error() say
// whether it was built, for GTEST_SKIP.
#pragma once

#include <memory>
#include <string>

#include "tests/support/two_netns.h"

namespace fabriclab::netem::testing {

// Runs a shell command; returns its stdout, sets *status to the exit status.
std::string shell(const std::string& command, int* status = nullptr);

class LabNetns {
 public:
  LabNetns();
  bool ok() const { return lab_ != nullptr; }
  const std::string& error() const { return error_; }  // why it could not be built
  const std::string& a() const { return lab_->netns(0); }
  const std::string& b() const { return lab_->netns(1); }

  // "ip netns exec A " + command
  std::string in_a(const std::string& command, int* status = nullptr) const;

 private:
  std::unique_ptr<fabriclab::testing::TwoNetns> lab_;
  std::string error_;
};

// Why netns tests cannot run here ("" when they can).
std::string netns_unavailable_reason();

}  // namespace fabriclab::netem::testing
