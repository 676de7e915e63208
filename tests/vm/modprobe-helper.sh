#!/bin/busybox sh
# /sbin/modprobe of the test VM's initramfs: the kernel's module helper
# (/proc/sys/kernel/modprobe, CONFIG_MODPROBE_PATH="/sbin/modprobe").
# The kernel runs it as `modprobe -q -- NAME` whenever something asks for a
# module it does not have (a qdisc kind, an nftables expression, a netlink
# family...), in the root of PID 1 and the kernel threads -- which in this
# VM stays the initramfs (init.sh runs the command chrooted in a child). So
# this script does what /sbin/modprobe does on an installed system: it runs
# the host's real modprobe (kmod) in the overlay root, where the kernel's own
# module tree is at /lib/modules/<version> (init.sh binds it there).
# Each request and its exit status go to /run/fabriclab-vm-modprobe.log in
# that root, so the tests can say what was loaded on demand and what was
# asked for in vain.
# (Early in boot /root is still empty and chroot fails: nothing to load yet.)
/bin/chroot /root /sbin/modprobe "$@"
rc=$?
[ -d /root/run ] && echo "$* -> $rc" >> /root/run/fabriclab-vm-modprobe.log
exit $rc
