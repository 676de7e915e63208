#!/usr/bin/env bash
# Installs the Debian 12 packages fabriclab needs to build, run and test,
# and the one npm package its pages inline (asciinema-player, pinned in
# package.json / package-lock.json: `npm ci` into node_modules/).
# Idempotent: packages already installed are skipped, and apt is not touched
# at all when nothing is missing; npm only runs when node_modules/ does not
# hold the locked version. Installs nothing from outside Debian and npm.
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config ninja-build ccache
  # the fuzz targets (tests/fuzz/): clang and its libFuzzer/sanitizer runtimes
  clang libclang-rt-14-dev
  # libraries
  libtorch-dev libgloo-dev libmnl-dev libnetfilter-queue-dev libnftnl-dev libcli11-dev libspdlog-dev
  libgtest-dev libtomlplusplus-dev nlohmann-json3-dev zlib1g-dev
  # oneDNN's headers: the trainer's dense layers call its sgemm (libtorch
  # already links the library; trainer/dense_layer.h says why)
  libdnnl-dev
  # an optimized BLAS behind libblas.so.3 (Debian alternatives): the reference
  # BLAS that libtorch-dev pulls in is ~5x slower; OpenMP flavour so it obeys
  # the trainer's --threads
  libopenblas0-openmp
  # data
  dataset-fashion-mnist
  # runtime tools and real clients the tests check against
  iproute2 iptables nftables iputils-ping iperf3 strace gnuplot-nox asciinema
  tcpdump traceroute
  util-linux procps kmod
  # baseline for the benchmark: PyTorch DDP on the same libtorch; its
  # torchrun launches `fabriclab train` in tests/trainer/torchrun_test.cc
  python3-torch
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
)

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

# The VM tests' kernel: Debian's linux-image-amd64, downloaded and unpacked
# into /var/cache/fabriclab/vm (never installed, never booted by this machine).
# Without root, the tests that need it skip and say so.
if [ "$(id -u)" -eq 0 ]; then
  bash "$(dirname "$0")/../tests/vm/prepare.sh"
else
  echo "setup: not root: the VM tests' kernel is not prepared (tests/vm/prepare.sh)" >&2
fi
