# The fuzz targets, one tests/fuzz/<name>.cc each: read by the fuzz build
# (CMakeLists.txt here) and by the normal build's ctest runs (ctest.cmake).
set(FABRICLAB_FUZZ_TARGETS
  fuzz_netem_spec fuzz_queue_spec fuzz_lab_toml fuzz_answers_toml fuzz_recording
  fuzz_session_cast fuzz_qdisc_dump fuzz_nfqueue_packet)
