// One client connection to c10d's TCPStore server (the lead runner serves it,
// control_store.h), speaking the server's wire protocol as libtorch 1.13
// does: a query byte, then its arguments, strings and byte vectors as a
// uint64 length and the bytes; keys carry c10d's client prefix "/". Only the
// four requests host mode uses: set, check, get, add.
//
// Why not c10d's own client: c10d 1.13's TCPStore client opens a second
// connection, for watchKey() callbacks, served by a listener thread that lets
// any error on that socket escape the thread -- std::terminate, the process
// aborts. A connection that waits in the lead's accept queue when the lead's
// listening socket closes is reset by the lead's kernel; so a follower that
// (re)connected while its lead was exiting, frozen or killed aborted
// ("terminate called after throwing an instance of 'std::system_error',
// what(): Connection reset by peer") instead of reporting its lead lost.
// This connection has no thread: every failure is an exception of the call
// that met it, and the destructor only closes the socket -- it cannot abort.
//
// Errors: std::runtime_error; a request with no answer within the timeout
// says "timed out" (is_store_timeout() in control_store.h), a refused, reset
// or closed connection says so. After any error the connection is unusable
// (a late answer would be read as the next request's): open a new one.
// Thread safety: one thread per connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::runner::host {

class StoreConnection {
 public:
  // Connects to host:port (a name or an address) within `timeout`, which
  // also bounds every request's wait for its answer.
  StoreConnection(const std::string& host, int port, std::chrono::milliseconds timeout);
  ~StoreConnection();
  StoreConnection(const StoreConnection&) = delete;
  StoreConnection& operator=(const StoreConnection&) = delete;

  void set(const std::string& key, const std::vector<uint8_t>& value);
  bool check(const std::string& key);
  // The key must exist (check() first): c10d's server drops the connection
  // of a get for a missing key.
  std::vector<uint8_t> get(const std::string& key);
  int64_t add(const std::string& key, int64_t delta);

 private:
  void send_request(const std::vector<uint8_t>& bytes);
  void receive(void* data, size_t size);
  template <typename T>
  T receive_value();

  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  std::string peer_;  // "host:port", for messages
};

}  // namespace fabriclab::runner::host
