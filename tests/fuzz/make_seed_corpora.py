#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ from the project's own files.

Run from the source tree: python3 tests/fuzz/make_seed_corpora.py
Seeds named regression-* (inputs that once crashed a target) and the qdisc
dumps captured from a kernel (capture_qdisc_dumps.py) are kept as they are.

  fuzz_netem_spec     the tc words of tests/netem/fixtures/ (what tc 6.1 was
                      given, good and bad) and every lab's impair/uplinks words
  fuzz_queue_spec     the queue words of the congestion lab and port_spec.h
  fuzz_lab_toml       every labs/*/lab.toml
  fuzz_answers_toml   every recordings/*/answers.toml
  fuzz_recording      run.json, NUL, the first 60 lines of metrics.jsonl,
                      for every recording
  fuzz_session_cast   the header and first 40 events of every session.cast,
                      and escape sequences the sanitizer must remove
  fuzz_qdisc_dump     tc's RTM_NEWQDISC messages of tests/netem/fixtures/
  fuzz_nfqueue_packet NFQNL_MSG_PACKET messages as the kernel builds them,
                      around IPv4/TCP and IPv6 headers
"""
import glob
import hashlib
import os
import re
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests/fuzz/corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def fixtures():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/netem/fixtures/[0-9]*.txt"))):
        fields = {}
        for line in open(path):
            key, _, value = line.partition(": ")
            fields[key] = value.strip()
        yield os.path.basename(path)[:-4], fields


def netem_spec():
    for name, f in fixtures():
        words = f.get("tc", "").split(" netem ", 1)
        if len(words) == 2:
            put("fuzz_netem_spec", "fixture-" + name, words[1])
    seen = set()
    for lab in sorted(glob.glob(os.path.join(ROOT, "labs/*/lab.toml"))):
        for m in re.finditer(r'^\s*(impair|uplinks|host_links)\s*=\s*"([^"]+)"', open(lab).read(), re.M):
            words = m.group(2).replace("{}", "2.5")
            if words not in seen:
                seen.add(words)
                put("fuzz_netem_spec", "lab-" + hashlib.sha1(words.encode()).hexdigest()[:8], words)


def queue_spec():
    words = set(re.findall(r'queue\s*=\s*"([^"]+)"',
                           open(os.path.join(ROOT, "labs/08-congestion-without-casualties/lab.toml")).read()))
    words |= {"rate 100gbit limit 1mb ecn kmin 5kb kmax 200kb pmax 1%",
              "rate 100gbit limit 2mb ecn kmin 400kb kmax 1600kb pmax 0.2",
              "rate 1gbit limit 256kb ecn k 64kb", "rate 500mbit limit 1500"}
    for w in sorted(words):
        put("fuzz_queue_spec", "words-" + hashlib.sha1(w.encode()).hexdigest()[:8], w)


def labs_and_recordings():
    for lab in sorted(glob.glob(os.path.join(ROOT, "labs/*/lab.toml"))):
        put("fuzz_lab_toml", os.path.basename(os.path.dirname(lab)), open(lab, "rb").read())
    for rec in sorted(glob.glob(os.path.join(ROOT, "recordings/*/"))):
        name = os.path.basename(rec.rstrip("/"))
        answers = os.path.join(rec, "answers.toml")
        if os.path.exists(answers):
            put("fuzz_answers_toml", name, open(answers, "rb").read())
        run = open(os.path.join(rec, "run.json"), "rb").read()
        metrics = open(os.path.join(rec, "metrics.jsonl"), "rb").read().split(b"\n")[:60]
        put("fuzz_recording", name, run + b"\0" + b"\n".join(metrics) + b"\n")
        cast = open(os.path.join(rec, "session.cast"), "rb").read().split(b"\n")[:41]
        put("fuzz_session_cast", name, b"\n".join(cast) + b"\n")
    header = b'{"version": 2, "width": 80, "height": 24, "title": "t\\u001b]0;x\\u0007"}\n'
    for i, data in enumerate([
            "\\u001b]52;c;aGVsbG8=\\u0007copied",   # OSC 52: clipboard
            "\\u001b[c\\u001b[6n\\u001b[21t",       # DA, DSR, title report
            "\\u001bP+q544e\\u001b\\\\",            # DCS
            "\\u009b1m\\u00c2\\u009bc",              # C1 CSI as UTF-8
            "\\u001b[1;31mred\\u001b[0m \\u001b]8;;http://x\\u001b\\\\link\\u001b]8;;\\u001b\\\\"]):
        put("fuzz_session_cast", "escapes-%d" % i,
            header + b'[0.1, "o", "' + data.encode() + b'"]\n[0.2, "m", "label\\u001b[2J"]\n')


def qdisc_messages():
    for name, f in fixtures():
        if f.get("result") == "sent" and f.get("bytes"):
            put("fuzz_qdisc_dump", "tc-" + name, bytes.fromhex(f["bytes"]))


def nla(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


def nfqueue_packets():
    NFNL_SUBSYS_QUEUE, NFQNL_MSG_PACKET = 3, 0
    NFQA_PACKET_HDR, NFQA_PAYLOAD, NFQA_CAP_LEN = 1, 10, 12

    def message(packet_id, payload, cap_len=None, proto=0x0800):
        attrs = nla(NFQA_PACKET_HDR, struct.pack("!IHB", packet_id, proto, 1) + b"\0")
        if payload is not None:
            attrs += nla(NFQA_PAYLOAD, payload)
        if cap_len is not None:
            attrs += nla(NFQA_CAP_LEN, struct.pack("!I", cap_len))
        body = struct.pack("=BBH", 2, 0, 0) + attrs  # nfgenmsg: AF_INET, v0, queue 0 (BE)
        return struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET,
                           0, 0, 0) + body

    ipv4_tcp = bytes.fromhex("4502003c1c4640004006b1e60a4d00010a4d0002"   # ECT(0), 10.77.0.1 -> .2
                             "a0c21f90000000000000000050022000e6320000")
    ipv6 = bytes.fromhex("6000000000140640" + "fd00" + "00" * 13 + "01" + "fd00" + "00" * 13 + "02")
    put("fuzz_nfqueue_packet", "ipv4-tcp-full-header", message(7, ipv4_tcp, 1514))
    put("fuzz_nfqueue_packet", "ipv4-first-byte", message(8, ipv4_tcp[:1], 66))
    put("fuzz_nfqueue_packet", "ipv6-header", message(9, ipv6, 1280, proto=0x86DD))
    put("fuzz_nfqueue_packet", "metadata-only", message(10, None, 60))
    put("fuzz_nfqueue_packet", "two-packets",
        message(11, ipv4_tcp[:20], 9000) + message(12, ipv4_tcp[:20], 1514))


if __name__ == "__main__":
    netem_spec()
    queue_spec()
    labs_and_recordings()
    qdisc_messages()
    nfqueue_packets()
