#include "runner/scenario/metrics_tail.h"

#include <fstream>

namespace fabriclab::runner {

std::vector<nlohmann::json> MetricsTail::read_new() {
  std::vector<nlohmann::json> events;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return events;  // the rank has not created it yet
  in.seekg(offset_);
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  offset_ += static_cast<std::streamoff>(chunk.size());
  partial_ += chunk;
  size_t start = 0;
  for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
    auto event = nlohmann::json::parse(partial_.begin() + static_cast<long>(start),
                                       partial_.begin() + static_cast<long>(nl), nullptr, false);
    if (!event.is_discarded()) events.push_back(std::move(event));
  }
  partial_.erase(0, start);
  return events;
}

}  // namespace fabriclab::runner
