#!/usr/bin/env bash
# Prepares the clean Debian 12 root that the package test (install-test.sh)
# installs the .deb into: debootstrap --variant=minbase bookworm, with this
# machine's apt sources, into $FABRICLAB_PACKAGE_ROOT (default
# /var/cache/fabriclab/package-root). Built once per machine (debootstrap
# downloads and unpacks about 90 packages); the test never changes it (it
# installs into an overlay above it). Idempotent: a finished root is kept.
# Called by `scripts/setup.sh --tests`; needs root and debootstrap.
set -euo pipefail

dir="${FABRICLAB_PACKAGE_ROOT:-/var/cache/fabriclab/package-root}"
if [ -f "$dir/ready" ]; then
  echo "package: clean root present in $dir"
  exit 0
fi

mkdir -p "$(dirname "$dir")"
rm -rf "$dir.new"
trap 'rm -rf "$dir.new"' EXIT
echo "package: debootstrap --variant=minbase bookworm into $dir (once per machine)"
start=$(date +%s)
# debootstrap's own default mirror; the root then gets this machine's sources
# (security updates too), so it resolves the same versions as the build.
debootstrap --variant=minbase bookworm "$dir.new" >"$dir.new.log" 2>&1 ||
  { tail -20 "$dir.new.log" >&2; exit 1; }
rm -f "$dir.new.log"
rm -f "$dir.new/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  if [ -f "$f" ]; then cp "$f" "$dir.new$f"; fi
done
chroot "$dir.new" apt-get update -q >/dev/null
touch "$dir.new/ready"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "package: clean root ready in $(( $(date +%s) - start )) s"
