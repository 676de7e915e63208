#!/usr/bin/env python3
"""Captures RTM_GETQDISC dumps from the kernel as seeds for fuzz_qdisc_dump.

Run as root: python3 tests/fuzz/capture_qdisc_dumps.py
It makes a network namespace of its own (fuzzcap-PID) with a veth pair, puts qdiscs on it with tc (netem when the kernel has sch_netem, tbf,
htb, fq_codel), sends a little traffic so the statistics are not all zero,
and writes each receive buffer of `tc -s qdisc show`'s request (what
RtnlSocket::dump hands to parse_qdisc) to tests/fuzz/corpus/fuzz_qdisc_dump/
kernel-*. The namespace is deleted on every exit path.
"""
import os
import socket
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests/fuzz/corpus/fuzz_qdisc_dump")
NS = "fuzzcap-%d" % os.getpid()


def sh(*args, check=True):
    return subprocess.run(["ip", "netns", "exec", NS] + list(args), check=check,
                          capture_output=True, text=True)


def dump_buffers():
    """One RTM_GETQDISC dump in the namespace: the raw receive buffers."""
    code = r'''
import socket, struct, sys
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.bind((0, 0))
req = struct.pack("=IHHII", 36, 38, 0x301, 1, 0) + bytes(20)   # RTM_GETQDISC, REQUEST|DUMP
s.send(req)
bufs = []
while True:
    b = s.recv(65536)
    bufs.append(b)
    if struct.unpack_from("=H", b, 4)[0] == 3: break              # NLMSG_DONE
    done = False
    off = 0
    while off + 16 <= len(b):
        n, t = struct.unpack_from("=IH", b, off)
        if t == 3: done = True
        off += (n + 3) & ~3
    if done: break
sys.stdout.write(" ".join(x.hex() for x in bufs))
'''
    out = subprocess.run(["ip", "netns", "exec", NS, sys.executable, "-c", code], check=True,
                         capture_output=True, text=True).stdout
    return [bytes.fromhex(x) for x in out.split()]


def main():
    subprocess.run(["ip", "netns", "add", NS], check=True)
    try:
        sh("ip", "link", "add", "fa", "type", "veth", "peer", "name", "fb")
        sh("ip", "addr", "add", "10.99.0.1/24", "dev", "fa")
        sh("ip", "addr", "add", "10.99.0.2/24", "dev", "fb")
        sh("ip", "link", "set", "lo", "up")
        sh("ip", "link", "set", "fa", "up")
        sh("ip", "link", "set", "fb", "up")
        setups = {
            "netem": ["netem", "delay", "1ms", "100us", "25%", "loss", "1%", "duplicate", "1%",
                      "rate", "100mbit", "limit", "2000"],
            "netem-slot": ["netem", "slot", "1ms", "2ms", "packets", "10", "loss", "state", "1%",
                           "30%", "ecn"],
            "netem-dist": ["netem", "delay", "2ms", "1ms", "distribution", "normal"],
            "tbf": ["tbf", "rate", "100mbit", "burst", "15140", "limit", "1514000"],
            "fq_codel": ["fq_codel"],
            "htb": ["htb", "default", "1"],
            "pfifo": ["pfifo", "limit", "100"],
        }
        written = 0
        for name, words in setups.items():
            sh("tc", "qdisc", "del", "dev", "fa", "root", check=False)
            r = sh("tc", "qdisc", "replace", "dev", "fa", "root", "handle", "fab0:", *words, check=False)
            if r.returncode != 0:
                print("skip %s: %s" % (name, r.stderr.strip()))
                continue
            sh("ping", "-c", "3", "-i", "0.01", "-q", "10.99.0.2", check=False)
            for i, buf in enumerate(dump_buffers()):
                with open(os.path.join(OUT, "kernel-%s-%d" % (name, i)), "wb") as f:
                    f.write(buf)
                written += 1
        print("wrote %d receive buffers to %s" % (written, OUT))
    finally:
        subprocess.run(["ip", "netns", "delete", NS], check=False)


if __name__ == "__main__":
    main()
