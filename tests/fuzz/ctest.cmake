# A bounded fuzz run in the normal ctest (label `fuzz`): fuzz_build builds
# the fuzz tree (BUILD/fuzz) with clang, then each target runs for
# FABRICLAB_FUZZ_SECONDS from its checked-in seeds and fails on any crash,
# sanitizer report, uncaught exception, hang (10 s) or 2 GB of memory.
# Without clang (or its libFuzzer runtime) every test is skipped, saying so.
# Longer runs by hand: scripts/fuzz.sh --seconds 600.
include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)
set(FABRICLAB_FUZZ_SECONDS 20 CACHE STRING "Seconds each fuzz target runs in ctest")

set(fuzz_script ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh)
set(fuzz_dir ${CMAKE_BINARY_DIR}/fuzz)
add_test(NAME fuzz_build COMMAND bash ${fuzz_script} --build-dir ${fuzz_dir} --build-only)
set_tests_properties(fuzz_build PROPERTIES
  FIXTURES_SETUP fuzz_build LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT 1200)
foreach(target ${FABRICLAB_FUZZ_TARGETS})
  add_test(NAME ${target}
    COMMAND bash ${fuzz_script} --build-dir ${fuzz_dir} --work ${fuzz_dir}/ctest
            --seconds ${FABRICLAB_FUZZ_SECONDS} --fresh ${target})
  math(EXPR timeout "${FABRICLAB_FUZZ_SECONDS} + 120")
  set_tests_properties(${target} PROPERTIES
    FIXTURES_REQUIRED fuzz_build LABELS fuzz SKIP_RETURN_CODE 77 TIMEOUT ${timeout})
endforeach()
