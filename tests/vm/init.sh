#!/bin/busybox sh
# /init of the test VM (tests/vm/vm-run builds the initramfs around it).
# Loads the modules booting needs, mounts the host's root (read-only, over
# 9p) under a tmpfs overlay, puts the kernel's module tree where an installed
# system has it (/lib/modules/<version>: every other module loads on demand,
# through /sbin/modprobe, modprobe-helper.sh), runs the harness's command
# chrooted into it, writes its exit status where the harness reads it, and
# powers off. Nothing here may wait
# for input: a failure powers off too, and the harness reports it.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

say() { echo "vm-init: $*" > /dev/console; }
halt() { sync; poweroff -f; sleep 5; }

while read -r ko; do
  insmod "/$ko" 2>/dev/null || say "insmod $ko failed"
done < /modules.load

# The harness's exchange folder: cmd.sh in, output and status out.
mkdir -p /x /lower /rw /root
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 exchange /x; then
  say "cannot mount the exchange folder (9p)"; halt
fi
# cache=loose: the share is read-only, so the guest may cache it; libtorch
# alone is 120 MB and would otherwise be read through 9p page by page.
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose,ro hostroot /lower; then
  echo 125 > /x/status; say "cannot mount the host's root (9p)"; halt
fi
mount -t tmpfs -o size=75% tmpfs /rw
mkdir -p /rw/upper /rw/work
if ! mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /root; then
  echo 125 > /x/status; say "cannot mount the overlay"; halt
fi
# A fresh system view: the host's /run (its netns names, fabriclab's ledger of
# the host's runs), /tmp and /dev must not leak into the VM's checks.
mount -t proc proc /root/proc
mount -t sysfs sys /root/sys
mount -t devtmpfs dev /root/dev
mkdir -p /root/dev/pts /root/dev/shm
mount -t devpts devpts /root/dev/pts
mount -t tmpfs tmpfs /root/dev/shm
# A checkout that lives under /tmp or /var/tmp (a CI clone) keeps its own top
# folder there: hold it aside, mount the fresh tmpfs, put it back.
keep="$(cat /x/keep 2>/dev/null)"
if [ -n "$keep" ]; then mkdir -p /kept && mount --bind "/root$keep" /kept; fi
mount -t tmpfs tmpfs /root/run
mount -t tmpfs tmpfs /root/tmp
mount -t tmpfs tmpfs /root/var/tmp
if [ -n "$keep" ]; then mkdir -p "/root$keep" && mount --bind /kept "/root$keep"; fi
mount -t cgroup2 cgroup2 /root/sys/fs/cgroup 2>/dev/null
# The kernel's own modules (the prepared package's tree, on the host's root;
# vm-run names it) at /lib/modules/<version>, as an installed kernel's: the
# kernel's modprobe helper (/sbin/modprobe here, modprobe-helper.sh) runs the
# host's kmod chrooted into /root, which looks there.
modules_dir="$(cat /x/modules-dir 2>/dev/null)"
if [ -n "$modules_dir" ] && [ -d "/lower$modules_dir" ]; then
  mkdir -p "/root/lib/modules/$(uname -r)"
  mount --bind "/lower$modules_dir" "/root/lib/modules/$(uname -r)" ||
    say "cannot bind the module tree at /lib/modules/$(uname -r)"
else
  say "no module tree (/x/modules-dir: '$modules_dir'): nothing will load on demand"
fi
mkdir -p /root/run/vm-exchange
mount --bind /x /root/run/vm-exchange
ip link set lo up

chroot /root /bin/sh /run/vm-exchange/cmd.sh > /x/output 2>&1 < /dev/null
echo $? > /x/status.tmp
mv /x/status.tmp /x/status
umount /root/run/vm-exchange
halt
