#!/usr/bin/env bash
# Regenerates tests/netem/fixtures/*.txt: the exact bytes iproute2's tc sends
# for each command in fixtures/commands.txt, captured with
#   strace -f -e trace=sendmsg -e write=all tc qdisc ...
# inside a throwaway network namespace (unshare -n), so the host's network is
# never touched. The bytes show even on a kernel without sch_netem (the kernel
# rejects the message after strace has seen it). A command tc refuses to send
# is recorded as "result: rejected" with tc's message.
#
# Usage: tests/netem/capture_fixtures.sh [DIR]  (root, or unprivileged with
#        user namespaces: it re-runs itself under `unshare -U -r`). DIR holds
#        commands.txt and the fixtures: tests/netem/fixtures (netem, the
#        default) or tests/netem/fixtures/tbf (the shaper `rate` uses without
#        sch_netem).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fixtures="${1:-$here/fixtures}"
commands="$fixtures/commands.txt"

for tool in tc strace unshare; do
  command -v "$tool" >/dev/null || { echo "capture_fixtures: $tool not found" >&2; exit 1; }
done
if [ "$(id -u)" -ne 0 ]; then
  exec unshare -U -r "$0" "$@"
fi

rm -f "$fixtures"/[0-9]*.txt
n=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  slug=$(printf '%s' "$line" | sed -e 's/.* \(netem\|tbf\) *//' -e 's/[^A-Za-z0-9.]\+/_/g' | cut -c1-60)
  file=$(printf '%s/%03d-%s.txt' "$fixtures" "$n" "$slug")
  # shellcheck disable=SC2086  # the words are meant to be split, as a shell would
  trace=$(unshare -n strace -f -qq -e trace=sendmsg -e write=all tc qdisc $line 2>&1 || true)
  hex=$(printf '%s\n' "$trace" | awk '/^ [|] [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { h = substr($0, 11, 48); gsub(/ /, "", h); printf "%s", h }')
  {
    echo "# Captured from $(tc -V | head -1) by tests/netem/capture_fixtures.sh; do not edit."
    echo "tc: tc qdisc $line"
    if [ -n "$hex" ]; then
      echo "result: sent"
      echo "bytes: $hex"
    else
      echo "result: rejected"
      echo "tc_error: $(printf '%s\n' "$trace" | grep -v -e '^+++' -e '^sendmsg' -e '^ [|]' | head -1)"
    fi
  } >"$file"
done <"$commands"
echo "capture_fixtures: wrote $n fixtures to $fixtures"
