// Evidence for doc/roce.md (section 4), not part of the build: Gloo allreduce
// over Debian's Gloo ibverbs transport across two hosts, every element
// checked. The rendezvous is a two-party store over one TCP connection (rank
// 0 listens on PORT, rank 1 connects to PEER:PORT); fabriclab's own workload
// would use its c10d store (runner/bench/allreduce_rank.cc) instead.
// usage: gloo_ibverbs_pair RANK RDMA_DEVICE GID_INDEX PEER PORT COUNT
#include <arpa/inet.h>
#include <gloo/allreduce_ring.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/ibverbs/device.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

class PairStore : public gloo::rendezvous::Store {
 public:
  explicit PairStore(int fd) : fd_(fd), reader_([this] { read_loop(); }) { reader_.detach(); }
  void set(const std::string& key, const std::vector<char>& data) override {
    { std::lock_guard<std::mutex> l(m_); map_[key] = data; }
    cv_.notify_all();
    uint32_t k = key.size(), v = data.size();
    std::vector<char> buf(8 + k + v);
    memcpy(buf.data(), &k, 4); memcpy(buf.data() + 4, key.data(), k);
    memcpy(buf.data() + 4 + k, &v, 4); memcpy(buf.data() + 8 + k, data.data(), v);
    std::lock_guard<std::mutex> l(w_);
    for (size_t off = 0; off < buf.size();) { ssize_t n = ::write(fd_, buf.data() + off, buf.size() - off); if (n <= 0) std::abort(); off += n; }
  }
  std::vector<char> get(const std::string& key) override { wait({key}); std::lock_guard<std::mutex> l(m_); return map_[key]; }
  void wait(const std::vector<std::string>& keys) override { wait(keys, std::chrono::seconds(120)); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& t) override {
    std::unique_lock<std::mutex> l(m_);
    if (!cv_.wait_for(l, t, [&] { for (auto& k : keys) if (!map_.count(k)) return false; return true; })) {
      std::fprintf(stderr, "store wait timed out\n"); std::exit(3); }
  }
 private:
  bool read_all(void* p, size_t n) { char* c = static_cast<char*>(p); while (n) { ssize_t r = ::read(fd_, c, n); if (r <= 0) return false; c += r; n -= r; } return true; }
  void read_loop() {
    for (;;) {
      uint32_t k, v; if (!read_all(&k, 4)) return; std::string key(k, 0); read_all(key.data(), k);
      read_all(&v, 4); std::vector<char> val(v); read_all(val.data(), v);
      { std::lock_guard<std::mutex> l(m_); map_[key] = val; } cv_.notify_all();
    }
  }
  int fd_; std::mutex m_, w_; std::condition_variable cv_; std::map<std::string, std::vector<char>> map_; std::thread reader_;
};

int main(int argc, char** argv) {
  if (argc < 7) { std::fprintf(stderr, "usage: rank dev gid peer port count\n"); return 2; }
  const int rank = std::atoi(argv[1]);
  sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(std::atoi(argv[5]));
  int fd = -1;
  if (rank == 0) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0); int one = 1; setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    a.sin_addr.s_addr = INADDR_ANY; if (::bind(s, (sockaddr*)&a, sizeof a) || ::listen(s, 1)) { perror("listen"); return 1; }
    fd = ::accept(s, nullptr, nullptr);
  } else {
    inet_pton(AF_INET, argv[4], &a.sin_addr);
    for (int i = 0; i < 120; ++i) { fd = ::socket(AF_INET, SOCK_STREAM, 0); if (::connect(fd, (sockaddr*)&a, sizeof a) == 0) break; ::close(fd); fd = -1; sleep(1); }
    if (fd < 0) { std::fprintf(stderr, "cannot reach rank 0\n"); return 1; }
  }
  PairStore store(fd);
  gloo::transport::ibverbs::attr attr; attr.name = argv[2]; attr.port = 1; attr.index = std::atoi(argv[3]);
  auto dev = gloo::transport::ibverbs::CreateDevice(attr);
  auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, 2);
  ctx->setTimeout(std::chrono::seconds(60));
  auto t0 = std::chrono::steady_clock::now();
  ctx->connectFullMesh(store, dev);
  const size_t n = std::atol(argv[6]);
  std::vector<float> data(n);
  gloo::AllreduceRing<float> allreduce(ctx, {data.data()}, static_cast<int>(n));
  int wrong = 0;
  for (int iter = 0; iter < 5; ++iter) {
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<float>((rank + 1) * (i % 97));
    allreduce.run();
    for (size_t i = 0; i < n; ++i) wrong += data[i] != static_cast<float>(3 * (i % 97));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rank %d: 5 allreduces of %zu floats over ibverbs (%s) across the pair, #wrong %d, %.2f s\n", rank, n, argv[2], wrong, s);
  std::fflush(stdout);
  ::_exit(wrong ? 1 : 0);
}
