// Errors caused by what the user gave us (flags, environment, files), as
// opposed to failures of the system or the network.
//
// Contract: the CLI turns an InputError into its message on stderr and exit
// code kExitInputError (2); every other exception exits kExitFailure (1).
// Messages name the thing that was wrong and what was expected, e.g.
// "labs/02-loss/lab.toml:12: key 'deadline_s': expected a positive number".
#pragma once

#include <stdexcept>
#include <string>

namespace fabriclab {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitInputError = 2;

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "path:line: message" -- the form editors and compilers use, so a student can
// click through to the place.
inline InputError input_error_at(const std::string& path, long line, const std::string& message) {
  return InputError(path + ":" + std::to_string(line) + ": " + message);
}

}  // namespace fabriclab
