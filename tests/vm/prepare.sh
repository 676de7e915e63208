#!/usr/bin/env bash
# Prepares the kernel the VM tests boot: Debian's stock kernel (the package
# linux-image-amd64 depends on, resolved now), downloaded with apt-get and
# unpacked with dpkg-deb into $FABRICLAB_VM_DIR (default
# /var/cache/fabriclab/vm/<package>/) -- never installed into /boot, never
# booted by this machine. depmod indexes its modules (the .deb ships no
# modules.dep) so vm-run can pick the ones it loads with their dependencies.
# Idempotent: an unpacked kernel is kept; `current` names the one vm-run uses.
# Called by scripts/setup.sh --tests (which installs qemu-system-x86, busybox-static
# and kmod); needs root for the cache folder.
set -euo pipefail

dir="${FABRICLAB_VM_DIR:-/var/cache/fabriclab/vm}"

# The kernel package linux-image-amd64 depends on, e.g. linux-image-6.1.0-56-amd64.
resolve() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
pkg="$(resolve)"
if [ -z "$pkg" ]; then
  apt-get update -q >/dev/null
  pkg="$(resolve)"
fi
if [ -z "$pkg" ]; then
  if [ -e "$dir/current" ]; then
    echo "vm: cannot resolve linux-image-amd64 (no apt lists?); keeping $(readlink "$dir/current")" >&2
    exit 0
  fi
  echo "vm: cannot resolve linux-image-amd64 with apt-cache; run apt-get update" >&2
  exit 1
fi

if [ -f "$dir/$pkg/ready" ]; then
  ln -sfn "$pkg" "$dir/current"
  echo "vm: kernel $pkg present in $dir"
  exit 0
fi

mkdir -p "$dir"
work="$(mktemp -d "$dir/.prepare.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "vm: downloading $pkg (Debian's stock kernel, for the VM tests; not installed)"
# apt's sandbox user cannot write into a root-only folder: download as root.
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null)
dpkg-deb -x "$work"/"$pkg"_*.deb "$work/root"
kver="$(ls "$work/root/lib/modules")"
depmod -b "$work/root" "$kver"
test -f "$work/root/boot/vmlinuz-$kver"
echo "$kver" > "$work/root/kernel-version"
rm -rf "${dir:?}/$pkg"
mv "$work/root" "$dir/$pkg"
touch "$dir/$pkg/ready"
ln -sfn "$pkg" "$dir/current"
echo "vm: kernel $kver ready in $dir/$pkg"
