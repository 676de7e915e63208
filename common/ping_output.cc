#include "common/ping_output.h"

#include <regex>

namespace fabriclab {

std::vector<double> ping_rtts_ms(const std::string& output) {
  std::vector<double> v;
  static const std::regex time_re(R"(time=([\d.]+) ms)");
  for (auto it = std::sregex_iterator(output.begin(), output.end(), time_re);
       it != std::sregex_iterator(); ++it) {
    v.push_back(std::stod((*it)[1]));
  }
  return v;
}

}  // namespace fabriclab
