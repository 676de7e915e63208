// Where this clone's source tree and its fabriclab binary are.
//
// Both are absolute paths, so they live in one generated translation unit
// (build/build_paths.cc, written by the top-level CMakeLists.txt) instead of
// -D flags on every compile: with no path on their command lines, the object
// files of two clones are the same, and ccache (scripts/ccache-launcher)
// serves a fresh clone's build -- CI's included -- from an earlier one.
#pragma once

namespace fabriclab::build_paths {

// The source tree this binary was built from (labs/, recordings/, scripts/).
const char* source_dir();

// The fabriclab executable of this build tree (tests start it); "" in the
// fuzz build, which has none.
const char* fabriclab_binary();

}  // namespace fabriclab::build_paths
