# What `bash scripts/package.sh` puts in fabriclab_<version>_amd64.deb:
# CPack's DEB generator over these install() rules. Installed under /usr, the
# binary finds its labs in ../share/fabriclab/labs (default_labs_dir() in
# runner/lab/lab_definition.cc) and the data set where dataset-fashion-mnist
# puts it (trainer/dataset.h); the page's player is compiled in
# (runner/page/page_assets.h), so nothing from node_modules/ is installed.
include(GNUInstallDirs)
install(TARGETS fabriclab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY labs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fabriclab/labs)
# The reference recordings (for `fabriclab replay`, `page`, `grade`), without
# pages written from them in this clone.
install(DIRECTORY recordings/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fabriclab/recordings
        PATTERN page.html EXCLUDE)
# The `command` workload's Python helper and the PyTorch DDP example
# (`run --workload ddp`), found in ../share/fabriclab/python
# (python_helper_dir() in runner/cli/command_job.cc).
install(FILES trainer/python/fabriclab_metrics.py DESTINATION ${CMAKE_INSTALL_DATADIR}/fabriclab/python)
install(PROGRAMS trainer/python/ddp_train.py DESTINATION ${CMAKE_INSTALL_DATADIR}/fabriclab/python)

# `install` (and so cpack) would build every target, the tests included;
# scripts/package.sh builds the one target it installs.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fabriclab)
set(CPACK_PACKAGE_CONTACT "fabriclab maintainers <fabriclab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "hands-on labs: what latency and loss cost a data-parallel training job")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # fabriclab_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# RelWithDebInfo's debug info is most of the binary's size; a student's
# install does without it.
set(CPACK_STRIP_FILES ON)
# The shared libraries the binary links (libtorch1.13, libgloo, libmnl, ...):
# dpkg-shlibdeps reads them off the binary, so this list is never kept by hand.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What the runner execs or reads at run time, which no linker sees:
#   iproute2 (the labs' READMEs have the student read `ip -s link`, `ss -ti`),
#   iputils-ping (lab checks,
#   bench impair), iperf3 (lab 04's line rate, neighbour flows, lab checks),
#   gnuplot-nox (the report's charts), traceroute (`fabriclab topo`),
#   dataset-fashion-mnist (the trainer's data), libopenblas0-openmp (the BLAS
#   behind libblas.so.3: the reference BLAS libtorch pulls in is ~5x slower,
#   README "Troubleshooting").
# python3-torch only for `run --workload ddp`: suggested, not required,
# so that a class's install stays as small as it was.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "iproute2, iputils-ping, iperf3, gnuplot-nox, traceroute, dataset-fashion-mnist, libopenblas0-openmp")
# RoCE (issue 35, doc/roce.md; lab 14): libibverbs itself is linked (the
# shlibdeps above bring libibverbs1), but the SoftRoCE provider it loads at
# run time, librxe-rdmav34.so, is ibverbs-providers'; rdma-core has the
# udev rules and module settings of an installed RDMA stack; ibverbs-utils
# has ibv_devinfo, which lab 14's README reads the device with. The `rdma`
# tool is iproute2's (above). Recommended, not required: only RoCE labs need
# them, and only in host mode on a kernel with rdma_rxe. perftest
# (ib_write_bw, a RoCE flow by hand) and tshark (reading a RoCE capture,
# doc/roce.md) are suggestions.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ibverbs-providers, rdma-core, ibverbs-utils")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "perftest, tshark")
include(CPack)
