// Skips that cannot hide a failure.
//
// A test that lacks something scripts/setup.sh provides (a tool, a data set,
// root, a browser, QEMU) skips on a developer's machine, saying what is
// missing. In CI (CI=true) setup has installed all of it, so the same lack
// is a failure: a CI run can never stay green by skipping what it should
// have run. What a kernel can or cannot do (sch_netem here) is not such a
// lack; those skips are decided by kernel_features.h, never by the code
// under test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace fabriclab::testing {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace fabriclab::testing

// Skips with `why` (streamable), or fails with it when CI=true.
#define SKIP_OR_FAIL_IN_CI(why)                                             \
  do {                                                                      \
    if (::fabriclab::testing::in_ci()) {                                    \
      GTEST_FAIL() << "CI=true, so this is not skipped: " << why;           \
    } else {                                                                \
      GTEST_SKIP() << why;                                                  \
    }                                                                       \
  } while (0)
