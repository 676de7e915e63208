// Whether a program can be run by name: an executable file of that name in
// one of $PATH's folders (Debian's default PATH when it is unset). No shell.
#pragma once

#include <string>

namespace fabriclab {

bool program_on_path(const std::string& name);

}  // namespace fabriclab
