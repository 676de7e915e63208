#include "runner/host/store_connection.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fabriclab::runner::host {
namespace {

using Clock = std::chrono::steady_clock;

// c10d's detail::QueryType and CheckResponseType (TCPStore.cpp), by value.
enum class Query : uint8_t { kSet = 0, kGet = 2, kAdd = 3, kCheck = 4 };
constexpr uint8_t kReady = 0;
constexpr const char* kKeyPrefix = "/";  // c10d's client adds it to every key

class Request {
 public:
  explicit Request(Query query) { bytes_.push_back(static_cast<uint8_t>(query)); }
  template <typename T>
  Request& value(T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
    return *this;
  }
  Request& text(const std::string& s) {
    value<uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  Request& data(const std::vector<uint8_t>& v) {
    value<uint64_t>(v.size());
    bytes_.insert(bytes_.end(), v.begin(), v.end());
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

int milliseconds_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(left.count(), 0));
}

// Waits for `events` on fd until `deadline`; false when the time is up.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, milliseconds_left(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  }
}

std::string whole_seconds(std::chrono::milliseconds t) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(t).count()) + " s";
}

// A non-blocking connect to one address, finished within `deadline`.
int connect_one(const addrinfo& a, Clock::time_point deadline, std::string& why) {
  const int fd = ::socket(a.ai_family, a.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a.ai_protocol);
  if (fd < 0) {
    why = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int err = 0;
  if (::connect(fd, a.ai_addr, a.ai_addrlen) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      if (!wait_for(fd, POLLOUT, deadline)) {
        ::close(fd);
        why = "connect timed out";
        return -1;
      }
      socklen_t len = sizeof(err);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
  }
  if (err != 0) {
    ::close(fd);
    why = std::strerror(err);
    return -1;
  }
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace

StoreConnection::StoreConnection(const std::string& host, int port,
                                 std::chrono::milliseconds timeout)
    : timeout_(timeout), peer_(host + ":" + std::to_string(port)) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) throw std::runtime_error(host + ": " + ::gai_strerror(rc));
  const auto deadline = Clock::now() + timeout;
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next)
    fd_ = connect_one(*a, deadline, why);
  ::freeaddrinfo(found);
  if (fd_ < 0) throw std::runtime_error(peer_ + ": " + why);
}

StoreConnection::~StoreConnection() {
  if (fd_ >= 0) ::close(fd_);
}

void StoreConnection::send_request(const std::vector<uint8_t>& bytes) {
  const auto deadline = Clock::now() + timeout_;
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(fd_, POLLOUT, deadline))
        throw std::runtime_error(peer_ + ": request timed out after " + whole_seconds(timeout_));
    } else if (n < 0 && errno != EINTR) {
      throw std::runtime_error(peer_ + ": " + std::strerror(errno));
    }
  }
}

void StoreConnection::receive(void* data, size_t size) {
  const auto deadline = Clock::now() + timeout_;
  auto* out = static_cast<uint8_t*>(data);
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::recv(fd_, out + got, size - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n == 0) {
      throw std::runtime_error(peer_ + ": Connection closed by the store");
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      if (!wait_for(fd_, POLLIN, deadline))
        throw std::runtime_error(peer_ + ": answer timed out after " + whole_seconds(timeout_));
    } else if (errno != EINTR) {
      throw std::runtime_error(peer_ + ": " + std::strerror(errno));
    }
  }
}

template <typename T>
T StoreConnection::receive_value() {
  T value{};
  receive(&value, sizeof(T));
  return value;
}

void StoreConnection::set(const std::string& key, const std::vector<uint8_t>& value) {
  send_request(Request(Query::kSet).text(kKeyPrefix + key).data(value).bytes());
}

bool StoreConnection::check(const std::string& key) {
  send_request(Request(Query::kCheck).value<uint64_t>(1).text(kKeyPrefix + key).bytes());
  return receive_value<uint8_t>() == kReady;
}

std::vector<uint8_t> StoreConnection::get(const std::string& key) {
  send_request(Request(Query::kGet).text(kKeyPrefix + key).bytes());
  const uint64_t size = receive_value<uint64_t>();
  // Host mode's values are a few kB of JSON: anything near this is a broken stream.
  if (size > (uint64_t{64} << 20))
    throw std::runtime_error(peer_ + ": a " + std::to_string(size) + "-byte answer to get " + key);
  std::vector<uint8_t> value(size);
  if (!value.empty()) receive(value.data(), value.size());
  return value;
}

int64_t StoreConnection::add(const std::string& key, int64_t delta) {
  send_request(Request(Query::kAdd).text(kKeyPrefix + key).value<int64_t>(delta).bytes());
  return receive_value<int64_t>();
}

}  // namespace fabriclab::runner::host
