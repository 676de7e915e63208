// Which user namespace this process is in, read from /proc/self/uid_map:
// whether it is the host's, and which host uid it runs as. In common/ because
// the ledger (where ledgers live, who owns one) and the topology (how
// namespaces are named and mounted) both ask, and the ledger depends on
// nothing else in the runner. Thread-safe (reads /proc each call).
#pragma once

#include <sys/types.h>

namespace fabriclab {

// True when the process is in the initial (host) user namespace, i.e. its
// uid_map is the identity map "0 0 4294967295". Inside `unshare -U` it is not.
bool in_initial_user_namespace();

// The uid this process has on the host: getuid() in the initial user
// namespace; inside a user namespace, the outside uid that ours maps to (in
// rootless mode getuid() is 0, this is still the user's own uid).
uid_t host_uid();

}  // namespace fabriclab
