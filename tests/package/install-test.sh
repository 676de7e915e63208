#!/usr/bin/env bash
# The package test: builds the .deb from BUILD (cpack, as scripts/package.sh
# does), installs it with apt into a clean Debian 12 root and runs lab 01
# there (`fabriclab run 01 --quick`: one rank, no network), then writes a page
# from the installed recording of lab 02. The root is the
# minbase one prepare.sh made; the install goes into an overlay above it, in a
# mount namespace of its own, so the root stays clean and every mount goes
# when the test ends. The clone is not visible inside: the binary has to find
# its labs and data where the package put them.
#   install-test.sh BUILD
# Downloaded .debs are kept in $root.archives, so only a machine's first run
# downloads libtorch and the rest. Exit 77 (skipped) without root or without
# the prepared root -- in CI (CI=true) that is 1, a failure.
set -euo pipefail

build="$(cd "${1:?usage: install-test.sh BUILD}" && pwd)"
root="${FABRICLAB_PACKAGE_ROOT:-/var/cache/fabriclab/package-root}"
skip() {
  if [ "${CI:-}" = true ]; then echo "CI=true, so this is not skipped: $*" >&2; exit 1; fi
  echo "skipped: $*" >&2; exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mounts)"
[ -f "$root/ready" ] || skip "no clean root in $root: run scripts/setup.sh --tests"

t0=$(date +%s)
phase() { echo "package-test: $1 ($(( $(date +%s) - t0 )) s)"; }

rm -rf "$build/package-test"  # its own folder: scripts/package.sh's .deb stays
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$build/package-test" >"$build/package-test.log" 2>&1 ||
  { cat "$build/package-test.log" >&2; exit 1; }
deb="$(ls "$build"/package-test/fabriclab_*_amd64.deb)"
phase "built $(basename "$deb"), $(du -k "$deb" | cut -f1) KB; Depends: $(dpkg-deb -f "$deb" Depends)"
# RoCE's run-time pieces (cmake/package.cmake): the rxe provider at least.
dpkg-deb -f "$deb" Recommends | grep -qw ibverbs-providers ||
  { echo "package-test: Recommends lacks ibverbs-providers: $(dpkg-deb -f "$deb" Recommends)" >&2; exit 1; }

work="$(mktemp -d /var/tmp/fabriclab-package-test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rw" "$work/merged" "$root.archives/partial"
cp "$deb" "$work/"

# Everything below runs in a private mount namespace: its mounts vanish with it.
unshare --mount --propagation private bash -euo pipefail -s -- \
  "$root" "$work" "$(basename "$deb")" "$t0" <<'INNER'
root="$1"; work="$2"; deb="$3"; t0="$4"
phase() { echo "package-test: $1 ($(( $(date +%s) - t0 )) s)"; }
m="$work/merged"
# The overlay's writable layer in memory (about 1 GB): apt's writes need no
# disk, and it is gone with the namespace, with nothing to delete.
mount -t tmpfs -o size=4g tmpfs "$work/rw"
mkdir "$work/rw/upper" "$work/rw/work"
mount -t overlay overlay -o "lowerdir=$root,upperdir=$work/rw/upper,workdir=$work/rw/work" "$m"
mount --bind "$root.archives" "$m/var/cache/apt/archives"
mount -t proc proc "$m/proc"
mount --rbind /dev "$m/dev"
mount --rbind /sys "$m/sys"
cp "$work/$deb" "$m/tmp/"
# No service starts inside the root (iperf3 ships one).
printf '#!/bin/sh\nexit 101\n' >"$m/usr/sbin/policy-rc.d"; chmod +x "$m/usr/sbin/policy-rc.d"
export DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin
# unsafe-io: dpkg skips its fsyncs (on tmpfs they cost nothing anyway).
apt=(chroot "$m" apt-get -q -o APT::Sandbox::User=root -o Dpkg::Options::=--force-unsafe-io)
"${apt[@]}" update >/dev/null || echo "package-test: apt-get update failed; trying the lists from prepare.sh"
"${apt[@]}" install -y --no-install-recommends "/tmp/$deb" >"$work/apt.log" 2>&1 ||
  { tail -30 "$work/apt.log" >&2; exit 1; }
phase "installed: $(grep -c '^Setting up' "$work/apt.log") packages set up, $(du -sm "$work/rw/upper" | cut -f1) MB written"
chroot "$m" /usr/bin/fabriclab run 01 --quick --output /tmp/runs | tee "$work/run.log"
test -f "$m"/tmp/runs/01-*/run.json
# `run` exits 0 when the lesson fails too: the lesson has to hold here.
grep -q '^The lesson held in your run' "$work/run.log"
phase "lab 01 ran in the clean root"
# A page from an installed reference recording: the player is compiled in.
chroot "$m" /usr/bin/fabriclab page /usr/share/fabriclab/recordings/02-dropped-packet -o /tmp/page.html
grep -q 'AsciinemaPlayer' "$m/tmp/page.html"
phase "page of the installed recording 02 written"
INNER
