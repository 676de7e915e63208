// A TCP port on loopback that nobody listens on right now: bind to port 0,
// read what the kernel picked, close. Whoever uses it binds it a moment
// later; another program may take it in between (rare; it then shows as a
// bind or rendezvous error, never as silent misbehaviour).
#pragma once

namespace fabriclab {

// Throws std::runtime_error when no socket can be bound.
int free_loopback_port();

}  // namespace fabriclab
