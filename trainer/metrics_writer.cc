#include "trainer/metrics_writer.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/input_error.h"

namespace fabriclab::trainer {

double unix_time_s() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

MetricsWriter::MetricsWriter(const std::string& path, int rank) : rank_(rank) {
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
  std::fwrite(text.data(), 1, text.size(), file_);
  std::fflush(file_);
}

}  // namespace fabriclab::trainer
