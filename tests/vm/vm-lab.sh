#!/bin/sh
# Runs a lab in the test VM (the netem backend unless the arguments name
# another: --backend auto|userspace), then checks what it left.
# Through tests/vm/vm-pair (FABRICLAB_VM_HOSTS set): in host mode across the
# two VMs, checking eth0 and the process table on both. Through
# tests/vm/vm-run: in namespace mode in one VM, checking the namespaces too.
#   usage: vm-lab.sh BUILD_DIR LAB SCALE [fabriclab run ARGS...]
# SCALE multiplies every deadline_s and stall_s of the lab, and the length of
# a link fault (a copy under
# /tmp/labs; the lab's folder is untouched): in the VM each rank's start alone
# takes 13-30 s (libtorch under TCG) and training runs ~20x slower, so a
# limit written in seconds (lab 02's quick stall_s, 15 s) stalls every
# scenario before its first step. SCALE 1 runs the lab as it is.
# Examples (from the source tree, as root):
#   tests/vm/vm-pair --timeout 2400 -- sh tests/vm/vm-lab.sh build 02 10 --quick \
#     --scenario clean --scenario latency --scenario loss --scenario both
#   tests/vm/vm-run --timeout 1200 -- sh tests/vm/vm-lab.sh build 02 10 --quick \
#     --scenario clean --scenario latency
build="${1:?usage: vm-lab.sh BUILD_DIR LAB SCALE [ARGS...]}"
lab="${2:?usage: vm-lab.sh BUILD_DIR LAB SCALE [ARGS...]}"
scale="${3:?usage: vm-lab.sh BUILD_DIR LAB SCALE [ARGS...]}"
shift 3
backend_args="--backend netem"
case " $* " in *" --backend "*) backend_args="" ;; esac
h="${FABRICLAB_VM_INDEX:-}"
mode_args=""
[ -n "${FABRICLAB_VM_HOSTS:-}" ] && mode_args="--hosts $FABRICLAB_VM_HOSTS --iface eth0"

folder=$(ls -d labs/"$lab"-* 2>/dev/null | head -n 1)
[ -n "$folder" ] || { echo "vm-lab: no lab $lab under ./labs"; exit 2; }
mkdir -p /tmp/labs
cp -r "$folder" /tmp/labs/
toml="/tmp/labs/$(basename "$folder")/lab.toml"
# A link fault's length too ("down 2s" -> "down 20s"): under TCG one step
# takes seconds, and a 2 s fault could fall between two steps' traffic.
awk -v k="$scale" '/^(deadline_s|stall_s) = [0-9]+/ { $3 = $3 * k }
  /^link_fault = "(down|impair .* for) [0-9]+s / {
    match($0, /[0-9]+s /); n = substr($0, RSTART, RLENGTH - 2)
    $0 = substr($0, 1, RSTART - 1) (n * k) "s " substr($0, RSTART + RLENGTH) }
  { print }' "$toml" > "$toml.new"
mv "$toml.new" "$toml"
echo "vm$h: limits x$scale: $(grep -E '^(deadline_s|stall_s|link_fault)' "$toml" | tr '\n' ' ')"

# Host mode prints the lab's [topology] sysctl line and leaves the host's
# settings alone; the README tells users to set them on every host: done here.
# (Namespace mode sets them in the ranks' namespaces itself.)
sysctls=""
[ -n "$mode_args" ] && sysctls=$(awk '/^\[/ { in_topology = ($0 == "[topology]") }
               in_topology && /^sysctl = / { sub(/^sysctl = "/, ""); sub(/".*/, ""); print }' "$toml")
for s in $sysctls; do sysctl -q -w "$s" || { echo "vm-lab: cannot set $s"; exit 1; }; done
[ -n "$sysctls" ] && echo "vm$h: set the lab's sysctls: $sysctls"

# One start of the binary, timed: what each rank pays before its first step
# (libtorch's static initializers under TCG), at the machine's current load.
start=$(date +%s)
"$build/fabriclab" --version > /dev/null
echo "vm$h: one fabriclab start: $(( $(date +%s) - start )) s"

start=$(date +%s)
"$build/fabriclab" run "$lab" --labs /tmp/labs --output /tmp/runs --no-charts $backend_args \
  $mode_args "$@"
rc=$?
echo "vm$h: fabriclab run exit $rc after $(( $(date +%s) - start )) s (VM clock)"

# The ranks' logs die with the VM: show where each rank was (last lines).
for log in /tmp/runs/*/ranks/*/rank*.log; do
  [ -f "$log" ] && { echo "-- vm$h ${log#/tmp/runs/}:"; tail -n 3 "$log"; }
done

sleep 2
failed=0
if [ -z "$mode_args" ]; then
  :  # namespace mode: the lab links died with their namespaces (checked below)
elif tc qdisc show dev eth0 | grep -q 'fab0:'; then
  echo "FAIL: qdisc fab0: left on eth0:"; tc qdisc show dev eth0; failed=1
else
  echo "ok: no fabriclab qdisc on eth0 ($(tc qdisc show dev eth0 | head -n 1))"
fi
if [ -n "$(ip netns list)" ]; then
  echo "FAIL: network namespaces left:"; ip netns list; failed=1
else
  echo "ok: no network namespace left"
fi
if pgrep -a fabriclab; then echo "FAIL: fabriclab processes left (above)"; failed=1
else echo "ok: no fabriclab process left"; fi
[ "$failed" -eq 0 ] && exit "$rc"
exit 1
