// The `fabriclab bench` parent command, shared by every `bench <what>`
// subcommand (impair, train, ...): whichever registers first creates it.
#pragma once

#include <CLI/CLI.hpp>

namespace fabriclab::cli {

// Finds `bench` on `app`, or adds it (requiring one subcommand). The result
// is owned by `app`.
CLI::App* bench_parent(CLI::App& app);

}  // namespace fabriclab::cli
