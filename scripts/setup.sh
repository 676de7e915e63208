#!/usr/bin/env bash
# Installs the Debian 12 packages fabriclab needs to build and run the labs
# (with --tests: and to run its tests), and the one npm package its pages
# inline (asciinema-player, pinned in package.json / package-lock.json:
# `npm ci` into node_modules/; `fabriclab page` is a student's command).
# Idempotent: packages already installed are skipped, and apt is not touched
# at all when nothing is missing; npm only runs when node_modules/ does not
# hold the locked version. Installs nothing from outside Debian and npm.
set -euo pipefail

# `--tests`: also what only the tests need (below); without it, what building
# and running the labs needs.
tests=false
case "${1:-}" in
  --tests) tests=true ;;
  "") ;;
  *) echo "usage: $0 [--tests]" >&2; exit 2 ;;
esac

packages=(
  # build
  build-essential cmake pkg-config ninja-build ccache
  # the linker CMakeLists.txt prefers: the binary links in 1.4 CPU-s against
  # ld.bfd's 6.3, each test program in 0.45 against 1.7 (doc/build.md)
  lld
  # scripts/package.sh: CPack's DEB generator reads the binary's libraries
  # with file(1) and dpkg-shlibdeps (dpkg-dev, in build-essential)
  file
  # libraries
  libtorch-dev libgloo-dev libmnl-dev libnetfilter-queue-dev libnftnl-dev libcli11-dev libspdlog-dev
  # `fabriclab run --capture`: the lab link's packets into a pcap per
  # scenario (runner/capture/link_capture.h)
  libpcap-dev
  libtomlplusplus-dev nlohmann-json3-dev zlib1g-dev
  # oneDNN's headers: the trainer's dense layers call its sgemm (libtorch
  # already links the library; trainer/dense_layer.h says why)
  libdnnl-dev
  # an optimized BLAS behind libblas.so.3 (Debian alternatives): the reference
  # BLAS that libtorch-dev pulls in is ~5x slower; OpenMP flavour so it obeys
  # the trainer's --threads
  libopenblas0-openmp
  # data
  dataset-fashion-mnist
  # PyTorch DDP itself: `fabriclab run NN --workload ddp` runs
  # trainer/python/ddp_train.py under /usr/bin/python3 (labs/SCHEMA.md, "The
  # command workload"); also the benchmark's baseline, and torchrun launches
  # `fabriclab train` in tests/trainer/torchrun_test.cc
  python3-torch
  # what the runner execs: iperf3 (lab 04, neighbour flows, lab checks), ping
  # (lab checks), gnuplot (the report's charts), traceroute (`fabriclab
  # topo`); iproute2's ip and ss are the labs' READMEs' own tools
  iproute2 iputils-ping iperf3 gnuplot-nox traceroute
  util-linux procps kmod
)
# Only the tests use these (each named where a test needs it).
test_packages=(
  # GoogleTest: every test program (tests/CMakeLists.txt)
  libgtest-dev
  # the fuzz targets (tests/fuzz/): clang and its libFuzzer/sanitizer runtimes
  clang libclang-rt-14-dev
  # real clients the tests check the product against (tc_fixture, kernel
  # feature probes, the capture tests, `asciinema play` of a cast)
  iptables nftables strace tcpdump asciinema
  # reads `fabriclab run --capture`'s pcaps in tests/runner/cli/capture_test.cc
  # (tcp.analysis.retransmission) and the RoCE NAKs in doc/roce.md
  tshark
  # a real srun for tests/trainer/srun_test.cc: a one-node slurmctld +
  # slurmd in a network namespace, from a config in a temp dir (auth/none:
  # munge comes as a dependency but is not used); Debian ships no
  # /etc/slurm/slurm.conf, so the packaged services do not start
  slurm-wlm
  # `fabriclab page`: the browser test loads a page in headless Chromium
  # (tests/runner/page/page_browser_test.cc)
  chromium
  # the VM tests (tests/vm/): QEMU boots Debian's stock kernel, which has
  # sch_netem, around a static busybox; kmod resolves its modules
  qemu-system-x86 busybox-static
  # RoCE in the VM pair (tests/vm/roce-checks.sh, doc/roce.md): the rdma
  # tool is iproute2's; rdma-core and ibverbs-providers the verbs library and
  # its rxe provider, the real clients perftest (ib_write_bw), ibverbs-utils
  # (ibv_rc_pingpong -c: checked data) and rdmacm-utils (rping)
  rdma-core ibverbs-providers ibverbs-utils perftest rdmacm-utils
  # the package test (tests/package/): a clean Debian root to install the
  # .deb into
  debootstrap
  # the Kubernetes manifests' check (tests/deploy/): Debian's YAML parser
  python3-yaml
)
if $tests; then
  packages+=("${test_packages[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: run as root (or: sudo $0) to install them" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# npm itself: Debian's package, unless a node.js that brings its own npm is
# already installed (a nodejs build with npm inside conflicts with it).
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: npm is missing; run as root (or: sudo $0) to install it" >&2
    exit 1
  fi
  echo "setup: installing npm"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends npm
fi

# asciinema-player for `fabriclab page` (runner/page/page_assets.h), exactly
# the version package-lock.json pins; --ignore-scripts: nothing of the
# package runs here, its bundle is only copied into pages.
root="$(cd "$(dirname "$0")/.." && pwd)"
locked="$(cd "$root" && node -p 'require("./package-lock.json").packages["node_modules/asciinema-player"].version')"
installed="$(cd "$root" && node -p 'try { require("./node_modules/asciinema-player/package.json").version } catch (e) { "" }')"
if [ "$installed" = "$locked" ]; then
  echo "setup: asciinema-player $locked present (node_modules/)"
else
  echo "setup: npm ci (asciinema-player $locked into node_modules/)"
  (cd "$root" && npm ci --ignore-scripts --no-audit --no-fund)
fi

# What only the tests use, prepared once per machine under /var/cache/fabriclab:
# the VM tests' kernel (Debian's linux-image-amd64, downloaded and unpacked,
# never installed or booted by this machine) and the package test's clean
# Debian root. Without root, the tests that need them skip and say so.
if $tests; then
  if [ "$(id -u)" -eq 0 ]; then
    bash "$root/tests/vm/prepare.sh"
    bash "$root/tests/package/prepare.sh"
  else
    echo "setup: not root: the VM kernel and the package test's root are not prepared" >&2
  fi
fi
