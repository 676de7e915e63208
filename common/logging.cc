#include "common/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace fabriclab {

void init_logging(const std::string& name, int verbosity) {
  auto logger = spdlog::get(name);
  if (!logger) logger = spdlog::stderr_color_mt(name);
  spdlog::set_default_logger(logger);
  spdlog::level::level_enum level = spdlog::level::info;
  if (verbosity < 0) level = spdlog::level::warn;
  if (verbosity == 1) level = spdlog::level::debug;
  if (verbosity >= 2) level = spdlog::level::trace;
  spdlog::set_level(level);
  // Time with milliseconds: step times are what the labs are about.
  spdlog::set_pattern("%H:%M:%S.%e [%n] %^%l%$ %v");
}

}  // namespace fabriclab
