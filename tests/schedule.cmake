# What may run beside what under `ctest -j` (scripts/test.sh runs -j4).
#
# gtest_discover_tests makes every gtest case a ctest test of its own, so two
# cases of one program can run at once too. A row names a test program and a
# regex over its cases' names ("." = all of them) and gives those cases:
#   PROCESSORS 2  the case loads both cores (trains, runs a lab, iperf3 at
#                 full rate, a browser): at -j4 one such case runs, with a
#                 VM test (tests/vm: one slot, lock `vm`) and one light case
#                 beside it
#   LOCKS         ctest RESOURCE_LOCKs, each a machine-wide thing the case
#                 reads or changes as a whole:
#     heavy     it loads the cores: such cases take turns. (No case asserts
#               a wall-clock bound, throughput or jitter: doc/ci.md, "No
#               wall-clock bound in a test"; the lock is about load only.)
#     fl_netns  it compares every /run/netns/fl-* entry before and after, or
#               creates fl-* entries such a comparison would see
#     ledger    it sweeps every stale ledger (every root `fabriclab run` and
#               plain `fabriclab cleanup` does) or leaves one on purpose by a
#               SIGKILL, and asserts on what the sweep found
# A later row for the same case replaces an earlier one's settings, so a row
# lists all the locks its cases need. Cases no row names run freely (unit).
# Tests added with add_test() (VM, fuzz, bad inputs) set theirs where they
# are added. doc/ci.md: how the schedule was chosen and what it costs.

set(fl_heavy PROCESSORS 2 LOCKS heavy)

# Trainer: ranks that train, torchrun and srun clusters.
fabriclab_schedule(trainer_distributed_tests "." ${fl_heavy})
fabriclab_schedule(trainer_torchrun_tests "." ${fl_heavy})
fabriclab_schedule(trainer_srun_tests "." ${fl_heavy})
fabriclab_schedule(trainer_lab01_tests "." ${fl_heavy})
fabriclab_schedule(trainer_cli_tests "ASlowWorker" ${fl_heavy})

# netem: ping floods and iperf3 at full rate on the wire.
fabriclab_schedule(netem_impairment_test "ImpairmentTest\\.(Delay|Loss|Removing)" ${fl_heavy})
fabriclab_schedule(netem_userspace_backend_test "(Jitter|TcpBulk|OnArrival)" ${fl_heavy})
fabriclab_schedule(netem_switch_worker_test "." ${fl_heavy})
fabriclab_schedule(netem_netlink_backend_test "." LOCKS fl_netns)
fabriclab_schedule(netem_cli_test "ShowApplyClearInANamespace" LOCKS fl_netns)

# Runner: whole runs, kills and sweeps.
fabriclab_schedule(runner_run_command_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_run_command_test "^RunCommandTest\\.Bad" LOCKS fl_netns)
fabriclab_schedule(runner_run_command_test "^RunCommandRootless" PROCESSORS 2 LOCKS heavy ledger)
fabriclab_schedule(runner_capture_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_fault_matrix_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_disk_full_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(lab_quick_run_test "LabQuickRun|LabLesson" PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_command_workload_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_bench_allreduce_test "." PROCESSORS 2 LOCKS heavy fl_netns)
fabriclab_schedule(runner_bench_allreduce_test "BadFlags" LOCKS fl_netns)
fabriclab_schedule(runner_topo_command_test "." LOCKS fl_netns)
# Real lab runs with a link fault, stopped by SIGTERM: every namespace and
# ledger entry compared before and after.
fabriclab_schedule(runner_link_fault_run_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_check_command_test "." LOCKS fl_netns ledger)
fabriclab_schedule(runner_topology_test "." LOCKS fl_netns)
# A leaf-spine of fl-<run id>-* namespaces, built by the test itself.
fabriclab_schedule(runner_uplink_fault_test "." LOCKS fl_netns)
fabriclab_schedule(runner_network_settings_test "." LOCKS fl_netns)
fabriclab_schedule(runner_link_counters_test "." LOCKS fl_netns)
fabriclab_schedule(runner_link_setting_test "." LOCKS fl_netns)
fabriclab_schedule(runner_flow_probe_test "." PROCESSORS 2 LOCKS heavy fl_netns)
fabriclab_schedule(runner_cleanup_stale_runs_netns_test "." LOCKS fl_netns)
fabriclab_schedule(runner_host_mode_test "." PROCESSORS 2 LOCKS heavy ledger)
fabriclab_schedule(runner_host_bench_test "." PROCESSORS 2 LOCKS heavy fl_netns ledger)
fabriclab_schedule(runner_four_hosts_test "." PROCESSORS 2 LOCKS heavy ledger)
fabriclab_schedule(runner_host_fault_test "." PROCESSORS 2 LOCKS heavy ledger)
fabriclab_schedule(runner_slurm_hosts_test "." PROCESSORS 2 LOCKS heavy ledger)

# A browser.
fabriclab_schedule(page_browser_test "." ${fl_heavy})
