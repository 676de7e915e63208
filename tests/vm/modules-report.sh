#!/bin/sh
# Prints what the test VM's kernel ended up with: every module in
# /proc/modules (booting's few from modules.txt and their dependencies, the
# rest loaded on demand), then each request the kernel's modprobe helper
# received (modprobe-helper.sh's log) and whether it loaded. A request that
# failed names a module the kernel asked for and did not get -- often by
# design: the kernel also probes names nothing provides (netdev-<device> when
# a device lookup fails, nft-expr-<family>-<name> before nft-expr-<name>).
#   usage: modules-report.sh        (inside the VM, at the end of a test)
echo "modules loaded ($(wc -l < /proc/modules)): $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
log=/run/fabriclab-vm-modprobe.log
if [ -s "$log" ]; then
  # "-q -- sch_netem -> 0": the name is the word before "->".
  awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "->") name = $i; rc = $NF
         if (rc == 0) ok[name] = 1; else bad[name] = rc }
       END { for (n in ok) okl = okl " " n
             for (n in bad) if (!(n in ok)) badl = badl " " n "(exit " bad[n] ")"
             print "modules loaded on demand:" (okl == "" ? " none" : okl)
             print "modules asked for in vain:" (badl == "" ? " none" : badl) }' "$log"
else
  echo "modules loaded on demand: none (the kernel's modprobe helper was never run)"
fi
