#!/usr/bin/env bash
# Installs the Debian 12 packages fabriclab needs to build, run and test.
# Idempotent: packages already installed are skipped, and apt is not touched
# at all when nothing is missing. Installs nothing from outside Debian.
set -euo pipefail

packages=(
  # build
  build-essential cmake pkg-config
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
  # baseline for the benchmark: PyTorch DDP on the same libtorch
  python3-torch
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

# The VM tests' kernel: Debian's linux-image-amd64, downloaded and unpacked
# into /var/cache/fabriclab/vm (never installed, never booted by this machine).
# Without root, the tests that need it skip and say so.
if [ "$(id -u)" -eq 0 ]; then
  bash "$(dirname "$0")/../tests/vm/prepare.sh"
else
  echo "setup: not root: the VM tests' kernel is not prepared (tests/vm/prepare.sh)" >&2
fi
