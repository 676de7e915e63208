// One malformed input of the bad-input catalogue (tests/bad_inputs/*.toml,
// format in tests/bad_inputs/README.md): the command line, the files it
// reads, and what `fabriclab` must answer (exit code, words of the message).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace fabriclab::bad_inputs {

// Text replaced in a file the case copied ({"rec/run.json", from, to}).
struct Edit {
  std::string file;
  std::string from;
  std::string to;
};

struct BadInputCase {
  std::string name;   // "<manifest stem>_<case name>", unique, a gtest name
  std::string where;  // "lab_toml.toml:12", where the case is written
  std::vector<std::string> args;                    // after the binary; {dir}, {src} expanded
  std::map<std::string, std::string> files;         // path under {dir} -> text
  std::map<std::string, std::string> binary_files;  // path under {dir} -> hex digits
  std::map<std::string, std::string> copies;        // path under {dir} -> path under {src}
  std::vector<Edit> edits;                          // after the copies
  std::map<std::string, std::string> env;           // more environment variables
  int exit_code = 2;
  std::vector<std::string> message;  // each must appear in the output; {dir}, {src} expanded
  // The words of the message that say what would have been right ("expected
  // a number in [1, 86400]"), also required in the output. A message that
  // only echoes the user's token back leaves them guessing (issue 33).
  std::string expected;
};

// Every case of every *.toml in `folder`, in file order. Throws
// std::runtime_error naming the manifest and line for a malformed manifest,
// a duplicate name, or a case without an `expected` that says more than
// the case's own input.
std::vector<BadInputCase> load_cases(const std::string& folder);

// gtest names a failing case by where it is written, not by a byte dump.
inline void PrintTo(const BadInputCase& c, std::ostream* out) { *out << c.where; }

// `text` with {dir} and {src} replaced.
std::string expand(const std::string& text, const std::string& dir, const std::string& src);

}  // namespace fabriclab::bad_inputs
