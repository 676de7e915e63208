#include "trainer/metrics_writer.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "common/input_error.h"

namespace fabriclab::trainer {

double unix_time_s() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

MetricsWriter::MetricsWriter(const std::string& path, int rank) : rank_(rank), path_(path) {
  if (path.empty()) return;
  if (path == "-") {
    file_ = stdout;
    return;
  }
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw InputError("--metrics " + path + ": cannot open: " + std::strerror(errno));
  owned_ = true;
}

MetricsWriter::~MetricsWriter() {
  if (owned_) std::fclose(file_);
}

void MetricsWriter::write(const std::string& event, nlohmann::json fields) {
  if (!file_) return;
  nlohmann::json line = {{"v", kMetricsVersion}, {"event", event}, {"rank", rank_}, {"ts", unix_time_s()}};
  line.update(fields);
  const std::string text = line.dump() + "\n";
  // A metric lost quietly is a wrong result later (a full disk, most
  // often): stop the rank, saying where and why.
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw std::runtime_error("metrics " + path_ + ": cannot write: " + std::strerror(errno));
}

}  // namespace fabriclab::trainer
